"""The game flow at the table: `apply(state, event) -> (state, effects)`, and `replay`.

Pure: frozen values in and out, no threads, no clock, no I/O. The service journals each
event, applies it here, and turns the result into LEDs, web updates and speech. Replaying
the same events gives the same state, which is what makes the journal a complete record of
a game.

At a real table nobody tells the service what is in a hand. It follows what it can see:
cards played per seat per round, the exchange phase, seats that laid their hand down, whose
turn it is, partner play and the winner; a settled board is accepted when it shows one of
the card's legal plays, and flagged otherwise.
"""
from __future__ import annotations

import json
import logging
from dataclasses import replace

import engine
from engine.describe import describe_play
from engine.position import Position
from companion.table.events import (
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
)
from companion.table.choices import (
    card_audience,
    holder_only,
    movable_card,
    offered_plays,
    stuck_key,
    stuck_rule,
)
from companion.table.hidden import holds, known, show_hand, without
from companion.table.hints import safe_hint
from companion.table.history import acted, own_undo_refusal
from companion.table.reading import board_key, changed_fields, reading_to_position, unturned
from companion.table.state import (
    LOG_KEEP,
    MODES,
    Action,
    Effect,
    LogEntry,
    Setup,
    TableState,
    TableVerdict,
    dealt_from_deck,
    new_state,
)
from companion.texts import LANGS, both, player_name, say

log = logging.getLogger(__name__)


def _colour(state: TableState, seat: int) -> str:
    return state.position.board.colours[seat]


def _log(state: TableState, kind: str, seat: int | None, text: dict[str, str], to: int | None = None,
         notation: str | None = None) -> tuple[LogEntry, ...]:
    entries = state.log + (LogEntry(state.seq, kind, seat, text, notation, to),)
    return entries[-LOG_KEEP:]


