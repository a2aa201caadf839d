"""Four phones and the table's own screen play a game to its end in real headless Chromium.

The table's screen (the host) sets a short starting position, as a family agrees on one to
try the table out: Red has finished and plays for Green, whose last piece is on the far side
of the board; Blue's pieces are all in the kennel; Yellow has two out. Each phone opens the
QR code's link, takes its seat on the page, gives a card in each exchange and plays its
turns by tapping a card and one of the listed plays. What each player decides comes from a
simple bot thinking for them, from their own hand only; every tap is a person's tap. Along
the way: a lay-down while a card could move, a card out of turn and an undo of someone
else's play are refused; an own play is taken back and played again; a stuck hand is laid
down. No phone ever holds another seat's hand. Screenshots: test-artifacts/browser/game/.
"""
from __future__ import annotations

import json

import pytest

from companion import table as T
from companion.record import replay_record
from companion.simulated.players import Bots, choose_gift
from polling import wait_for
from test_browser import ARTIFACTS, pytestmark  # noqa: F401  (the skip when Chromium is missing)
from test_browser_phones import PHONE, assert_own_hand_only, browser, open_device, lan_table  # noqa: F401  (fixtures)

SHOTS = ARTIFACTS / "game"
START = {"variant": "classic", "board": 4, "last_card": None,
         "pieces": [["H0", "H1", "H2", "H3"], ["K", "K", "K", "K"], ["H1", "H2", "H3", "T2"], ["K", "K", "T40", "T44"]]}
MAX_TURNS = 150


def test_four_phones_play_a_game_to_its_end(browser, lan_table) -> None:  # noqa: F811
    expect = pytest.importorskip("playwright.sync_api").expect
    service, web = lan_table
    port = web.sock.getsockname()[1]
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []

    def device(name: str, viewport: dict):
        return open_device(browser, errors, name, viewport)

    # the table's own screen: the host sets the short game's start as a correction
    table = device("table", {"width": 1280, "height": 900})
    table.goto(f"http://127.0.0.1:{port}/")
    table.wait_for_selector("[data-field=T0]")
    link = table.evaluate("() => window.dogtable.state.pair_url")
    if table.get_attribute("details.box", "open") is None:
        table.click("details.box summary")
    table.fill("#posjson", json.dumps(START))
    table.click("#setpos")
    assert wait_for(lambda: service.state.phase == "exchange")

    phones = []
    for seat in range(4):
        phone = device(f"phone {seat}", PHONE)
        phone.goto(link)
        phone.wait_for_selector("#seatpick", state="visible")
        phone.tap(f".seatchoice[data-seat='{seat}']")
        phone.wait_for_selector("#seatpick", state="hidden")
        phones.append(phone)

    def own_hand_only() -> None:
        assert_own_hand_only(dict(enumerate(phones)), lambda seat: service)

    def seq_after(seq: int) -> bool:
        return service.state.seq > seq

    bots = Bots((0, 1, 2, 3), ("greedy",) * 4, seed=5)
    seen = {"laid_down": 0, "refused_laydown": 0, "refused_out_of_turn": 0, "refused_undo": 0, "own_undo": 0,
            "plays": 0, "gifts": 0, "rounds": set()}
    last_player: int | None = None
    for _ in range(MAX_TURNS):
        st = service.state
        if st.phase == "over":
            break
        seen["rounds"].add(st.round_no)
        if st.phase == "exchange":
            for seat in st.still_to_give():
                card = choose_gift(st, seat)
                seq = service.state.seq
                phones[seat].tap(f"#hand button[data-card='{card}']")
                assert wait_for(lambda: seq_after(seq)), f"seat {seat} could not give {card}"
                seen["gifts"] += 1
            assert wait_for(lambda: service.state.phase == "play")
            own_hand_only()
            continue
        seat, phone = st.turn, phones[st.turn]
        move = bots.move(st)
        if move.action == "play" and not seen["refused_laydown"]:
            # a player who can play must: the lay-down is refused, to this phone alone
            phone.tap("#sitout")
            expect(phone.locator("#toast")).to_contain_text("you can still play")
            assert service.state.seq == st.seq and seat not in service.state.out
            seen["refused_laydown"] += 1
        if not seen["refused_out_of_turn"]:
            other = phones[(seat + 1) % 4]
            card = service.state.hands[(seat + 1) % 4][0]
            other.tap(f"#hand button[data-card='{card}']")
            expect(other.locator("#toast")).to_be_visible()
            assert service.state.seq == st.seq and service.state.card is None  # nothing changed, nothing shown
            seen["refused_out_of_turn"] += 1
        seq = service.state.seq
        if move.action == "sitout":
            phone.tap("#sitout")
            assert wait_for(lambda: seat in service.state.out or service.state.round_no != st.round_no)
            seen["laid_down"] += 1
            phone.screenshot(path=str(SHOTS / "laid-down.png"), full_page=True)
        else:
            assert move.action == "play", move
            phone.tap(f"#hand button[data-card='{move.card}']")
            assert wait_for(lambda: service.state.card == move.card and service.state.card_seat == seat)
            # the listed play that leaves the board as the player has in mind
            chosen = next(p for p in service.state.plays if T.board_key(p.result) == T.board_key(move.play.result))
            phone.wait_for_function("c => window.dogtable.state.card === c && window.dogtable.state.plays.length > 0",
                                    arg=move.card)
            notations = phone.evaluate("() => window.dogtable.state.plays")
            index = notations.index(chosen.notation)
            phone.locator("#plays button").nth(index).tap()
            assert wait_for(lambda: service.state.card is None and seq_after(seq + 1)), move
            seen["plays"] += 1
            if not seen["own_undo"] and service.state.phase == "play":
                # the player takes the play back at once (the page's Undo), then plays it again
                done = service.state
                phone.tap("#undo")
                assert wait_for(lambda: service.state.position == st.position and service.state.turn == seat)
                seen["own_undo"] += 1
                seq = service.state.seq
                phone.tap(f"#hand button[data-card='{move.card}']")
                assert wait_for(lambda: service.state.card == move.card)
                phone.wait_for_function("c => window.dogtable.state.card === c && window.dogtable.state.plays.length > 0",
                                        arg=move.card)
                phone.locator("#plays button").nth(index).tap()
                assert wait_for(lambda: service.state.position == done.position and seq_after(seq + 1))
            elif last_player is not None and last_player != seat and not seen["refused_undo"] \
                    and service.state.phase == "play":
                # the one before cannot take back their play now: this one came after it
                before = service.state.seq
                phones[last_player].tap("#undo")
                expect(phones[last_player].locator("#toast")).to_contain_text("since")
                assert service.state.seq == before
                seen["refused_undo"] += 1
        last_player = seat
        own_hand_only()
    st = service.state
    for i, page in enumerate([table, *phones]):
        page.screenshot(path=str(SHOTS / f"end-{i}.png"), full_page=True)
    assert st.phase == "over" and st.winner == (0, 2), (st.phase, seen)
    assert seen["laid_down"] and seen["own_undo"] and seen["refused_undo"] and seen["refused_laydown"] \
        and seen["refused_out_of_turn"] and seen["gifts"] >= 4, seen
    # the record of the game re-plays to the end as it stands
    _, final = replay_record(service.export("json", False))
    assert T.board_key(final) == T.board_key(st.position)
    assert not errors, errors


