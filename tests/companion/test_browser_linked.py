"""Two tables linked through a real Mosquitto, four phones in real headless Chromium: a game to its end.

Table alice hosts the game and plays Red and Green; table bob joins it with the invitation and
plays Blue and Yellow. Each table serves its own page, as `dogtable sim --broker` does. Two phones
pair with alice's page by its QR link, two with bob's. A phone at bob's table finds Red's seat
played at table alice and cannot take it. The host's screen at alice sets a short starting
position; then every gift and every play is a tap on the phone of the seat's owner, the other
table's simulated people carry each play out on their board, and the game ends with the same
journal at both tables. No phone ever holds another seat's hand.
Screenshots: test-artifacts/browser/linked/.
"""
from __future__ import annotations

import json
import threading
from dataclasses import replace

import pytest

from companion import table as T
from companion.settings import WebSettings
from companion.simulated.players import Bots, choose_gift
from companion.web.join import lan_address
from companion.web.server import WebServer
from polling import wait_for
from test_browser import ARTIFACTS, pytestmark  # noqa: F401  (the skip when Chromium is missing)
from test_browser_phones import PHONE, assert_own_hand_only, browser, open_device  # noqa: F401  (fixtures)
from tests.remote.conftest import start_broker
from tests.remote.linked_rig import host_table, joined_table, journal_view

SHOTS = ARTIFACTS / "linked"
# Red has finished and plays for Green, whose last piece is on the far side; Blue's pieces wait
# in the kennel, Yellow has two out: a game of a few rounds.
START = {"variant": "classic", "board": 4, "last_card": None,
         "pieces": [["H0", "H1", "H2", "H3"], ["K", "K", "K", "K"], ["H1", "H2", "H3", "T2"], ["K", "K", "T40", "T44"]]}
MAX_TURNS = 200
ALICE, BOB = (0, 2), (1, 3)


@pytest.fixture
def linked_pages(tmp_path):
    """alice (hosting seats 0 and 2) and bob (joined with 1 and 3), each serving its page on the LAN."""
    if lan_address() is None:
        pytest.skip("this machine has no network address: a phone could reach no table")
    broker = start_broker(tmp_path / "broker")
    setup = T.Setup("classic", 4, "highlight")
    tables, webs = [], []
    try:
        alice = host_table(broker, tmp_path, "alice", setup, bots=(), keep=ALICE, seed=5)
        tables.append(alice)
        bob = joined_table(broker, tmp_path, "bob", alice.link.code, BOB, seed=6)
        tables.append(bob)
        for linked, pin in ((alice, "424242"), (bob, "535353")):
            web = WebServer(linked.service, WebSettings(host="0.0.0.0", port=0, pin=pin, trust_localhost=True),
                            lights=linked.lights, simulated=linked.table, remote=linked.link)
            web.start()
            webs.append(web)
        yield alice, bob, webs[0], webs[1]
    finally:
        for web in webs:
            web.stop()
        for linked in reversed(tables):
            linked.stop()
        broker.stop()


