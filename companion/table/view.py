"""The table state as JSON for the web page: the board, the seats, the card in play, the log.

Only what anyone at the table may see: hand sizes, never the hands (a viewer's own hand is
added by the service), and who still owes a card in the exchange, never which card. Words
about a card only its holder saw (`LogEntry.to`, `TableVerdict.to`: a card shown on a phone
that cannot move, a hint weighed with the holder's hand) reach that seat's page alone; a
watcher (viewer None) gets what the whole table saw.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.describe import describe_play
from companion.table.choices import stuck
from companion.table.history import own_undo_refusal
from companion.table.lights import leds
from companion.table.state import TableState, TableVerdict
from companion.texts import LANGS


def verdict_json(v: TableVerdict | None) -> dict[str, Any] | None:
    """A verdict (or flag) as the page reads it."""
    if v is None:
        return None
    return {"legal": v.legal, "seat": v.seat, "card": v.card, "play": v.play, "reason": v.reason,
            "fields": list(v.fields)}


def for_viewer(to: int | None, viewer: int | None) -> bool:
    """Whether words meant for `to` (None: everybody) may reach `viewer`'s page."""
    return to is None or to == viewer


def state_to_json(state: TableState, log_tail: int = 60, *, viewer: int | None = None) -> dict[str, Any]:
    """The state for `viewer`'s page (a seat, or None: a watcher), with the newest `log_tail`
    log entries that viewer may read."""
    pos = state.position
    # a card shown on a phone that cannot move never reached the table: only its holder sees it
    hidden = (state.hands is not None and state.card is not None and not state.plays
              and state.card_seat != viewer)
    card, card_seat = (None, None) if hidden else (state.card, state.card_seat)
    hint = state.hint if state.hands is None or state.card_seat == viewer else None
    log = [e for e in state.log if for_viewer(e.to, viewer)][-log_tail:]
    flag = state.flag if state.flag is not None and for_viewer(state.flag.to, viewer) else None
    # the page's rings light what this viewer may know: no one else's hint, no flag on a hidden card
    rings = leds(state if (hint, flag) == (state.hint, state.flag) else replace(state, hint=hint, flag=flag))
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
        "seats": seats, "card": card, "card_seat": card_seat,
        "plays": [p.notation for p in state.plays[:40]], "plays_total": len(state.plays),
        "play_words": [{lang: describe_play(pos, p, state.card_seat, lang) for lang in LANGS}
                       for p in state.plays[:40]] if state.card_seat is not None else [],
        "leds": rings, "flag": _verdict_for(state.flag, viewer), "verdict": _verdict_for(state.verdict, viewer),
        "hint": None if hint is None else
        {"play": hint.play, "why": hint.why, "fields": list(hint.fields), "words": hint.words},
        "winner": list(state.winner) if state.winner else None,
        "deck": [c for c, _ in pos.variant.deck],
        "log": [{"seq": e.seq, "kind": e.kind, "seat": e.seat, "text": e.text, "notation": e.notation}
                for e in log],
        # can_undo: the host's undo would take something back; can_undo_mine: the viewer's own
        # undo would (its latest action is the table's latest), undo_refusal: else why not
        "seq": state.seq, "can_undo": state.undo_to is not None or state.card is not None,
        "can_undo_mine": viewer in state.seats and own_undo_refusal(state, viewer) is None,
        "undo_refusal": own_undo_refusal(state, viewer) if viewer in state.seats else None,
        # who still owes a card in the exchange (never which card), and whether hands are known
        "to_give": list(state.still_to_give()), "hands_known": state.hands is not None,
        "receivers": {str(s): state.receiver(s) for s in state.seats},
        "stuck": stuck(state) if state.hands is None or state.card_seat == viewer else None,
    }


def _verdict_for(v: TableVerdict | None, viewer: int | None) -> dict[str, Any] | None:
    return verdict_json(v) if v is not None and for_viewer(v.to, viewer) else None