def apply(state: TableState, event: Event) -> tuple[TableState, tuple[Effect, ...]]:
    """The state after `event`, and what to show or say. Raises TableError for bad events."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise TableError(f"unknown event {event!r}")
    # a hand shown changes no play: a winning play that drew a card is shown after the win
    if state.phase == "over" and not isinstance(event, (Undo, SetMode, SetPosition, BoardSettled, HandShown)):
        raise TableError("the game is over; start a new game (or undo the last play)")
    new, effects = handler(state, event)
    return replace(new, seq=state.seq + 1), effects


def _card_seen(state: TableState, ev: CardSeen) -> tuple[TableState, tuple[Effect, ...]]:
    pos = state.position
    seat = state.turn if ev.seat is None else ev.seat
    if seat not in state.seats:
        raise TableError(f"seat {seat} does not play in this game (seats: {list(state.seats)})")
    try:
        plays = offered_plays(pos, tuple(engine.legal_moves(pos, ev.card, seat)))
    except engine.EngineError as exc:
        raise TableError(str(exc)) from None
    if state.phase == "setup":
        raise TableError("confirm the starting position first (put the pieces out, or correct it by hand)")
    if state.hands is not None:
        if state.phase == "exchange":
            raise TableError(say("en", "exchange_first"))
        if seat != state.turn:
            # a card from a phone out of turn never reached the table: only the asker hears of it
            raise TableError(say("en", "not_turn", turn=player_name(_colour(state, state.turn))("en"),
                                 seat=player_name(_colour(state, seat))("en")))
        if not holds(state.hands[seat], ev.card):
            raise TableError(say("en", "not_in_hand", player=player_name(_colour(state, seat))("en"), card=ev.card))
    phase = "play"
    logs = state.log
    if state.phase == "exchange":  # a real table: the camera saw the first card, so the exchange is over
        logs = _log(state, "exchange", seat, both("exchange_done", player=player_name(_colour(state, seat))))
    state = replace(state, log=logs)
    name = player_name(_colour(state, seat))
    if seat != state.turn:  # a real table: everybody saw the card laid out of turn
        turn = player_name(_colour(state, state.turn))
        verdict = TableVerdict(False, seat, ev.card, None, both("not_turn", turn=turn, seat=name), ())
        return (replace(state, phase=phase, verdict=verdict,
                        log=_log(state, "flag", seat, verdict.reason)),
                (Effect("say", (), verdict.reason),))
    text = both("card_seen", player=name, card=ev.card)
    effects: list[Effect] = []
    to = None
    if not plays:
        to = holder_only(state, seat)
        text = both(stuck_key(state, seat, ev.card), player=name, card=ev.card)
        effects.append(Effect("say", (), text, to))
    hint = None
    new = replace(state, phase=phase, card=ev.card, card_seat=seat, plays=plays, hint=None,
                  log=_log(state, "card", seat, text, to))
    if state.mode == "training":
        hint = safe_hint(pos, plays, seat, new)
        new = replace(new, hint=hint)
    if hint is not None:
        effects.append(Effect("say", (), {lang: both("hint", play=hint.words[lang], why=hint.why[lang])[lang]
                                          for lang in LANGS}, holder_only(state, seat)))
    return new, tuple(effects)


def _reading_dict(state: TableState, ev: BoardSettled) -> dict[str, str]:
    return dict(ev.fields)


def _board(state: TableState, ev: BoardSettled) -> tuple[TableState, tuple[Effect, ...]]:
    pos = state.position
    disc = (pos.disc + state.disc_delta) % 4
    seen = reading_to_position(pos, _reading_dict(state, ev), disc)
    state = replace(state, reading=ev.fields)
    seat = state.card_seat if state.card_seat is not None else state.turn
    if isinstance(seen, dict):  # the reading is no position at all
        verdict = TableVerdict(False, seat, state.card or "", None, seen, tuple(f for f, _ in ev.fields if "K" not in f))
        return _flag(state, verdict)
    if board_key(seen) == board_key(pos):
        void = [p for p in state.plays if board_key(p.result) == board_key(pos)]
        if void and len(void) == len(state.plays) and state.card_seat is not None and state.phase == "play":
            # a swap with no swap possible: laid down without effect. When the card could also
            # move (a joker), a still board is a player thinking, and "lay down" is a button.
            return _accept(state, state.card_seat, void[0])
        if state.flag is not None:
            # the "not allowed" is over: the verdict becomes a note that the board is right again
            note = TableVerdict(True, seat, state.card or "", None, both("board_back"), ())
            return (replace(state, flag=None, verdict=note, log=_log(state, "back", seat, both("board_back"))),
                    (Effect("ok", (), both("board_back")),))
        return state, ()
    if state.phase == "setup":
        changes = ", ".join(changed_fields(pos, seen))
        verdict = TableVerdict(False, seat, "", None, both("setup_differs", changes=changes), changed_fields(pos, seen))
        return _flag(state, verdict)
    if state.card is None or state.phase == "over":
        verdict = TableVerdict(False, seat, "", None, both("no_card"), changed_fields(pos, seen))
        return _flag(state, verdict)
    key = board_key(seen)
    match = [p for p in state.plays if board_key(p.result) == key]
    name = player_name(_colour(state, seat))
    if match:
        return _accept(state, seat, match[0])
    pending = [p for p in state.plays if p.disc_turn and board_key(unturned(p)) == key]
    if pending and state.disc_delta == 0:
        text = both("turn_disc")
        if state.flag is None and state.verdict is not None and state.verdict.reason == text:
            return state, ()
        verdict = TableVerdict(True, seat, state.card, None, text, changed_fields(pos, seen))
        return replace(state, flag=None, verdict=verdict, log=_log(state, "disc", seat, text)), (Effect("say", (), text),)
    reason = {}
    for lang in LANGS:
        try:
            reason[lang] = engine.check(pos, seen, state.card, seat, lang).reason
        except engine.EngineError as exc:
            reason[lang] = str(exc)
    reason = {lang: both("flagged", player=name, card=state.card, reason=reason[lang])[lang] for lang in LANGS}
    return _flag(state, TableVerdict(False, seat, state.card, None, reason, changed_fields(pos, seen),
                                     card_audience(state)))


def _flag(state: TableState, verdict: TableVerdict) -> tuple[TableState, tuple[Effect, ...]]:
    if state.flag is not None and state.flag.reason == verdict.reason and state.flag.fields == verdict.fields:
        return state, ()  # the same wrong board settled again: say it once
    new = replace(state, flag=verdict, verdict=verdict, log=_log(state, "flag", verdict.seat, verdict.reason, verdict.to))
    return new, (Effect("error", verdict.fields, verdict.reason, verdict.to),)


def _accept(state: TableState, seat: int, play: engine.Play) -> tuple[TableState, tuple[Effect, ...]]:
    before = state.position
    text = {lang: describe_play(before, play, seat, lang) for lang in LANGS}
    verdict = TableVerdict(True, seat, play.card, play.notation, text, changed_fields(before, play.result))
    played = _bump(state.played, seat)
    drawn = _bump(state.drawn, seat, play.draws) if play.draws else state.drawn
    hands, stock = _take(state, seat, state.card or play.card, play.draws)
    new = replace(state, position=play.result, played=played, drawn=drawn, card=None, card_seat=None, plays=(),
                  disc_delta=_delta(state, play.result), flag=None, verdict=verdict, hint=None,
                  log=_log(state, "play", seat, text, None, play.notation), hands=hands, stock=stock,
                  seen=state.seen + (state.card or play.card,))
    new = acted(state, new, "play", seat, text, play.card, play.notation)
    if play.draws:
        new = dealt_from_deck(new, play.draws)
    effects = [Effect("ok", verdict.fields, text)]
    win = new.winner
    if win is not None:
        names = {lang: both("and")[lang].join(player_name(_colour(state, s))(lang) for s in win) for lang in LANGS}
        wtext = {lang: both("winners" if len(win) > 1 else "winner", players=names[lang])[lang] for lang in LANGS}
        new = replace(new, phase="over", log=_log(new, "win", None, wtext))
        effects.append(Effect("say", (), wtext))
        return new, tuple(effects)
    return _advance(new, seat, effects)


def _take(state: TableState, seat: int, card: str | None, draws: int = 0
          ) -> tuple[tuple[tuple[str, ...], ...] | None, tuple[str, ...]]:
    """Hands and stock after `seat` laid `card` down and drew `draws` cards (where hands are known)."""
    if state.hands is None:
        return None, state.stock
    hand = list(without(state.hands[seat], card))
    stock = list(state.stock)
    for _ in range(draws):
        if stock:  # the simulated stock is one deck; an empty one simply gives nothing more
            hand.append(stock.pop())  # a stock this table does not know gives a "?"
    hands = tuple(tuple(hand) if i == seat else h for i, h in enumerate(state.hands))
    return hands, tuple(stock)


def _delta(state: TableState, believed: Position) -> int:
    """Quarter turns between the physical disc (as the encoder counts it) and `believed`."""
    return ((state.position.disc + state.disc_delta - believed.disc + 2) % 4) - 2


def _bump(values: tuple[int, ...], seat: int, by: int = 1) -> tuple[int, ...]:
    return tuple(v + by if i == seat else v for i, v in enumerate(values))


def _advance(state: TableState, seat: int, effects: list[Effect]) -> tuple[TableState, tuple[Effect, ...]]:
    """Pass the turn on; when nobody holds a card any more, start the next round."""
    seats = state.seats
    nxt = seat
    for _ in seats:
        nxt = state.position.next_seat(nxt)
        if state.hand_size(nxt) > 0:
            return replace(state, turn=nxt), tuple(effects)
    return _new_round(state, effects)


def _new_round(state: TableState, effects: list[Effect]) -> tuple[TableState, tuple[Effect, ...]]:
    seats = state.seats
    dealer = state.position.next_seat(state.dealer)
    p = state.position
    n = len(p.pieces)
    new = replace(state, round_no=state.round_no + 1, dealer=dealer, turn=state.position.next_seat(dealer),
                  played=(0,) * n, drawn=(0,) * n, out=frozenset(), phase="exchange",
                  position=replace(p, last_card=None),
                  hands=None, stock=(), gifts=(), given=())
    return _exchange_note(dealt_from_deck(new, new.cards_this_round() * len(seats)), effects)


def _exchange_note(state: TableState, effects: list[Effect]) -> tuple[TableState, tuple[Effect, ...]]:
    whom = "exchange_partner" if state.position.is_team_game else "exchange_left"
    text = {lang: both("exchange", round=state.round_no + 1, cards=state.cards_this_round(),
                       whom=both(whom)[lang])[lang] for lang in LANGS}
    return replace(state, log=_log(state, "round", None, text)), tuple(effects) + (Effect("say", (), text),)


def _disc(state: TableState, ev: DiscTurned) -> tuple[TableState, tuple[Effect, ...]]:
    if ev.direction not in (1, -1):
        raise TableError("a disc turn is +1 (clockwise) or -1 (anticlockwise)")
    if state.variant.name != "black":
        raise TableError(f"{state.variant.name} has no disc; only Black DOG does")
    text = both("disc_turned", direction=lambda lang: both("clockwise" if ev.direction > 0 else "anticlockwise")[lang])
    seat = state.card_seat if state.card_seat is not None else state.turn
    delta = ((state.disc_delta + ev.direction + 2) % 4) - 2
    return replace(state, disc_delta=delta, log=_log(state, "disc", seat, text)), ()


def _exchange(state: TableState, ev: ExchangeDone) -> tuple[TableState, tuple[Effect, ...]]:
    if state.phase != "exchange":
        raise TableError("there is no card exchange now (it comes at the start of each round)")
    if state.hands is not None:
        raise TableError(say("en", "exchange_give_each"))
    text = both("exchange_done", player=player_name(_colour(state, state.turn)))
    new = replace(state, phase="play", gifts=(), log=_log(state, "exchange", None, text))
    return acted(state, new, "exchange", None, text), ()


def _give(state: TableState, ev: CardGiven) -> tuple[TableState, tuple[Effect, ...]]:
    """One seat's card goes face down to its receiver; once every seat gave, all are picked up."""
    if state.phase != "exchange":
        raise TableError("there is no card exchange now (it comes at the start of each round)")
    if ev.seat not in state.seats:
        raise TableError(f"seat {ev.seat} does not play in this game (seats: {list(state.seats)})")
    name = player_name(_colour(state, ev.seat))
    if ev.seat not in state.still_to_give():
        raise TableError(say("en", "already_given", player=name("en")))
    card = None
    hands = state.hands
    if hands is not None:
        # a card this table may not know (another table's seat gave it) comes as None, or "?"
        card = None if ev.card == UNKNOWN else ev.card
        if card is None and UNKNOWN not in hands[ev.seat]:  # the hand is known here: which card?
            raise TableError(say("en", "exchange_give_each"))
        if card is not None and not holds(hands[ev.seat], card):
            raise TableError(say("en", "not_in_hand", player=name("en"), card=card))
        hands, _ = _take(state, ev.seat, card)
    to = player_name(_colour(state, state.receiver(ev.seat)))
    text = both("gave_card", player=name, to=to)
    new = replace(state, gifts=state.gifts + ((ev.seat, card),), hands=hands, log=_log(state, "give", ev.seat, text))
    new = acted(state, new, "give", ev.seat, text, card)
    if new.still_to_give():
        return new, ()
    if hands is not None:  # everybody gave: now each picks up the card received
        got = [list(h) for h in hands]
        for seat, c in new.gifts:
            got[new.receiver(seat)].append(c or UNKNOWN)
        new = replace(new, hands=tuple(tuple(h) for h in got))
    done = both("exchange_done", player=player_name(_colour(state, state.turn)))
    return (replace(new, phase="play", gifts=(), given=new.gifts, log=_log(new, "exchange", None, done)),
            (Effect("say", (), done),))