def test_four_phones_at_two_linked_tables_play_a_game_to_its_end(browser, linked_pages) -> None:  # noqa: F811
    expect = pytest.importorskip("playwright.sync_api").expect
    alice, bob, alice_web, bob_web = linked_pages
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []

    def device(name: str, viewport: dict):
        return open_device(browser, errors, name, viewport)

    def screen(web: WebServer):
        page = device("screen", {"width": 1280, "height": 900})
        page.goto(f"http://127.0.0.1:{web.sock.getsockname()[1]}/")
        page.wait_for_selector("[data-field=T0]")
        return page

    alice_screen, bob_screen = screen(alice_web), screen(bob_web)
    # the joined table's screen says whose game it plays in; the host's shows the invitation
    expect(bob_screen.locator("body")).to_contain_text("alice")
    wait_for(lambda: bob.service.state.seq == alice.service.state.seq)

    # the host's screen sets the short game's start as a correction
    if alice_screen.get_attribute("details.box", "open") is None:
        alice_screen.click("details.box summary")
    alice_screen.fill("#posjson", json.dumps(START))
    alice_screen.click("#setpos")
    assert wait_for(lambda: alice.service.state.phase == "exchange" and bob.service.state.seq == alice.service.state.seq)

    table_of = {seat: (alice if seat in ALICE else bob) for seat in range(4)}
    links = {name: page.evaluate("() => window.dogtable.state.pair_url")
             for name, page in (("alice", alice_screen), ("bob", bob_screen))}
    phones = {}
    for seat in range(4):
        phone = device(f"phone {seat}", PHONE)
        phone.goto(links[table_of[seat].name])
        phone.wait_for_selector("#seatpick", state="visible")
        if seat == 1:
            # Red is played at table alice: at bob's table that seat cannot be taken
            red = phone.locator(".seatchoice[data-seat='0']")
            expect(red).to_contain_text("alice")
            expect(red).to_be_disabled()
            # and a phone that asks anyway, past the page, is told where that seat is played
            refused = phone.evaluate("() => window.dogtable.send('seat', {seat: 0})")
            assert refused["status"] == 409 and "table alice" in refused["error"], refused
            assert phone.evaluate("() => window.dogtable.state.viewer") is None
        phone.tap(f".seatchoice[data-seat='{seat}']")
        phone.wait_for_selector("#seatpick", state="hidden")
        phones[seat] = phone
    assert phones[1].evaluate("() => window.dogtable.state.viewer") == 1

    def caught_up() -> bool:
        return bob.service.state.seq == alice.service.state.seq

    def own_hand_only() -> None:
        assert wait_for(caught_up)
        assert_own_hand_only(phones, lambda seat: table_of[seat].service)

    # bob's people carry out the first play made at alice only once bob's screen was looked at
    looked = threading.Event()
    carry = bob.table.carry_out

    def carry_once_looked_at() -> None:
        looked.wait(60)
        carry()

    bob.table.carry_out = carry_once_looked_at
    bots = Bots((0, 1, 2, 3), ("greedy",) * 4, seed=5)
    seen = {"plays": 0, "gifts": 0, "laid_down": 0, "remote_plays_seen": 0, "rounds": set()}
    for _ in range(MAX_TURNS):
        host = alice.service.state
        if host.phase == "over":
            break
        seen["rounds"].add(host.round_no)
        if host.phase == "exchange":
            for seat in host.still_to_give():
                card = choose_gift(table_of[seat].service.state, seat)  # from the giver's own table's view
                seq = alice.service.state.seq
                phones[seat].tap(f"#hand button[data-card='{card}']")
                assert wait_for(lambda: alice.service.state.seq > seq), f"seat {seat} could not give {card}"
                seen["gifts"] += 1
            assert wait_for(lambda: alice.service.state.phase == "play" and caught_up())
            own_hand_only()
            continue
        seat = host.turn
        mine, theirs = table_of[seat], (bob if table_of[seat] is alice else alice)
        assert wait_for(lambda: caught_up() and theirs.service.state.position == host.position
                        and mine.service.state.turn == seat)
        st = mine.service.state  # what the player's own table knows: their hand, nobody else's
        move = bots.move(st)
        phone, seq = phones[seat], host.seq
        if move.action == "sitout":
            phone.tap("#sitout")
            assert wait_for(lambda: seat in alice.service.state.out or alice.service.state.round_no != host.round_no)
            seen["laid_down"] += 1
        else:
            assert move.action == "play", move
            phone.tap(f"#hand button[data-card='{move.card}']")
            assert wait_for(lambda: mine.service.state.card == move.card and mine.service.state.card_seat == seat)
            chosen = next(p for p in mine.service.state.plays if T.board_key(p.result) == T.board_key(move.play.result))
            phone.wait_for_function("c => window.dogtable.state.card === c && window.dogtable.state.plays.length > 0",
                                    arg=move.card)
            index = phone.evaluate("() => window.dogtable.state.plays").index(chosen.notation)
            phone.locator("#plays button").nth(index).tap()
            assert wait_for(lambda: alice.service.state.card is None and alice.service.state.seq > seq + 1), move
            if not looked.is_set() and mine is alice:
                see_the_job_at_bob(bob, bob_screen, seat)
                looked.set()
            # the other table's board is carried out by its people before its game goes on
            assert wait_for(lambda: caught_up() and T.board_key(theirs.service.state.position)
                            == T.board_key(alice.service.state.position)), move
            seen["remote_plays_seen"] += 1
            seen["plays"] += 1
        own_hand_only()
    for name, page in (("alice", alice_screen), ("bob", bob_screen), *((f"phone-{s}", p) for s, p in phones.items())):
        page.screenshot(path=str(SHOTS / f"end-{name}.png"), full_page=True)
    assert alice.service.state.phase == "over" and alice.service.state.winner == (0, 2), seen
    assert wait_for(lambda: bob.service.state.phase == "over")
    assert bob.service.state.winner == alice.service.state.winner
    assert looked.is_set() and seen["gifts"] >= 4 and seen["plays"] >= 10, seen
    # both tables keep the same game, event by event; bob's holds only the cards bob may know
    assert journal_view(bob.service) == journal_view(alice.service)
    bob_raw = [T.event_to_json(e) for e in bob.service.journal.events(bob.service.game_id)]
    assert bob_raw == journal_view(alice.service, frozenset(BOB))
    for screen_page in (alice_screen, bob_screen):
        expect(screen_page.locator("#status")).to_contain_text(" + ")  # the winning team, named
    assert not errors, errors


def see_the_job_at_bob(bob, screen, seat: int) -> None:
    """Bob's screen while a play of `seat` (played at alice) is still to carry out at bob: the rings,
    on the table and on the page, show where its piece comes from and goes in that player's colour."""
    expect = pytest.importorskip("playwright.sync_api").expect
    assert wait_for(bob.link.gate.busy)
    colour = bob.service.state.position.board.colours[seat]
    roles = bob.lights.roles(bob.service.state)
    assert roles and set(roles.values()) <= {f"remote_from-{colour}", f"remote_to-{colour}", "error"}, roles
    for kind, role in (("from", f"remote_from-{colour}"), ("to", f"remote_to-{colour}")):
        fields = [f for f, r in roles.items() if r == role]
        if not fields:  # out of the kennel: nothing to pick up on the track; a swap: both picked up first
            continue
        selector = f"circle.led.remote.{kind}[data-led='{fields[0]}']"
        expect(screen.locator(selector)).to_have_count(1)
        page_colour = screen.evaluate("c => COLOURS[c]", colour)
        # looked up and compared in one go inside the page: the board is drawn anew on every update, so
        # a ring found by one call may be gone by the next
        screen.wait_for_function(
            """([sel, c]) => { const ring = document.querySelector(sel); if (!ring) return false;
                 const d = document.createElement('div'); d.style.color = c; document.body.appendChild(d);
                 const want = getComputedStyle(d).color; d.remove(); return getComputedStyle(ring).stroke === want; }""",
            arg=[selector, page_colour], timeout=10_000)
    expect(screen.locator("body")).to_contain_text(bob.link.gate.words(bob.service.lang))  # and says it
    screen.screenshot(path=str(SHOTS / "carry-out-at-bob.png"), full_page=True)

