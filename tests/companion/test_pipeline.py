"""Scripted games through the whole pipeline: renderer -> vision -> table -> engine -> LEDs.

Every board the scripted players leave (legal plays, injected illegal ones, boards put
back) is rendered with the LEDs the service lit and a hand leaving the board, read by the
vision room's reader and settle filter, and only then given to the service. The card on
the pile is recognised from the frame too.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

import engine
from companion import table as T
from companion.journal import Journal
from companion.lights import Lights
from companion.simulated.scripted import scripted_game
from companion.service import Service
from companion.settings import ServiceSettings, Settings

pytest.importorskip("hardware.simtable")
pytest.importorskip("vision.reader")

CASES = [("classic", 4, 8), ("compact", 3, 6), ("royal-basic", 4, 5), ("black", 4, 6), ("royal", 2, 6)]


@pytest.mark.parametrize("variant,players,plays", CASES)
def test_pipeline_flags_every_illegal_play_and_accepts_every_legal_one(
        variant: str, players: int, plays: int, tmp_path: Path) -> None:
    from companion.simulated.camera import SimCamera
    from hardware.simtable import Hand

    try:
        T.new_state(T.Setup(variant, players))
    except T.TableError as exc:
        pytest.skip(f"{variant} is not playable yet: {exc}")
    if variant not in engine.load_variants():
        pytest.skip(f"no {variant} in the engine yet")
    cam = SimCamera(variant, players, seed=2)
    lit: dict[str, str] = {}
    settings = Settings(replace(ServiceSettings(), accept_flash_s=0.0))
    service = Service(settings, Journal(tmp_path / "j.sqlite"))
    lights = Lights(service, lambda roles: (lit.clear(), lit.update(roles)))
    submit = lights_follow(service, lights)
    service.open(T.Setup(variant, players, "highlight"))
    legal = illegal = targets_lit = 0
    card_on_pile: str | None = None
    for step, expected in scripted_game(variant, players, seed=4, illegal_rate=0.35, undo_rate=0.0):
        ev = step.event
        st = service.state
        if isinstance(ev, T.BoardSettled):
            pos = T.reading_to_position(st.position, dict(ev.fields), (st.position.disc + st.disc_delta) % 4)
            assert isinstance(pos, engine.Position)
            hand = [Hand(edge="bottom", reach=r, target=None) for r in (0.9, 0.5)]
            seen = cam.watch(pos, leds=lit, card=card_on_pile, hands=hand)
            submit(T.BoardSettled.of(seen))
        elif isinstance(ev, T.CardSeen):
            card_on_pile = cam.see_card(st.position, ev.card)
            assert card_on_pile == ev.card
            submit(T.CardSeen(card_on_pile, ev.seat))
            assert lit == T.leds(service.state)
            targets_lit += "target" in lit.values()
        else:
            submit(ev)
        got = service.state
        # no false verdicts: the service through the camera says what the table says directly
        assert T.board_key(got.position) == T.board_key(expected.position), step
        assert (got.flag is None) == (expected.flag is None), (step, got.flag)
        if step.expect == "illegal":
            illegal += 1
            assert got.flag is not None and set(lit.values()) == {"error"}
        elif step.expect == "legal":
            legal += 1
            assert got.verdict is not None and got.verdict.legal and got.flag is None
            if legal >= plays:
                break
    assert legal >= plays and illegal >= 1 and targets_lit >= plays // 2
    lights.stop()
    service.stop()
    service.journal.close()


def lights_follow(service: Service, lights: Lights):
    """Submit, then wait until the rings show what followed (they are written on their own thread)."""
    def submit(event: T.Event) -> T.TableState:
        state = service.submit(event)
        assert lights.subscription.wait_idle(60)
        return state
    return submit


def test_a_move_commits_with_a_field_unread_elsewhere_and_that_field_is_not_guessed(tmp_path: Path) -> None:
    """The settle filter knows the game (`companion.settle_referee.SettleReferee`): a legal move whose
    changed fields were read commits although one other field reads "unknown" (say, glare on
    it); that field keeps the game's word and is read again. A field the move touched that
    reads "unknown", or a board no legal play leads to, never commits."""
    import random

    from companion.simulated.camera import PipelineError, SimCamera
    from companion.simulated.scripted import illegal_board
    from hardware.simtable import Hand

    cam = SimCamera("classic", 4, seed=2)
    lit: dict[str, str] = {}
    settings = Settings(replace(ServiceSettings(), accept_flash_s=0.0))
    service = Service(settings, Journal(tmp_path / "j.sqlite"))
    lights = Lights(service, lambda roles: (lit.clear(), lit.update(roles)))
    submit = lights_follow(service, lights)
    service.open(T.Setup("classic", 4, "highlight"))
    cam.follow(lambda: service.state)
    read = cam.reader.read
    unreadable: set[str] = set()

    def reading_with_unknowns(*args, **kwargs):  # fields the camera cannot read in this picture
        r = read(*args, **kwargs)
        return replace(r, labels=tuple("unknown" if f in unreadable else lab for f, lab in zip(r.field_ids, r.labels)))

    cam.reader.read = reading_with_unknowns  # type: ignore[method-assign]
    hand = [Hand(edge="bottom", reach=r, target=None) for r in (0.9, 0.5)]
    card_on_pile: str | None = None
    checked = refused = 0
    for step, _ in scripted_game("classic", 4, seed=4, illegal_rate=0.0, undo_rate=0.0):
        ev = step.event
        st = service.state
        if isinstance(ev, T.CardSeen):
            card_on_pile = cam.see_card(st.position, ev.card)
            submit(T.CardSeen(card_on_pile, ev.seat))
            continue
        if not isinstance(ev, T.BoardSettled):
            submit(ev)
            continue
        after = T.reading_to_position(st.position, dict(ev.fields), (st.position.disc + st.disc_delta) % 4)
        assert isinstance(after, engine.Position)
        before_board, after_board = st.position.field_occupancy(), after.field_occupancy()
        changed = {f for f in set(before_board) | set(after_board) if before_board.get(f) != after_board.get(f)}
        moved = [f for f in changed if "K" not in f and f in after_board]
        # a piece standing still, away from the move, that the camera cannot read
        still = sorted(f for f, who in before_board.items() if f not in changed and after_board.get(f) == who
                       and "K" not in f)
        if step.expect == "legal" and st.card is not None and moved and still:
            # first: a board no legal play of this card leads to is not committed on the referee's word
            wrong = illegal_board(st.position, {T.board_key(p.result) for p in st.plays}, random.Random(checked))
            if wrong is not None:
                wrong_board = wrong.field_occupancy()
                keep = [f for f in still if wrong_board.get(f) == before_board[f]]
                if keep:
                    unreadable = {keep[0]}
                    with pytest.raises(PipelineError):
                        cam.watch(wrong, leds=lit, card=card_on_pile, hands=hand, max_frames=15)
                    assert cam.settle.committed_board == before_board
                    refused += 1
            # the move's own new field unread: the piece would vanish, nothing commits
            unreadable = {moved[0]}
            with pytest.raises(PipelineError):
                cam.watch(after, leds=lit, card=card_on_pile, hands=hand, max_frames=15)
            assert cam.settle.committed_board == before_board
            # a field away from the move unread: committed, that field as the game knows it
            unreadable = {still[0]}
            seen = cam.watch(after, leds=lit, card=card_on_pile, hands=hand, max_frames=15)
            assert cam.settle.committed_board == seen and seen[still[0]] == before_board[still[0]]
            assert T.occupancy(after) == {f: w for f, w in seen.items() if "K" not in f}
            submit(T.BoardSettled.of(seen))
            assert service.state.verdict is not None and service.state.verdict.legal and service.state.flag is None
            assert T.board_key(service.state.position) == T.board_key(after)
            # read again on the next frames: the field is read as soon as it can be
            unreadable = set()
            assert cam.watch(after, leds=lit, card=card_on_pile)[still[0]] == before_board[still[0]]
            checked += 1
            if checked == 2:
                break
            continue
        unreadable = set()
        seen = cam.watch(after, leds=lit, card=card_on_pile, hands=hand)
        submit(T.BoardSettled.of(seen))
    assert checked == 2 and refused >= 1
    lights.stop()
    service.stop()
    service.journal.close()


def test_the_settle_filter_is_told_the_board_after_every_accepted_play_only(tmp_path: Path) -> None:
    """`SettleReferee.tell`: the game's board after a play the game accepted (entered on the page here),
    not at the start (the camera must see the pieces set out) nor after an undo."""
    from companion.settle_referee import SettleReferee
    from vision.settle import SettleFilter

    settings = Settings(replace(ServiceSettings(), accept_flash_s=0.0))
    service = Service(settings, Journal(tmp_path / "j.sqlite"))
    service.open(T.Setup("classic", 4, "highlight"))
    settle = SettleFilter()
    referee = SettleReferee(lambda: service.state)
    settle.explains = referee.explains
    referee.tell(settle)
    assert settle.committed_board is None
    accepted = 0
    for step, _ in scripted_game("classic", 4, seed=4, illegal_rate=0.0, undo_rate=0.0):
        before = service.state.position
        service.submit(step.event)
        referee.tell(settle)
        if step.expect == "legal" and isinstance(step.event, T.BoardSettled) and service.state.position != before:
            assert settle.committed_board == service.state.position.field_occupancy()
            accepted += 1
            if accepted == 3:
                break
        elif service.state.position == before:
            assert settle.committed_board in (None, before.field_occupancy())
    played = service.state.position
    service.submit(T.Undo())
    referee.tell(settle)
    assert service.state.position != played and settle.committed_board == played.field_occupancy()
    service.journal.close()


def test_the_referee_commits_only_a_board_one_play_explains_and_never_guesses_an_unread_field() -> None:
    """`SettleReferee.explains` with the 4 shown and red pieces on T10 and T30: forward to T14 and
    backward to T6 leave the same board wherever T6 and T14 are unread, so nothing commits;
    with only one of them unread, the read one tells the plays apart."""
    from companion.settle_referee import SettleReferee

    pos = engine.parse_position({"variant": "classic", "pieces": [["T10", "T30", "K", "K"], ["K"] * 4,
                                                                  ["K"] * 4, ["K"] * 4]})
    st = T.new_state(T.Setup("classic", 4, "highlight"))
    st = T.apply(st, T.BoardSettled.of(T.occupancy(st.position)))[0]
    st = T.apply(T.apply(st, T.ExchangeDone())[0], T.SetPosition(json.dumps(pos.to_json())))[0]
    st = T.apply(st, T.CardSeen("4"))[0]
    assert len(st.plays) == 4
    referee = SettleReferee(lambda: st)
    before = pos.field_occupancy()
    forward = {f: who for f, who in before.items() if f != "T10"} | {"T14": "s0"}
    assert referee.explains(before, forward, ("T6", "T14")) is False  # forward or back: read them first
    assert referee.explains(before, forward, ("T6",)) is True
    assert referee.explains(before, forward, ("T50",)) is True  # a field away from the move
    # a field the game knows holds a piece, read as empty before: not the game's word, read it first
    assert referee.explains({f: w for f, w in before.items() if f != "T30"}, forward, ("T30",)) is False
    back = {f: who for f, who in before.items() if f != "T10"} | {"T7": "s0"}
    assert referee.explains(before, back, ()) is False  # no play of the 4 leads there
    # the 7 with red on T10 and T13, T13 unread: the T10 piece went 7 and burned the T13 one
    # (RULES.md §4), or T13 went 4 and T10 took its place; both read the same, so wait
    pos7 = engine.parse_position({"variant": "classic", "pieces": [["T10", "T13", "K", "K"], ["K"] * 4,
                                                                   ["K"] * 4, ["K"] * 4]})
    st = T.apply(T.apply(st, T.SetPosition(json.dumps(pos7.to_json())))[0], T.CardSeen("7"))[0]
    before = pos7.field_occupancy()
    moved = {f: who for f, who in before.items() if f != "T10"} | {"T17": "s0"}
    burned = {p.notation for p in st.plays if T.occupancy(p.result) == {"T17": "s0"}}
    kept = {p.notation for p in st.plays if T.occupancy(p.result) == {"T13": "s0", "T17": "s0"}}
    assert burned and kept
    assert referee.explains(before, moved, ("T13",)) is False
    assert referee.explains(before, moved | {"T13": "s0"}, ()) is True