def _deal(state: TableState, ev: Deal) -> tuple[TableState, tuple[Effect, ...]]:
    if ev.round_no != state.round_no:
        raise TableError(f"a deal for round {ev.round_no + 1}, but round {state.round_no + 1} is on")
    if state.phase not in ("exchange", "play") or state.gifts:
        raise TableError("cards are dealt at the start of a round, before the exchange")
    if len(ev.hands) != len(state.position.pieces):
        raise TableError(f"a deal needs one hand per seat index ({len(state.position.pieces)})")
    deck = {c for c, _ in state.variant.deck} | {UNKNOWN}  # a joined table's deal: "?" for the others' cards
    for seat, hand in enumerate(ev.hands):
        want = state.hand_size(seat) if seat in state.seats else 0
        if len(hand) != want:
            raise TableError(f"seat {seat} should be dealt {want} cards, not {len(hand)}")
        bad = [c for c in hand + ev.stock if c not in deck]
        if bad:
            raise TableError(f"{bad[0]!r} is not a card of {state.variant.name}")
    # the simulated table deals every round from a fresh deck: nothing laid down yet
    return replace(state, hands=ev.hands, stock=ev.stock, seen=(), deck_left=len(ev.stock)), ()


def _sit_out(state: TableState, ev: SitOut) -> tuple[TableState, tuple[Effect, ...]]:
    if ev.seat not in state.seats:
        raise TableError(f"seat {ev.seat} does not play in this game (seats: {list(state.seats)})")
    if state.phase == "setup":
        raise TableError("the game has not started yet")
    name = player_name(_colour(state, ev.seat))
    text = both("sat_out", player=name)
    note = None
    if state.hands is not None:
        # the referee knows the hand: only a player who cannot move any card lays it down
        # (RULES.md §3.9); the refusal goes to the asker alone, as it names a card of the hand
        if state.phase == "exchange":
            raise TableError(say("en", "exchange_first"))
        if ev.seat != state.turn:
            raise TableError(say("en", "not_turn", turn=player_name(_colour(state, state.turn))("en"), seat=name("en")))
        if stuck_rule(state.variant) == "discard":
            raise TableError(say("en", "discard_one_per_turn"))
        card = movable_card(state, ev.seat)
        if card is not None:
            raise TableError(say("en", "can_still_play", card=card))
    elif ev.seat == state.card_seat and state.plays:
        # a real table: the referee cannot see the hand, only that the card shown could move
        note = both("sat_out_could_move", player=name, card=state.card)
    hands, seen = state.hands, state.seen
    if hands is not None:  # the hand is shown and laid down (at a real table the service does not see it)
        seen += known(hands[ev.seat])  # the cards this table saw: a hand of "?" shows it none
        hands = tuple(() if i == ev.seat else h for i, h in enumerate(hands))
    logs = _log(state, "out", ev.seat, text)
    if note is not None:
        logs = _log(replace(state, log=logs), "flag", ev.seat, note)
    new = replace(state, out=state.out | {ev.seat}, phase="play", log=logs, flag=None, hands=hands, gifts=(),
                  seen=seen)
    new = acted(state, new, "out", ev.seat, text)
    if ev.seat == state.card_seat:
        new = replace(new, card=None, card_seat=None, plays=(), hint=None)
    effects = [Effect("say", (), text)] + ([Effect("say", (), note)] if note is not None else [])
    if ev.seat == state.turn:
        return _advance(new, ev.seat, effects)
    return new, tuple(effects)


