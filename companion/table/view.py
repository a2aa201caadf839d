"""The table state as JSON for the web page: the board, the seats, the card in play, the log.

Only what anyone at the table may see: hand sizes, never the hands (a viewer's own hand is
added by the service), and who still owes a card in the exchange, never which card.
"""
from __future__ import annotations

from typing import Any

from engine.describe import describe_play
from companion.table.flow import stuck
from companion.table.lights import leds
from companion.table.state import TableState, TableVerdict
from companion.texts import LANGS


def verdict_json(v: TableVerdict | None) -> dict[str, Any] | None:
    """A verdict (or flag) as the page reads it."""
    if v is None:
        return None
    return {"legal": v.legal, "seat": v.seat, "card": v.card, "play": v.play, "reason": v.reason,
            "fields": list(v.fields)}


def state_to_json(state: TableState, log_tail: int = 60) -> dict[str, Any]:
    """The state for the page, with the newest `log_tail` log entries."""
    pos = state.position
    seats = []
    for s in state.seats:
        partner = pos.partner(s)
        seats.append({
            "seat": s, "colour": pos.board.colours[s], "cards": state.hand_size(s), "out": s in state.out,
            "home": pos.pieces_home(s), "partner": partner,
            "plays_for": partner if partner is not None and pos.is_finished(s) else None,
        })
    return {
        "variant": pos.variant.name, "title": pos.variant.title, "segments": pos.board.segments,
        "players": pos.players, "team_game": pos.is_team_game,
        "position": pos.to_json(), "mode": state.mode, "phase": state.phase, "round": state.round_no + 1,
        "cards_this_round": state.cards_this_round(), "dealer": state.dealer, "turn": state.turn,
        "seats": seats, "card": state.card, "card_seat": state.card_seat,
        "plays": [p.notation for p in state.plays[:40]], "plays_total": len(state.plays),
        "play_words": [{lang: describe_play(pos, p, state.card_seat, lang) for lang in LANGS}
                       for p in state.plays[:40]] if state.card_seat is not None else [],
        "leds": leds(state), "flag": verdict_json(state.flag), "verdict": verdict_json(state.verdict),
        "hint": None if state.hint is None else
        {"play": state.hint.play, "why": state.hint.why, "fields": list(state.hint.fields), "words": state.hint.words},
        "winner": list(state.winner) if state.winner else None,
        "deck": [c for c, _ in pos.variant.deck],
        "log": [{"seq": e.seq, "kind": e.kind, "seat": e.seat, "text": e.text, "notation": e.notation}
                for e in state.log[-log_tail:]],
        "seq": state.seq, "can_undo": state.undo_to is not None or state.card is not None,
        # who still owes a card in the exchange (never which card), and whether hands are known
        "to_give": list(state.still_to_give()), "hands_known": state.hands is not None,
        "receivers": {str(s): state.receiver(s) for s in state.seats}, "stuck": stuck(state),
    }
