"""Real headless Chromium: join by the QR code's link, the Pi's own screen shows the code,
a foreign page opened in the Pi's browser changes nothing, a rebound name gets nothing."""
from __future__ import annotations

import http.server
import os
import threading
from pathlib import Path

import pytest

from companion.service import Service
from companion.web.server import WebServer
from polling import wait_for

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing (apt-get install -y chromium)")


def chromium(p, *extra: str):
    return p.chromium.launch(executable_path=CHROMIUM, args=[*ARGS, *extra])


@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)])
def test_a_phone_joins_by_the_qr_link_and_plays(web_service: tuple[Service, WebServer], width: int, height: int) -> None:
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    service, web = web_service  # 127.0.0.1 is not trusted here: the browser is a phone
    errors: list[str] = []
    with sync_playwright() as p:
        browser = chromium(p)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.on("pageerror", lambda e: errors.append(str(e)))
            shots = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser" / f"{width}x{height}"  # kept as test artefacts
            shots.mkdir(parents=True, exist_ok=True)
            page.goto(web.app.pair_url())
            # paired without typing anything (the pairing bar starts hidden: wait for the cookie itself)
            assert wait_for(lambda: page.context.cookies())
            assert "#pair=" not in page.url  # the code is out of the address bar (and history entry)
            assert page.is_hidden("#pinshow")  # a phone never sees the PIN or the code
            cookies = page.context.cookies()
            assert [c["httpOnly"] and c["sameSite"] == "Strict" for c in cookies] == [True]
            # a change from the page: the HttpOnly cookie and the CSRF token go with it; the PIN
            # makes a player (it takes a seat), not the host (the mode is the host's)
            post = """async ([name, body]) => {
                const token = (await (await fetch('/api/csrf')).json()).csrf;
                const r = await fetch('/api/' + name, {method: 'POST', body: JSON.stringify(body),
                    headers: {'Content-Type': 'application/json', 'X-Dogtable-CSRF': token}});
                return r.status; }"""
            assert page.evaluate(post, ["seat", {"seat": 1}]) == 200
            assert wait_for(lambda: web.app.pairings.held() == {1})
            assert page.evaluate(post, ["mode", {"mode": "training"}]) == 403 and service.state.mode != "training"
            page.screenshot(path=str(shots / "joined-by-qr.png"), full_page=True)
            # a second phone with an old link: told so, and the PIN still works
            other = browser.new_context().new_page()
            other.goto(web.url + "#pair=AAAAAAAAAAAAAAAAAAAAAA")
            other.wait_for_selector("#pairnote:has-text('old')")
            assert other.is_visible("#pairbar") and "#pair=" not in other.url
        finally:
            browser.close()
    assert not errors, errors


class _EvilPage(http.server.BaseHTTPRequestHandler):
    html = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(self.html)

    def log_message(self, *args) -> None:
        pass


def test_a_foreign_page_in_the_pis_browser_and_a_rebound_name_change_nothing(
        trusted_web_service: tuple[Service, WebServer, int]) -> None:
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    service, web, port = trusted_web_service
    target = f"http://localhost:{port}"
    # every way a page on another site could try: fetch with and without CORS, a form post
    _EvilPage.html = f"""<!doctype html><body><form id=f method=post action="{target}/api/undo"
        enctype="text/plain"><input name='{{"a":"' value='"}}'></form><script>
      const tries = [
        fetch("{target}/api/card", {{method: "POST", mode: "no-cors", credentials: "include",
              headers: {{"Content-Type": "text/plain"}}, body: '{{"card":"1/11"}}'}}).catch(() => 0),
        fetch("{target}/api/card", {{method: "POST", credentials: "include",
              headers: {{"Content-Type": "application/json", "X-Dogtable-CSRF": "x"}}, body: '{{"card":"1/11"}}'}}).catch(() => 0),
        fetch("{target}/api/state", {{credentials: "include"}}).then(r => r.text()).catch(e => "blocked"),
      ];
      Promise.all(tries).then(r => {{ document.title = "done:" + r[2]; }});
    </script>""".encode()
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _EvilPage)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    before = len(service.journal.events(service.game_id))
    try:
        with sync_playwright() as p:
            browser = chromium(p, "--host-resolver-rules=MAP rebind.evil.example 127.0.0.1")
            try:
                page = browser.new_page()
                # the Pi's own screen: trusted, shows the PIN and may fetch the QR code; bound to
                # 127.0.0.1, it says why no phone could open the code's link instead of showing it
                page.goto(target)
                page.wait_for_selector("#pinshow:not([hidden])")
                assert page.inner_text("#pinval") == "424242"
                assert page.is_visible("#joinproblem") and page.is_hidden("#pairqrbox")
                assert page.evaluate("fetch('/api/pair-qr.svg').then(r => r.ok && r.text())").startswith("<svg")
                # a foreign page in the same browser
                page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
                page.wait_for_function("document.title.startsWith('done:')")
                assert "424242" not in page.title()  # the cross-site read got nothing
                page.evaluate("document.getElementById('f').submit()")
                page.wait_for_url("**/api/undo")  # the form's post: refused, a form is not JSON
                assert "send the request as application/json" in page.content()
                # DNS rebinding: a name of the attacker's that now points at the Pi
                page.goto(f"http://rebind.evil.example:{port}/api/state")
                assert "424242" not in page.content() and "answers only to its own address" in page.content()
            finally:
                browser.close()
    finally:
        evil.shutdown()
    assert len(service.journal.events(service.game_id)) == before and service.state.card is None
