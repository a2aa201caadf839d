"""Random whole games with undos and mistakes: the table, its journal and its record agree.

Small and seeded here; scripts/table_property.py runs many more games and checks every step.
"""
from __future__ import annotations

import pytest

from companion import table as T
from companion.simulated.random_games import MISTAKES, check, random_game

LEGIT = ("start", "deal", "give", "card", "settle", "sitout", "discard")
CHECKS_PER_KIND = 2  # full journal and record checks after the first undos of each kind (the costly part)


def _cardless(words: str, deck: list[str]) -> bool:
    """Words that name no card: no card id and no number (every number card's id is its value)."""
    return not any(ch.isdigit() for ch in words) and not any(c in words for c in deck if not c[0].isdigit())


@pytest.mark.parametrize("variant,players,seed,direction", [
    ("classic", 4, 11, None), ("classic", 3, 12, None), ("black", 4, 13, None),
    ("classic", 4, 14, "counter-clockwise"), ("brandi", 4, 15, None)])  # Brändi: counter-clockwise, discards
def test_random_games_with_undos_and_mistakes_keep_journal_record_and_table_in_step(
        variant: str, players: int, seed: int, direction: str | None) -> None:
    setup = T.Setup(variant, players, "highlight", direction=direction)
    events: list[T.Event] = []
    checked: dict[str, int] = {}
    seen: dict[tuple[str, bool], int] = {}
    deck = [c for c, _ in T.new_state(setup).variant.deck]
    step = None
    for step in random_game(variant, players, seed, undo_rate=0.15, mistake_rate=0.15, max_events=200,
                            direction=direction):
        seen[(step.kind, step.refused is None)] = seen.get((step.kind, step.refused is None), 0) + 1
        before, after = step.before, step.state
        if step.refused is not None:
            assert step.kind not in LEGIT, (step.kind, step.event, step.refused)
            assert after is before  # a refusal changes nothing
            if step.kind == "undo_own":
                assert _cardless(step.refused, deck), step.refused
            continue
        assert step.kind not in MISTAKES, (step.kind, step.event)
        events.append(step.event)
        if step.kind == "undo_own":
            seat = step.event.seat
            if before.card is not None:
                assert before.card_seat == seat and after.card is None
            else:  # exactly the seat's own latest action, and nothing else
                assert before.history[-1].seat == seat and after.history == before.history[:-1]
        elif step.kind == "undo_host" and before.card is None and before.undo_to is not None:
            assert after.history == before.history[:-1]
        for e in after.log:  # words implying a card in a hand are the holder's alone
            if "cannot move" in e.text["en"]:
                assert e.to == e.seat, e
        if step.kind.startswith("undo") and checked.get(step.kind, 0) < CHECKS_PER_KIND:
            checked[step.kind] = checked.get(step.kind, 0) + 1
            assert check(setup, events, after) is None, (step.kind, len(events))
    assert step is not None
    assert check(setup, events, step.state) is None
    # the game went through every kind of step the test is about
    for kind in ("undo_own", "undo_host", "give", "settle"):
        assert seen.get((kind, True)), (kind, seen)
    assert seen.get(("undo_own", False)) and any(seen.get((m, False)) for m in MISTAKES), seen