def _discard(state: TableState, ev: Discard) -> tuple[TableState, tuple[Effect, ...]]:
    """One card to the pile without a move: only where a rule says so.

    The engine's own "laid down without effect" play (a swap with no swap possible, in the
    editions that allow it) when that is all the card can do; otherwise a stuck player's
    discard: solo games discard one card and draw one, then one card instead of a turn
    (RULES.md §3.9); an edition whose stuck players discard one card per turn (Brändi Dog)
    draws none. A team game's stuck player lays the whole hand down instead (SitOut).
    """
    if state.card is None or state.card_seat is None:
        raise TableError("show the card to discard first")
    seat = state.card_seat
    void = [p for p in state.plays if board_key(p.result) == board_key(state.position)]
    if void and len(void) == len(state.plays) and not ev.redraw:
        return _accept(state, seat, void[0])  # the engine's own "laid down without effect" play
    rule = stuck_rule(state.variant)
    if rule == "lay_down" and state.position.is_team_game:
        raise TableError(say("en", "discard_team"))
    if ev.redraw and rule == "discard":
        raise TableError(say("en", "discard_one_per_turn"))
    if state.hands is not None:
        card = movable_card(state, seat)
        if card is not None:
            raise TableError(say("en", "can_still_play", card=card))
    elif state.plays:  # a real table: the card everybody sees can move
        raise TableError(say("en", "card_can_move", card=state.card))
    name = player_name(_colour(state, seat))
    text = both("discard_draw" if ev.redraw else "discard", player=name, card=state.card)
    played = _bump(state.played, seat)
    drawn = _bump(state.drawn, seat) if ev.redraw else state.drawn
    hands, stock = _take(state, seat, state.card, 1 if ev.redraw else 0)
    p = state.position
    new = replace(state, played=played, drawn=drawn, card=None, card_seat=None, plays=(), hint=None, flag=None,
                  log=_log(state, "discard", seat, text), hands=hands, stock=stock,
                  position=replace(p),
                  seen=state.seen + (state.card,))
    new = acted(state, new, "discard", seat, text, state.card)
    if ev.redraw:
        return dealt_from_deck(new, 1), (Effect("say", (), text),)
    return _advance(new, seat, [Effect("say", (), text)])


