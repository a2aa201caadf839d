"""Scripted games through the whole pipeline: renderer -> vision -> table -> engine -> LEDs.

Every board the scripted players leave (legal plays, injected illegal ones, boards put
back) is rendered with the LEDs the service lit and a hand leaving the board, read by the
vision room's reader and settle filter, and only then given to the service. The card on
the pile is recognised from the frame too.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import engine
from companion import table as T
from companion.journal import Journal
from companion.scripted import scripted_game
from companion.service import Service
from companion.settings import ServiceSettings, Settings

pytest.importorskip("hardware.simtable")
pytest.importorskip("vision.reader")

CASES = [("classic", 4, 14), ("compact", 3, 6), ("royal-basic", 4, 6), ("black", 4, 8), ("royal", 2, 6)]


@pytest.mark.parametrize("variant,players,plays", CASES)
def test_pipeline_flags_every_illegal_play_and_accepts_every_legal_one(
        variant: str, players: int, plays: int, tmp_path: Path) -> None:
    from companion.pipeline import SimCamera
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
    service = Service(settings, Journal(tmp_path / "j.sqlite"), sim=False,
                      leds=lambda roles: (lit.clear(), lit.update(roles)))
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
            service.submit(T.BoardSettled.of(seen))
        elif isinstance(ev, T.CardSeen):
            card_on_pile = cam.see_card(st.position, ev.card)
            assert card_on_pile == ev.card
            service.submit(T.CardSeen(card_on_pile, ev.seat))
            assert lit == T.leds(service.state)
            targets_lit += "target" in lit.values()
        else:
            service.submit(ev)
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
    service.journal.close()
