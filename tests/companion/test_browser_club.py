"""The club screen in real headless Chromium: a board per game, the turn and a paused table
changing live after a publish, the broker's absence said in words, at 1280×800 and on a phone.

A real Mosquitto (the plain one of tests/remote/test_club.py), a real `ClubView` and the page
served by `club_routes`; the states are real scripted games' `state_to_json(viewer=None)`.
Every wait is for the page's own condition. Screenshots: test-artifacts/browser/club/.
"""
from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from aiohttp import web

from companion.remote.club import Broker, ClubView, club_routes
from test_browser import ARGS, ARTIFACTS, CHROMIUM, pytestmark  # noqa: F401  (the skip when Chromium is missing)

REMOTE_TESTS = str(Path(__file__).resolve().parents[1] / "remote")
if REMOTE_TESTS not in sys.path:  # the broker fixture and the message makers live beside the view's own tests
    sys.path.insert(0, REMOTE_TESTS)
from test_club import (  # noqa: E402
    WAIT_S,
    Publisher,
    plain_mosquitto,
    presence_message,
    presence_topic,
    state_message,
    state_topic,
    states_of,
)

SHOTS = ARTIFACTS / "club"
GAMES = {"alice": ("classic", 4, {"alice": [0, 2], "bob": [1, 3]}),
         "carol": ("royal", 6, {"carol": [0, 1, 2], "dan": [3, 4, 5]}),
         "erin": ("black", 4, {"erin": [0, 1, 2, 3]})}


@contextmanager
def served(view: ClubView) -> Iterator[str]:
    """The club page on a free port, its aiohttp loop in a thread, as `dogtable club` serves it."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    url: list[str] = []
    runner = web.AppRunner(club_routes(view), handle_signals=False, access_log=None, shutdown_timeout=0.5)

    async def start() -> None:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        url.append(f"http://127.0.0.1:{runner.addresses[0][1]}/")
        ready.set()

    thread = threading.Thread(target=lambda: (loop.run_until_complete(start()), loop.run_forever()), daemon=True)
    thread.start()
    assert ready.wait(WAIT_S)
    try:
        yield url[0]
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(WAIT_S)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(WAIT_S)
        loop.close()


def _tables(game: str, paused: str | None = None) -> dict[str, dict]:
    return {t: {"seats": seats, "presence": "paused" if t == paused else "online"}
            for t, seats in GAMES[game][2].items()}


def test_the_club_page_shows_every_game_live(tmp_path: Path) -> None:
    api = pytest.importorskip("playwright.sync_api")
    sync_playwright, expect = api.sync_playwright, api.expect
    SHOTS.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {SHOTS}")
    runs = {g: states_of(v, n, seed, 2) for seed, (g, (v, n, _)) in enumerate(GAMES.items(), start=11)}
    errors: list[str] = []
    with plain_mosquitto(tmp_path) as port:
        view = ClubView(Broker("127.0.0.1", port))
        view.start()
        pub = Publisher(port)
        try:
            assert view.wait_connected(WAIT_S), view.snapshot().error
            for g, sts in runs.items():
                pub.publish(state_topic(g), state_message(g, 1, sts[0], _tables(g)), retain=True)
                for t in GAMES[g][2]:
                    pub.publish(presence_topic(t), presence_message(t, "online", g), retain=True)
            with served(view) as url, sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                try:
                    page = browser.new_page(viewport={"width": 1280, "height": 800})
                    page.on("pageerror", lambda e: errors.append(str(e)))
                    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                    page.goto(url)
                    for g, sts in runs.items():
                        card = page.locator(f"article.game[data-game={g}]")
                        expect(card).to_have_attribute("data-seq", str(sts[0].seq), timeout=WAIT_S * 1000)
                        pieces = len(sts[0].position.field_occupancy())
                        expect(card.locator("svg.board circle.pc")).to_have_count(pieces)
                        colour = sts[0].position.board.colours[sts[0].turn]
                        expect(card.locator(".turn")).to_have_attribute("data-turn", colour)
                        expect(card.locator(".turn")).to_contain_text(colour.capitalize())
                        expect(card.locator(".verdict")).to_have_text(sts[0].verdict.reason["en"])
                        for t in GAMES[g][2]:
                            expect(card.locator(f"li[data-table={t}]")).to_have_attribute("data-presence", "online")
                    expect(page.locator("#summary")).to_have_text("3 games · 5 tables online")
                    page.screenshot(path=str(SHOTS / "club-1280x800.png"), full_page=True)

                    # live: alice's next state (another turn) and bob's will (paused), published now
                    nxt = runs["alice"][1]
                    new_colour = nxt.position.board.colours[nxt.turn]
                    pub.publish(state_topic("alice"), state_message("alice", 1, nxt, _tables("alice")), retain=True)
                    pub.publish(presence_topic("bob"), presence_message("bob", "paused", "alice"), retain=True)
                    alice = page.locator("article.game[data-game=alice]")
                    expect(alice).to_have_attribute("data-seq", str(nxt.seq), timeout=WAIT_S * 1000)
                    expect(alice.locator(".turn")).to_have_attribute("data-turn", new_colour)
                    expect(alice.locator(".verdict")).to_have_text(nxt.verdict.reason["en"])
                    expect(alice.locator("li[data-table=bob]")).to_have_attribute("data-presence", "paused",
                                                                                  timeout=WAIT_S * 1000)
                    expect(alice.locator("li[data-table=bob] .badge")).to_have_text("paused")
                    page.screenshot(path=str(SHOTS / "club-1280x800-paused.png"), full_page=True)

                    phone = browser.new_page(viewport={"width": 390, "height": 844})
                    phone.goto(url)
                    expect(phone.locator("article.game")).to_have_count(3, timeout=WAIT_S * 1000)
                    assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
                    phone.screenshot(path=str(SHOTS / "club-390x844.png"), full_page=True)
                    phone.close()
                finally:
                    browser.close()
        finally:
            pub.close()
    # the broker is gone: the page says so, keeps the games it had, and retries by itself
    try:
        with served(view) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(url)
                expect(page.locator("#problem")).to_contain_text(f"cannot reach the broker at 127.0.0.1:{port}: ",
                                                                 timeout=WAIT_S * 1000)
                expect(page.locator("article.game")).to_have_count(3)
                page.screenshot(path=str(SHOTS / "club-broker-gone.png"), full_page=True)
                with plain_mosquitto(tmp_path, port):
                    expect(page.locator("#problem")).to_be_hidden(timeout=WAIT_S * 1000)
            finally:
                browser.close()
    finally:
        view.stop()
    assert not errors, errors
