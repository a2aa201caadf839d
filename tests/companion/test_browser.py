"""A real headless Chromium plays a turn through the web page (pairing, card, move, verdict)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.service import Service
from companion.web.server import WebServer

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing (apt-get install -y chromium)")


def test_a_phone_pairs_and_plays_a_turn(web_service: tuple[Service, WebServer], tmp_path: Path) -> None:
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    service, web = web_service
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(web.url)
            page.wait_for_selector("[data-field=T0]")
            assert page.is_visible("#pairbar")
            page.fill("#pin", "424242")
            page.click("#pairbtn")
            page.wait_for_selector("#pairbar", state="hidden")
            page.click("#cards button[data-card='1/11']")
            page.wait_for_selector("[data-led=T0].target")
            page.click("[data-piece=S0K3]")
            page.click("[data-field=T0]")
            page.wait_for_selector("#verdict.ok")
            assert "K-T0" in page.inner_text("#vreason")
            assert page.is_visible("[data-piece=T0]")
            page.select_option("#lang", "de")
            page.wait_for_selector("#vtitle:text-is('Erlaubt')")  # no wait_for_function: the page's CSP forbids eval
            page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
        finally:
            browser.close()
    assert service.state.turn == 1 and service.state.verdict.legal
    assert not [e for e in errors if "favicon" not in e], errors
