"""Four phones at one table, in real headless Chromium at 390×844: pair by the QR link, take a seat on the page.

As a family plays: the Pi's own screen shows the pairing link (state.pair_url); each phone
opens it, the seat picker opens by itself, and a tap on a colour takes that seat. Then on
every phone: every tap target in the page's panels is at least 44×44 px, nothing is wider
than the screen with every panel open, and no card id ("swap", "black-1-7") shows in any
language. One browser, one context per device. Screenshots: test-artifacts/browser/phones/.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from companion.service import Service
from companion.settings import ServiceSettings, Settings, WebSettings
from companion.web.join import lan_address
from companion.web.server import WebServer
from engine.messages import LANGUAGES
from simulated_rig import served
from test_browser import ARGS, ARTIFACTS, CHROMIUM, pytestmark  # noqa: F401  (the skip when Chromium is missing)

PHONE = {"width": 390, "height": 844}
SHOTS = ARTIFACTS / "phones"
TEXTS = Path(__file__).resolve().parents[2] / "companion" / "web" / "static" / "texts"
NAMED_CARDS = ("swap", "joker", "magnet", "partner", "copy", "black-1-7", "black-5", "black-6")

# everything a finger taps in the page's panels (the board's fields are reached by zoom and the play buttons)
TARGETS = """() => {
  const areas = ["header.top", "#pairbar", "#pinshow", "#seatpick", ".boardbar", "section.panel"];
  const out = [];
  for (const area of areas) for (const root of document.querySelectorAll(area)) {
    for (const n of root.querySelectorAll("button, select, a[href], summary, label.check, input:not([type=checkbox]), textarea")) {
      const r = n.getBoundingClientRect();
      if (!r.width || !r.height || getComputedStyle(n).visibility === "hidden") continue;  // not shown now
      out.push({what: n.id || n.dataset.seat || n.dataset.card || n.textContent.trim().slice(0, 30) || n.tagName,
                w: r.width, h: r.height});
    }
  }
  return out;
}"""


def open_device(browser, errors: list[str], name: str, viewport: dict):
    """A new page in its own context (its own cookies: one person's phone, or the table's screen);
    a script error on it is added to `errors`."""
    ctx = browser.new_context(viewport=viewport, is_mobile=viewport is PHONE, has_touch=viewport is PHONE)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(f"{name}: {e}"))
    return page


def assert_own_hand_only(phones, service_of) -> None:
    """Each phone's page ({seat: page}), once caught up with its table's service (`service_of(seat)`),
    holds its own hand and no other seat's cards."""
    for seat, phone in phones.items():
        service = service_of(seat)
        with service.lock:  # the state changes a moment before its version is counted: read both at once
            version, hands = service.version, service.state.hands
        phone.wait_for_function("v => window.dogtable.state && window.dogtable.state.version >= v", arg=version)
        st = phone.evaluate("() => window.dogtable.state")
        assert st["viewer"] == seat and "hands" not in st and "stock" not in st
        if st["version"] == version:
            want = None if hands is None else sorted(hands[seat])
            assert (None if st["hand"] is None else sorted(st["hand"])) == want, seat


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """One Chromium for this module's tests (starting one is the slow part); each test has its own contexts."""
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def lan_table(tmp_path: Path) -> Iterator[tuple[Service, WebServer]]:
    """A simulated table as a family runs it: listening on every interface, the Pi's own browser
    (127.0.0.1) trusted as the host; the phones come by the LAN address, so they are not local."""
    if lan_address() is None:
        pytest.skip("this machine has no network address: a phone could reach no table")
    settings = Settings(replace(ServiceSettings(), bot_delay_s=0.0, accept_flash_s=0.05),
                        WebSettings(host="0.0.0.0", port=0, pin="424242", trust_localhost=True))
    with served(settings, tmp_path / "j.sqlite") as serving:
        yield serving


def _text(lang: str, key: str, **kw: object) -> str:
    texts = json.loads((TEXTS / f"{lang}.json").read_text(encoding="utf-8"))
    return re.sub(r"\{(\w+)\}", lambda m: str(kw[m.group(1)]), texts[key])


def _open_every_panel(page) -> None:
    """The seat picker, the settings, a field's label, the log's notation: all at once."""
    if page.is_hidden("#seatpick"):
        page.click("#seatbtn")
    page.wait_for_selector("#seatpick", state="visible")
    if page.get_attribute("details.box", "open") is None:
        page.click("details.box summary")
    page.click("[data-field=T5]")
    page.wait_for_selector("[data-fieldlabel=T5]")