def _undo(state: TableState, ev: Undo) -> tuple[TableState, tuple[Effect, ...]]:
    """Take back the card just shown, else the latest action that stands (`TableState.history`).

    A player (`ev.seat`) takes back only their own latest action, and only while nothing came
    after it: what another seat did since stands (a bot's play among it), and only the host
    walks further back. The host takes back one action per undo, naming it in the log.
    """
    if ev.seat is not None:
        if ev.seat not in state.seats:
            raise TableError(f"seat {ev.seat} does not play in this game (seats: {list(state.seats)})")
        refusal = own_undo_refusal(state, ev.seat)
        if refusal is not None:
            raise TableError(refusal)
    if state.card is not None and state.card_seat is not None:
        # the card shown, nothing played with it: it goes back to the hand
        to = card_audience(state)
        text = both("card_back", player=player_name(_colour(state, state.card_seat)), card=state.card)
        return replace(state, card=None, card_seat=None, plays=(), hint=None, flag=None, verdict=None,
                       log=_log(state, "undo", state.card_seat, text, to)), (Effect("say", (), text, to),)
    last = state.history[-1] if state.history else None
    if last is None or last.before is None:
        text = both("nothing_to_undo")
        return replace(state, log=_log(state, "undo", None, text)), (Effect("say", (), text),)
    prev = last.before
    if last.notation is not None:  # a play: its words, and the notation that says it exactly
        text = {lang: both("undo_play", what=last.text[lang], play=last.notation)[lang] for lang in LANGS}
    else:
        text = {lang: both("undo", what=last.text[lang])[lang] for lang in LANGS}
    # keep the log and the mode: undo takes back an action, not what was said about it;
    # the disc stays where it physically is until someone turns it back (the encoder reports that)
    restored = replace(prev, mode=state.mode, log=_log(state, "undo", last.seat, text), card=None, card_seat=None,
                       plays=(), hint=None, flag=None, disc_delta=_delta(state, prev.position))
    return restored, (Effect("say", (), text),)


