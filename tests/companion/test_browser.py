"""Real headless Chromium plays the game through the page, on a phone (390×844) and a desktop (1280×800).

One page load per size, several checks each: hidden hands, the exchange, the status line,
plays in words with the notation on tap, tap targets, drag, royal ranks, the black dog and
the disc, the copy card's symbol. Screenshots are kept under test-artifacts/browser/ (the
path is printed): look at them.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from companion import table as T
from companion.service import Service
from companion.simulated.table import SimulatedTable
from companion.web.server import WebServer

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing (apt-get install -y chromium)")


def _bots_give(table: SimulatedTable, seats: list[int]) -> None:
    table.set_bots(seats)
    while table.service.state.phase == "exchange" and table.bot_step():
        pass
    table.set_bots([])


def _bot_turns(table: SimulatedTable, until_seat: int) -> None:
    table.set_bots([s for s in table.service.state.seats if s != until_seat])
    while table.service.state.turn != until_seat and table.bot_step():
        pass
    table.set_bots([])


@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)])
def test_the_game_on_a_phone_and_a_desktop(web_service: tuple[Service, WebServer], width: int, height: int) -> None:
    api = pytest.importorskip("playwright.sync_api")
    sync_playwright, expect = api.sync_playwright, api.expect
    service, web = web_service
    shots = ARTIFACTS / f"{width}x{height}"
    shots.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {shots}")
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height},
                                    reduced_motion="reduce" if width > 800 else "no-preference")
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(web.url)
            page.wait_for_selector("[data-field=T0]")
            page.fill("#pin", "424242")
            page.click("#pairbtn")
            page.wait_for_selector("#pairbar", state="hidden")
            assert "Your hand" not in page.inner_text("body")  # paired, but no seat yet: a spectator
            assert page.evaluate("() => window.dogtable.post('seat', {seat: 0})")  # this phone sits as Red

            # 1. hidden hands: only Red's own six cards; no other seat's hand, no "Hand of"
            st = service.state
            page.wait_for_selector("#hand button")
            shown = page.eval_on_selector_all("#hand button", "bs => bs.map(b => b.dataset.card)")
            assert shown == list(st.hands[0])
            assert "Hand of" not in page.inner_text("body")
            # 2. the exchange: the page says who must give; Red taps a card, the bots give theirs
            assert re.search(r"Exchange: partners pass one card face down — still to give: Red, Blue, Green, Yellow",
                             page.inner_text("#status"))
            assert "Tap a piece" not in page.inner_text(".panel")
            assert "give face down to Green" in page.inner_text("#handnote")
            page.screenshot(path=str(shots / "1-exchange.png"), full_page=True)
            page.click("#hand button[data-card='swap']")
            expect(page.locator("#status")).to_contain_text("still to give: Blue")
            assert "You gave the swap card to Green" in page.inner_text("#handnote")
            _bots_give(web.app.simulated, [1, 2, 3])
            expect(page.locator("#status")).to_have_text("Red: play a card from your hand")
            assert page.eval_on_selector_all("#hand button", "bs => bs.length") == 6

            # a card Red does not hold is refused by the referee
            missing = next(c for c, _ in service.state.variant.deck if c not in service.state.hands[0])
            ok = page.evaluate("(c) => window.dogtable.post('card', {card: c, seat: 0})", missing)
            assert ok is False and service.state.card is None
            expect(page.locator("#toast")).to_contain_text("Red does not hold the")

            if width > 800:
                # drag on a desktop: a piece moved without a card is not allowed; dragged back, the flag clears
                _drag(page, "[data-piece=S0K3]", "[data-field=T5]")
                page.wait_for_selector("#verdict.bad")
                assert "put the board back" in page.inner_text("#status")
                _drag(page, "[data-piece=T5]", "[data-field=S0K3]")
                expect(page.locator("#verdict")).not_to_have_class(re.compile("bad"))
                assert "Not allowed" not in page.inner_text("#verdict")

            # a 7 cannot move (every piece in the kennel): no "move the pieces", but what to do; Undo takes it back
            page.click("#hand button[data-card='7']")
            expect(page.locator("#status")).to_have_text("Red cannot move with the 7: Undo, then play another card")
            assert page.inner_text("#vtitle") == "Red plays the 7" and page.is_hidden("#plays")
            page.click("#undo")
            expect(page.locator("#status")).to_have_text("Red: play a card from your hand")
            assert service.state.card is None and page.inner_text("#cardchip") == ""

            # 3. a card in play: one status line, the plays as big tap targets in words
            page.click("#hand button[data-card='13']")
            page.wait_for_selector("#plays button")
            assert page.inner_text("#status") == "Red plays the 13: move a piece (1 possible play)"
            for box in page.eval_on_selector_all("#plays button, #hand button",
                                                 "bs => bs.map(b => b.getBoundingClientRect().toJSON())"):
                assert box["height"] >= 40 and box["width"] >= 40, box
            assert page.inner_text("#plays button") == "Red brings a piece from the kennel onto the start field"
            page.screenshot(path=str(shots / "2-card-in-play.png"), full_page=True)
            if width < 800:
                page.click("#zoom")
                page.screenshot(path=str(shots / "2b-zoomed.png"), full_page=False)
            if width < 800:
                # a phone: zoomed (above) to the part that matters; the piece and its target are finger-sized
                for sel in ("[data-at=S0K3]", "[data-field=T0]"):
                    box = page.locator(sel).bounding_box()
                    assert box["width"] >= 40 and box["height"] >= 40, (sel, box)
                page.click("[data-piece=S0K3]")
                page.click("[data-field=T0]")
                page.click("#zoom")
            else:
                page.click("#plays button")
            page.wait_for_selector("#verdict.ok")
            assert page.inner_text("#vreason") == "Red brings a piece from the kennel onto the start field"
            glides = page.evaluate("() => window.dogtable.glides || 0")
            assert glides == (0 if width > 800 else 1)  # the desktop asked for reduced motion
            assert page.is_hidden("#vnotation")
            page.click("#verdict")  # the notation on tap
            assert page.inner_text("#vnotation") == "13: K-T0"
            page.wait_for_selector("[data-piece=T0]")
            # the hand and the round table agree: 5 cards
            assert page.eval_on_selector_all("#hand button", "bs => bs.length") == 5
            assert "5 cards" in page.inner_text("#seats tr:first-child")

            # 4. verdicts belong to their card: after the bots' turns Red shows a card, no old words stay
            _bot_turns(web.app.simulated, 0)
            expect(page.locator("#status")).to_have_text("Red: play a card from your hand")
            card = service.state.hands[0][0]
            page.click(f"#hand button[data-card='{card}']")
            expect(page.locator("#vtitle")).to_contain_text(f"Red plays the {card}")
            others = [e.text["en"] for e in service.state.log if e.kind == "play" and e.seat != 0]
            assert others and not any(o in page.inner_text("#verdict") for o in others)
            if T.stuck(service.state):  # no "move the pieces" when nothing can move: what to do instead
                assert "cannot move" in page.inner_text("#status") and "move the pieces" not in page.inner_text("#verdict")
            else:
                assert page.inner_text("#vtitle") == f"Red plays the {card}: move the pieces"
            # two-digit log numbers have room, the copy card has a drawn symbol (no font has ⧉)
            assert float(page.eval_on_selector("#log", "e => parseFloat(getComputedStyle(e).paddingLeft)")) >= 30
            assert page.evaluate("cardFace(document.createElement('button'), 'copy').querySelector('svg') !== null")
            page.screenshot(path=str(shots / "3-next-card.png"), full_page=True)

            # the game record can be kept from the phone: a text file that reads back
            with page.expect_download() as got:
                page.click("#recordtxt")
            saved = shots / "record.txt"
            got.value.save_as(str(saved))
            assert got.value.suggested_filename == f"dogtable-game-{service.game_id}.txt"
            from companion.record import read_record
            assert read_record(saved)["edition"] == "classic"

            # at a real table (no hands known) the page says the referee checks the card it sees
            page.evaluate("() => { const d = window.dogtable; d.state = {...d.state, hands_known: false}; d.render(); }")
            assert page.inner_text("#handnote").startswith("At this table the referee does not need your hands")
            assert page.eval_on_selector_all("#cards button", "bs => bs.length") == len(service.state.variant.deck)

            # 5. royal ranks on the pieces; the black dog and the disc's orientation
            web.app.simulated.new_game("royal", 4)
            page.wait_for_selector("[data-rank]")
            ranks = page.eval_on_selector_all("[data-rank]", "ts => ts.map(t => t.textContent)")
            assert len(ranks) == 16 and sorted(set(ranks)) == ["C", "F", "K", "N"]
            page.screenshot(path=str(shots / "4-royal.png"), full_page=True)
            web.app.simulated.new_game("black", 4)
            page.wait_for_selector(".dogears")
            assert page.get_attribute("[data-disc]", "data-disc") == "0"
            page.screenshot(path=str(shots / "5-black.png"), full_page=True)
        finally:
            browser.close()
    assert not [e for e in errors if "favicon" not in e and "400" not in e], errors


def _drag(page, frm: str, to: str) -> None:
    page.evaluate("() => Promise.all(document.getAnimations().filter(a => a instanceof CSSAnimation === false)"
                  ".map(a => a.finished))")  # a piece still gliding (not the blinking error rings)
    a = page.locator(frm).bounding_box()
    b = page.locator(to).bounding_box()
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=4)
    page.mouse.up()