def test_four_phones_pair_by_the_qr_link_and_take_their_seats(browser, lan_table: tuple[Service, WebServer]) -> None:
    expect = pytest.importorskip("playwright.sync_api").expect
    service, web = lan_table
    port = web.sock.getsockname()[1]
    SHOTS.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {SHOTS}")
    errors: list[str] = []
    contexts = []
    try:
        def device(name: str):
            ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
            contexts.append(ctx)
            page = ctx.new_page()
            page.on("pageerror", lambda e: errors.append(f"{name}: {e}"))
            page.on("console", lambda m: errors.append(f"{name}: {m.text}") if m.type == "error" else None)
            return page

        # the Pi's own screen (a browser on the table itself): the PIN and the pairing link
        table = device("table")
        table.goto(f"http://127.0.0.1:{port}/")
        table.wait_for_selector("[data-field=T0]")
        table.wait_for_selector("#pinshow", state="visible")
        link = table.evaluate("() => window.dogtable.state.pair_url")
        # the QR code holds the LAN address, never localhost: that is what a phone can open
        assert re.fullmatch(rf"http://{re.escape(lan_address())}:{port}/#pair=[A-Za-z0-9_-]{{8,64}}", link), link
        table.wait_for_selector("#pairqr[src]")
        assert table.is_visible("#pairqrbox") and table.is_hidden("#joinproblem")
        assert table.is_hidden("#seatpick")  # the host is not asked to sit down
        table.screenshot(path=str(SHOTS / "table-screen.png"), full_page=True)

        phones = []
        for seat in range(4):
            phone = device(f"phone {seat}")
            phone.goto(link)  # what the phone's camera opens from the QR code
            phone.wait_for_selector("#seatpick", state="visible")  # paired, no seat yet: asked at once
            assert "#pair=" not in phone.url  # the code leaves the address bar at once
            assert phone.eval_on_selector_all(".seatchoice", "bs => bs.map(b => b.dataset.seat)") == ["0", "1", "2", "3"]
            if seat == 0:
                phone.screenshot(path=str(SHOTS / "seat-picker.png"), full_page=True)
            phone.tap(f".seatchoice[data-seat='{seat}']")
            phone.wait_for_selector("#seatpick", state="hidden")
            expect(phone.locator("#seatbtn")).to_contain_text(_text("en", ["red", "blue", "green", "yellow"][seat]))
            shown = phone.eval_on_selector_all("#hand button", "bs => bs.map(b => b.dataset.card)")
            assert shown == list(service.state.hands[seat])  # its own hand, and only that
            phones.append(phone)
        assert "Your hand" not in table.inner_text("body")

        # a seat another phone holds: the server's refusal (409) is said in words in the picker
        blue = phones[1]
        blue.click("#seatbtn")
        mine = blue.get_attribute(".seatchoice[data-seat='1']", "data-holder")
        assert mine == "you"
        blue.route("**/api/seat", lambda route: route.fulfill(
            status=409, content_type="application/json",
            body=json.dumps({"error": "Red's seat is taken: ask the host to free it"})))
        blue.tap(".seatchoice[data-seat='0']")
        expect(blue.locator("#seatnote")).to_have_text(_text("en", "seat_taken_msg", p="Red"))
        blue.unroute("**/api/seat")
        assert blue.is_visible("#seatpick") and service.state.seats  # still Blue, the picker open

        # the host (the table's own screen): who holds each seat, the host PIN, and freeing a seat.
        # A server that sends `me` and each seat's `holder` (SEATS.md) lets the page say it; an
        # older one gives neither, and the page shows every seat free (the table plays it)
        state = table.evaluate("() => window.dogtable.state")
        table.click("#seatbtn")
        table.wait_for_selector("#seatpick", state="visible")
        holders = table.eval_on_selector_all(".seatchoice", "bs => bs.map(b => b.dataset.holder)")
        if "me" in state:
            assert state["me"]["host"] and holders == ["phone"] * 4
            assert table.inner_text(".seatchoice[data-seat='3'] .seatstate") == _text("en", "seat_taken")
            assert table.is_visible("#hostbox") and table.inner_text("#hostpin") == state["host_pin"]
            assert _text("en", "host_pin_why") in table.inner_text("#hostbox")
            table.screenshot(path=str(SHOTS / "table-screen-seats.png"), full_page=True)
            table.tap(".freebtn[data-free='3']")
            yellow = phones[3]
            yellow.wait_for_selector("#seatpick", state="visible")  # freed: asked again, and told why
            expect(yellow.locator("#seatnote")).to_have_text(_text("en", "seat_freed", p="Yellow"))
            expect(yellow.locator("#seatbtn")).to_have_text(_text("en", "seat_watching"))
            yellow.tap(".seatchoice[data-seat='3']")
            yellow.wait_for_selector("#seatpick", state="hidden")
        else:
            assert holders == ["free"] * 4 and table.is_hidden(".freebtn")
        table.click("#seatclose")

        # every phone: finger-sized targets and no sideways scroll, with every panel open
        for seat, phone in enumerate(phones):
            _open_every_panel(phone)
            small = [t for t in phone.evaluate(TARGETS) if t["w"] < 44 or t["h"] < 44]
            assert small == [], (seat, small)
            width = phone.evaluate("() => document.documentElement.scrollWidth")
            assert width <= 390, (seat, width)
            label = phone.text_content("[data-fieldlabel=T5]")
            assert label == _text("en", "field_track", f="T5")
            phone.screenshot(path=str(SHOTS / f"phone-{seat}.png"), full_page=True)

        # no card id in the page's words, in any language: every card of the deck on show
        # (a real table lists the whole deck to tap), the Black DOG deck's too
        red = phones[0]
        web.app.simulated.new_game("black", 4)
        red.wait_for_selector(".dogears")
        with service.lock:  # the new game's deal: the page must hold it before its state is overridden
            version = service.version
        red.wait_for_function("v => window.dogtable.state && window.dogtable.state.version >= v", arg=version)
        red.evaluate("() => { const d = window.dogtable; d.state = {...d.state, hands_known: false}; d.render(); }")
        assert red.eval_on_selector_all("#cards button", "bs => bs.length") == len(service.state.variant.deck)
        for lang in LANGUAGES:
            red.select_option("#lang", lang)
            red.wait_for_selector(f"html[lang={lang}]")
            red.evaluate("() => { const d = window.dogtable; d.state = {...d.state, hands_known: false}; d.render(); }")
            text = red.inner_text("body")
            # where cards are named: the buttons, the chip, the status and verdict, the board's pile;
            # "partner" is also a teammate in Dutch, so plain words are looked for there only
            cards = red.evaluate("() => [...document.querySelectorAll('#cards, #hand, #cardchip, #status, #verdict, "
                                 ".cardtext')].map(n => n.textContent).join(' | ')")
            names = json.loads((TEXTS / f"{lang}.json").read_text(encoding="utf-8"))
            for card in NAMED_CARDS:
                name = names[f"card_{card}"]
                said = re.compile(rf"(?<![\w-]){re.escape(card)}(?![\w-])")
                if said.search(name):
                    continue  # the language's own word holds it ("swap card", "joker")
                assert not said.search(text if "-" in card else cards), (lang, card)
                if card in {c for c, _ in service.state.variant.deck}:
                    assert name in text, (lang, card)
            if lang == "it":
                red.screenshot(path=str(SHOTS / "phone-0-it-black-deck.png"), full_page=True)
                assert "eliminato" not in text
    finally:
        for ctx in contexts:
            ctx.close()
    assert not [e for e in errors if "favicon" not in e and "409" not in e], errors


def test_the_tables_screen_says_why_phones_cannot_join_a_table_bound_to_localhost(
        browser, trusted_web_service: tuple[Service, WebServer, int]) -> None:
    service, web, port = trusted_web_service
    ctx = browser.new_context(viewport=PHONE)
    try:
        page = ctx.new_page()
        page.goto(web.url)
        page.wait_for_selector("#pinshow", state="visible")
        assert page.evaluate("() => window.dogtable.state.pair_url").startswith(f"http://localhost:{port}/#pair=")
        # a QR code with localhost would open nothing on a phone: the words say what to change instead
        assert page.is_hidden("#pairqrbox")
        assert page.inner_text("#joinproblem") == _text("en", "join_loopback")
        assert "dogtable sim --host 0.0.0.0" in page.inner_text("#joinproblem")
        page.screenshot(path=str(SHOTS / "table-screen-localhost.png"), full_page=True)
    finally:
        ctx.close()