@pytest.mark.parametrize("variant,direction", [("brandi", ""), ("classic", "counter-clockwise")])
def test_the_host_starts_a_game_the_other_way_round_and_the_bots_play_it_to_its_end(
        browser, lan_table, variant: str, direction: str) -> None:  # noqa: F811
    """Brändi Dog (counter-clockwise, a stuck player discards one card) and classic played
    counter-clockwise: chosen in the page's new-game form, played to the end by four bots."""
    expect = pytest.importorskip("playwright.sync_api").expect
    service, web = lan_table
    table = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    table.goto(f"http://127.0.0.1:{web.sock.getsockname()[1]}/")
    table.wait_for_selector("[data-field=T0]")
    if table.get_attribute("details.box", "open") is None:
        table.click("details.box summary")
    old_game = service.game_id
    table.select_option("#nvariant", variant)
    table.select_option("#nplayers", "4")
    table.select_option("#ndirection", direction)
    table.click("#newgame")
    assert wait_for(lambda: service.game_id != old_game)  # the table starts as classic: wait for the new game
    assert service.state.variant.name == variant and service.state.position.direction == "counter-clockwise"
    web.app.simulated.start_bots()  # as `dogtable sim` does once it serves the page
    for seat in range(4):  # every seat to a bot, one tick at a time as a person would
        table.check(f"#botseats input >> nth={seat}")
        assert wait_for(lambda: seat in web.app.simulated.bots.seats)
    assert wait_for(lambda: service.state.phase == "over", timeout=240), service.state.phase
    expect(table.locator("#status")).to_contain_text(" + ")  # the winning team, named
    table.screenshot(path=str(SHOTS / f"bots-{variant}-{direction or 'own'}.png"), full_page=True)
    _, final = replay_record(service.export("json", False))
    assert T.board_key(final) == T.board_key(service.state.position)
    table.context.close()
