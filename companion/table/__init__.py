"""The table session: what the service believes about the game at a real (or simulated) table.

One idea per module, all of it re-exported here as `companion.table.<name>`:

- `events`: the events (what happened at the table) and their journal JSON; `TableError`.
- `state`: `Setup`, `TableState` and the values it holds (`TableVerdict`, `TableHint`,
  `LogEntry`, `Effect`, `Action`: the history undo pops); `new_state`.
- `reading`: a settled board reading -> position; `board_key`, what a camera can tell apart.
- `lights`: the role each field's LED ring shows (`leds`).
- `hints`: what a seat knows of the cards (`seat_view`) and the best play for it (`safe_hint`:
  none rather than a failure).
- `choices`: what the rules let a player do now (`offered_plays`, `stuck`, `stuck_rule`) and
  who saw a card (words about a card only its holder saw are that seat's alone).
- `history`: the actions that stand, which undo pops; `own_undo_refusal`.
- `hidden`: a game held where some cards are unknown (`UNKNOWN`, "?": a table joined to
  another's game): the events as a table may see them (`event_for`) and the hands it must be
  shown (`needs_hand_shown`, `HandShown`).
- `flow`: `apply(state, event) -> (state, effects)`, pure, and `replay` from a journal.
- `view`: the state as JSON for the web page (`state_to_json`).
"""
from __future__ import annotations

from companion.table.events import (
    EVENT_TYPES,
    UNKNOWN,
    AskHint,
    BoardSettled,
    CardGiven,
    CardSeen,
    Deal,
    Discard,
    DiscTurned,
    Event,
    ExchangeDone,
    HandShown,
    SetMode,
    SetPosition,
    SetTurn,
    SitOut,
    TableError,
    Undo,
    event_from_json,
    event_to_json,
    public_event_json,
)
from companion.table.choices import movable_card, offered_plays, stuck, stuck_rule
from companion.table.flow import apply, confirm_start, replay
from companion.table.hidden import event_for, needs_hand_shown
from companion.table.hints import best_hint, safe_hint, seat_view
from companion.table.history import own_undo_refusal
from companion.table.lights import leds, play_fields
from companion.table.reading import (
    board_key,
    changed_fields,
    occupancy,
    reading_to_position,
    rotate_disc,
    unturned,
)
from companion.table.state import (
    LOG_KEEP,
    MODES,
    PHASES,
    Action,
    Effect,
    LogEntry,
    Setup,
    TableHint,
    TableState,
    TableVerdict,
    dealt_from_deck,
    new_state,
)
from companion.table.view import for_viewer, state_to_json, verdict_json

__all__ = [
    "EVENT_TYPES", "LOG_KEEP", "MODES", "PHASES", "UNKNOWN",
    "Action", "AskHint", "BoardSettled", "CardGiven", "CardSeen", "Deal", "Discard", "DiscTurned", "Effect", "Event",
    "ExchangeDone", "HandShown", "LogEntry", "SetMode", "SetPosition", "SetTurn", "Setup", "SitOut", "TableError",
    "TableHint", "TableState", "TableVerdict", "Undo",
    "apply", "best_hint", "board_key", "changed_fields", "confirm_start", "dealt_from_deck", "event_from_json",
    "event_for", "event_to_json", "for_viewer", "leds", "movable_card", "needs_hand_shown", "new_state", "occupancy", "offered_plays", "own_undo_refusal", "play_fields",
    "public_event_json", "reading_to_position", "replay", "rotate_disc", "safe_hint", "seat_view", "state_to_json", "stuck",
    "stuck_rule", "unturned",
    "verdict_json",
]
