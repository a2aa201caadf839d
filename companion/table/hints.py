"""Hints: what a seat knows of the cards, and the best play of the card in play for it.

`seat_view` is the seat's knowledge (its hand, the cards laid down since the last shuffle,
every hand's size): the hints weigh threats with it, and the simulated table's bots decide
with it. `best_hint` asks the engine (engine.hints) and dresses the answer for the table;
`safe_hint` is what the table flow asks: a hint that fails is logged once and is no hint.
"""
from __future__ import annotations

import logging

import engine
from engine.describe import describe_play
from engine.evaluate import SeatView
from engine.hints import explain
from engine.position import Position
from companion.table.hidden import known
from companion.table.lights import play_fields
from companion.table.state import TableHint, TableState
from companion.texts import LANGS

log = logging.getLogger(__name__)


def seat_view(state: TableState, seat: int) -> SeatView:
    """What `seat` knows of the cards now: its hand, the cards seen, every seat's hand size.

    At a real table the service knows only the card the seat shows, so that is the hand; at
    a joined table, the cards of the hand it knows (another table's seat holds "?" here).
    """
    if state.hands is not None:
        hand = known(state.hands[seat])
        sizes = tuple((s, len(state.hands[s])) for s in state.seats)
    else:
        hand = (state.card,) if state.card is not None and state.card_seat == seat else ()
        sizes = tuple((s, state.hand_size(s)) for s in state.seats)
    return SeatView(state.position, hand, state.seen, sizes, state.round_no, dict(state.given).get(seat))


def best_hint(pos: Position, plays: tuple[engine.Play, ...], seat: int, view: SeatView) -> TableHint | None:
    """The best play of the card in play, why, and why the next best is worse (engine.hints).

    The hint weighs the plays of the card shown, knowing what `view` knows: which cards were
    laid down since the deck was shuffled (so which threats are still likely) and the hand sizes.
    """
    hint = explain(pos, seat, [(play.card, play) for play in plays], view.knowledge())
    if hint is None:
        return None
    movers, targets = play_fields(pos, hint.play, seat)
    words = {lang: describe_play(pos, hint.play, seat, lang) for lang in LANGS}
    return TableHint(hint.play.notation, {lang: hint.text(lang) for lang in LANGS}, tuple(sorted(movers | targets)), words)


_HINT_FAILED: set[str] = set()  # hint failures already logged: one line each, not one per card


def safe_hint(pos: Position, plays: tuple[engine.Play, ...], seat: int, state: TableState) -> TableHint | None:
    """The best play as a hint, or None when the hint cannot be worked out.

    A hint is advice: whatever goes wrong inside it must not refuse the card or the play it is
    about, so the failure is logged once and the table goes on without a hint.
    """
    try:
        return best_hint(pos, plays, seat, seat_view(state, seat))
    except Exception as exc:  # noqa: BLE001 - any failure of the advice, never of the game
        key = f"{type(exc).__name__}: {exc}"
        if key not in _HINT_FAILED:
            _HINT_FAILED.add(key)
            log.exception("no hint for seat %d (%s): the game goes on without one", seat, key)
        return None