def _set_position(state: TableState, ev: SetPosition) -> tuple[TableState, tuple[Effect, ...]]:
    try:
        obj = json.loads(ev.position)
        pos = engine.parse_position(obj)
    except (json.JSONDecodeError, engine.EngineError) as exc:
        raise TableError(f"bad position: {exc}") from None
    old = state.position
    if pos.variant is not old.variant or pos.board is not old.board or pos.seats != old.seats:
        raise TableError("the corrected position must keep the game's edition, board and seats")
    if state.phase == "setup":
        text = both("setup_ok")
        # the game's first fact, not taken back (there is nothing before it to go back to)
        start = Action(state.seq, "start", None, state.round_no, text, position=pos)
        new = replace(state, position=pos, phase="exchange", flag=None, log=_log(state, "fix", None, text),
                      history=(start,))
        return _exchange_note(new, [Effect("ok", (), text)])
    text = both("corrected")
    plays = state.plays
    if state.card is not None and state.card_seat is not None:
        plays = offered_plays(pos, tuple(engine.legal_moves(pos, state.card, state.card_seat)))
    new = replace(state, position=pos, plays=plays, flag=None, disc_delta=0, log=_log(state, "fix", None, text),
                  phase="play" if state.phase == "over" and pos.winner() is None else state.phase)
    return acted(state, new, "fix", None, text, position=pos), (Effect("ok", (), text),)


def confirm_start(state: TableState, ev: BoardSettled) -> bool:
    """Whether a settled board shows the starting position the game expects."""
    seen = reading_to_position(state.position, dict(ev.fields), state.position.disc)
    return isinstance(seen, Position) and board_key(seen) == board_key(state.position)


def _board_or_setup(state: TableState, ev: BoardSettled) -> tuple[TableState, tuple[Effect, ...]]:
    if state.phase == "setup" and confirm_start(state, ev):
        text = both("setup_ok")
        new = replace(state, phase="exchange", flag=None, reading=ev.fields, log=_log(state, "fix", None, text))
        return _exchange_note(new, [Effect("ok", (), text)])
    return _board(state, ev)


def _set_turn(state: TableState, ev: SetTurn) -> tuple[TableState, tuple[Effect, ...]]:
    if ev.seat not in state.seats:
        raise TableError(f"seat {ev.seat} does not play in this game (seats: {list(state.seats)})")
    text = both("turn_set", player=player_name(_colour(state, ev.seat)))
    new = replace(state, turn=ev.seat, card=None, card_seat=None, plays=(), hint=None,
                  log=_log(state, "turn", ev.seat, text))
    return acted(state, new, "turn", None, text), ()


def _set_mode(state: TableState, ev: SetMode) -> tuple[TableState, tuple[Effect, ...]]:
    if ev.mode not in MODES:
        raise TableError(f"unknown mode '{ev.mode}' (choose {', '.join(MODES)})")
    hint = None  # leaving training drops the hint; an asked-for one would have to be asked again
    if ev.mode == "training" and state.card is not None and state.card_seat is not None:
        hint = safe_hint(state.position, state.plays, state.card_seat, state)
    text = {lang: both("mode", mode=both(f"mode_{ev.mode}")[lang])[lang] for lang in LANGS}
    return replace(state, mode=ev.mode, hint=hint, log=_log(state, "mode", None, text)), ()


def _ask_hint(state: TableState, ev: AskHint) -> tuple[TableState, tuple[Effect, ...]]:
    if state.card is None or state.card_seat is None:
        raise TableError("show a card first: the hint is the best play of the card in play")
    hint = safe_hint(state.position, state.plays, state.card_seat, state)
    if hint is None and not state.plays:
        text = both("no_play_card", player=player_name(_colour(state, state.card_seat)), card=state.card)
    elif hint is None:
        text = both("no_hint")
    else:
        text = {lang: both("hint", play=hint.words[lang], why=hint.why[lang])[lang] for lang in LANGS}
    to = holder_only(state, state.card_seat)  # the hint is advice for the card's holder
    return (replace(state, hint=hint, log=_log(state, "hint", state.card_seat, text, to)),
            (Effect("say", (), text, to),))


_HANDLERS = {
    CardSeen: _card_seen, BoardSettled: _board_or_setup, DiscTurned: _disc, ExchangeDone: _exchange,
    SitOut: _sit_out, Discard: _discard, Undo: _undo, SetPosition: _set_position, SetTurn: _set_turn,
    SetMode: _set_mode, AskHint: _ask_hint, Deal: _deal, CardGiven: _give, HandShown: show_hand,
}


def replay(setup: Setup, events: list[Event]) -> TableState:
    """Rebuild a game from its journal; an event that failed when it was live fails the same way."""
    state = new_state(setup)
    for ev in events:
        try:
            state, _ = apply(state, ev)
        except TableError as exc:
            log.warning("journal event %r no longer applies: %s", ev, exc)
    return state
