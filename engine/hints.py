"""Hints that teach: the best play, the next best, and why one is better, in words.

The plays are ranked by the club bot's evaluation (engine.evaluate). The reason for the
best play is the plainest thing it does (a capture, a piece home, a 4 backwards to just
in front of the home, a piece out, a card kept, the partner helped, a piece out of
danger); why the next best is worse comes from the evaluation term that separates the two
(a piece left in front of an opponent, a start card or a 4 spent, fewer fields, ...).
Texts are engine.messages keys `hint_*` / `worse_*`, so every language the referee speaks
can say them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine import messages
from engine.evaluate import MAX_REACH, Knowledge, mover_of, piece_value, terms
from engine.moves import START_CARDS, Play
from engine.position import HOME, KENNEL, Position
from engine.strongbot import DRAW, option_scores, without

# a term must separate the two plays by this much before it is named as the reason
CLEAR = 2.0


@dataclass(frozen=True)
class Reason:
    """A message key and its arguments; ("piece", (colour, loc)) arguments name a piece."""

    key: str
    args: tuple[tuple[str, object], ...] = ()

    def text(self, lang: str) -> str:
        kw: dict[str, object] = {}
        for name, value in self.args:
            if isinstance(value, tuple) and len(value) == 2 and name in ("piece", "attacker"):
                kw[name] = messages.piece(value[0], value[1], lang)
            elif name == "player":
                kw[name] = messages.player(str(value), lang)
            else:
                kw[name] = value
        return messages.say(lang, self.key, **kw)


@dataclass(frozen=True)
class Hint:
    card: str
    play: Play
    reason: Reason
    second: tuple[str, Play] | None = None
    worse: Reason | None = None
    score_gap: float = 0.0
    fields: tuple[int, ...] = field(default=())

    def text(self, lang: str) -> str:
        """Why, as a phrase that follows "because it" ("denn das"): the reason, then the next best;
        in a counter-clockwise game, which way forward goes (its field numbers then fall)."""
        out = self.reason.text(lang)
        if self.second is not None and self.worse is not None:
            out += messages.say(lang, "hint_second", play=self.second[1].notation, why=self.worse.text(lang))
        if self.play.result.step < 0:
            out = messages.say(lang, "hint_ccw", hint=out)
        return out


def explain(pos: Position, seat: int, options: list[tuple[str, Play]], know: Knowledge | None = None) -> Hint | None:
    """The best of `options` for `seat` in `pos`, with the reasons; None without options.

    `know`: what the seat knows of the cards (its hand, the discards); by default the
    hand is the options' cards and nothing else has been seen.
    """
    if not options:
        return None
    if know is None:
        know = Knowledge(pos.variant, list(dict.fromkeys(card for card, _ in options)))
    scores = option_scores(know, seat, options)
    order = sorted(range(len(options)), key=lambda i: (-scores[i], i))
    card, play = options[order[0]]
    # the next best play that leaves a different position (a joker's twins say nothing)
    second = next((options[i] for i in order[1:] if options[i][1].result.pieces != play.result.pieces), None)
    reason = _why_good(pos, seat, card, play, second, know)
    if second is None:
        return Hint(card, play, reason)
    worse = _why_worse(pos, seat, (card, play), second, know)
    gap = scores[order[0]] - next(scores[i] for i in order if options[i] is second)
    return Hint(card, play, reason, second, worse, gap)


# --- what a play does -----------------------------------------------------------------
def _changes(before: Position, after: Position, s: int) -> tuple[list[int], list[int]]:
    """Locations a seat's pieces left and reached (royal keeps rank order; others compare as sets)."""
    old = list(before.pieces[s] or ())
    new = list(after.pieces[s] or ())
    if before.variant.name == "royal":
        pairs = [(a, b) for a, b in zip(old, new) if a != b]
        return [a for a, _ in pairs], [b for _, b in pairs]
    left = list(old)
    reached = []
    for loc in new:
        if loc in left:
            left.remove(loc)
        else:
            reached.append(loc)
    return left, reached


def _captured(pos: Position, after: Position, seat: int) -> list[tuple[int, int]]:
    """(seat, field) of the other teams' pieces sent to the kennel."""
    team = pos.team(seat)
    out = []
    for s in pos.seats:
        if s in team:
            continue
        left, reached = _changes(pos, after, s)
        if KENNEL in reached:
            out += [(s, loc) for loc in left if loc < HOME]
    return out


def _own_progress(pos: Position, seats) -> float:
    L = pos.board.track_length
    return sum(piece_value(loc, pos.board.start_field(s), L, pos.step) for s in seats for loc in pos.pieces[s] or ())


def _four_home_piece(pos: Position, mover: int) -> int | None:
    """A piece of `mover` 0–3 fields past its start field: a 4 backwards puts it just in front of home."""
    if "four_backward" not in pos.variant.rules:
        return None
    start = pos.board.start_field(mover)
    for loc in pos.pieces[mover] or ():
        if loc < HOME and 0 <= pos.ahead(start, loc) <= 3:
            return loc
    return None


def _why_good(pos: Position, seat: int, card: str, play: Play, second, know: Knowledge) -> Reason:
    after = play.result
    colours = pos.board.colours
    captured = _captured(pos, after, seat)
    if captured:
        s, loc = captured[0]
        return Reason("hint_capture", (("piece", (colours[s], loc)),))
    mover = mover_of(pos, seat)
    team = pos.team(seat)
    for s in team:
        left, reached = _changes(pos, after, s)
        homes = [loc for loc in reached if HOME <= loc < KENNEL]
        if homes and sum(1 for x in after.pieces[s] if HOME <= x < KENNEL) > pos.pieces_home(s):
            return Reason("hint_home", (("piece", (colours[s], left[0] if left else homes[0])),))
    left, reached = _changes(pos, after, mover)
    if play.as_card == "4" and "back" in play.notation and reached:
        dest = reached[0]
        if dest < HOME and pos.ahead(dest, pos.board.start_field(mover)) <= 4:
            return Reason("hint_back4", (("piece", (colours[mover], left[0])), ("field", f"T{dest}")))
    if KENNEL in left:
        return Reason("hint_start")
    if second is not None:
        kept = _spent_reason(pos, seat, second[0], card, know)
        if kept is not None:
            return kept
    # a partner's piece that moved (a finished seat plays for its partner); a card that moved
    # only another seat's piece (Black DOG's partner card may) helps nobody's piece by name
    helped = [s for s in ([mover] if mover != seat else []) + [s for s in team if s != seat]
              if _changes(pos, after, s)[0]]
    if helped:
        s = helped[0]
        l2, r2 = _changes(pos, after, s)
        return Reason("hint_partner", (("piece", (colours[s], l2[0])), ("field", messages.place(r2[0], "en") if r2 else "")))
    before = terms(pos, seat, know)["danger"]
    now = terms(after, seat, know)["danger"]
    if now - before > CLEAR and left:
        return Reason("hint_safe", (("piece", (colours[mover], left[0])),))
    gain = round(_own_progress(after, team) - _own_progress(pos, team))
    if gain > 0 and left:
        return Reason("hint_advance", (("piece", (colours[mover], left[0])), ("n", gain)))
    return Reason("hint_best")


def _spent_reason(pos: Position, seat: int, spent: str, kept: str, know: Knowledge, worse: bool = False) -> Reason | None:
    """Why keeping the card `spent` (played by the other option) is worth more than `kept`."""
    if spent == kept:
        return None
    mover = mover_of(pos, seat)
    colours = pos.board.colours
    hand = know.hand
    if spent not in hand or kept not in hand:
        return None
    kennel = sum(1 for x in pos.pieces[mover] if x >= KENNEL)
    starts_left = sum(1 for c in without(hand, spent) if c in START_CARDS)
    if (spent in START_CARDS or spent == "joker") and kennel and starts_left < kennel:
        return Reason("worse_spends_start" if worse else "hint_keep_start")
    if spent == "4":
        loc = _four_home_piece(pos, mover)
        if loc is not None:
            return Reason("worse_spends_four" if worse else "hint_keep_four", (("piece", (colours[mover], loc)),))
    if spent in ("7", "joker"):
        return Reason("worse_spends_card" if worse else "hint_keep_card", (("card", spent),))
    return None


# --- why the next best is worse -------------------------------------------------------
def _why_worse(pos: Position, seat: int, best: tuple[str, Play], second: tuple[str, Play], know: Knowledge) -> Reason:
    colours = pos.board.colours
    team = pos.team(seat)
    a, b = best[1].result, second[1].result
    cap_a, cap_b = _captured(pos, a, seat), _captured(pos, b, seat)
    missed = [c for c in cap_a if c not in cap_b]
    if missed:
        s, loc = missed[0]
        return Reason("worse_no_capture", (("piece", (colours[s], loc)),))
    home_a = sum(a.pieces_home(s) for s in team)
    home_b = sum(b.pieces_home(s) for s in team)
    if home_a > home_b:
        return Reason("worse_no_home")
    hand_a, hand_b = without(know.hand, best[0]), without(know.hand, second[0])
    ta = terms(a, seat, know, hand_a, know.own_threat(hand_a))
    tb = terms(b, seat, know, hand_b, know.own_threat(hand_b))
    diff = {k: ta[k] - tb[k] for k in ta}
    diff["draws"] = DRAW * (best[1].draws - second[1].draws)
    term = max(diff, key=lambda k: diff[k])
    if diff[term] < CLEAR:
        return Reason("worse_close")
    if term == "danger":
        found = _exposed(b, seat)
        if found is not None:
            return found
        return Reason("worse_danger")
    if term == "hand":
        spent = _spent_reason(pos, seat, second[0], best[0], know, worse=True)
        if spent is not None:
            return spent
    if term == "blocking":
        return Reason("worse_blocking")
    if term == "opportunity":
        return Reason("worse_threat")
    if term == "draws":
        return Reason("worse_draw")
    partner = pos.partner(seat)
    if partner is not None:
        pa, pb = _own_progress(a, (partner,)), _own_progress(b, (partner,))
        if pa - pb >= CLEAR and _own_progress(a, (seat,)) <= _own_progress(b, (seat,)):
            return Reason("worse_partner")
    n = round(_own_progress(a, team) - _own_progress(b, team))
    if n > 0:
        return Reason("worse_progress", (("n", n),))
    return Reason("worse_close")


def _exposed(pos: Position, seat: int) -> Reason | None:
    """The own team's piece most exposed: on a start field with pieces waiting behind it, or
    the nearest other team's piece 1–13 fields behind it."""
    colours = pos.board.colours
    team = pos.team(seat)
    best = None
    for s in team:
        for loc in pos.pieces[s]:
            if loc >= HOME or loc == pos.board.start_field(s):
                continue
            owner = pos.board.start_owner.get(loc)
            if owner is not None and owner not in team and KENNEL in (pos.pieces[owner] or ()):
                return Reason("worse_start_field", (("piece", (colours[s], loc)), ("player", colours[owner])))
            for o in pos.seats:
                if o in team:
                    continue
                for f in pos.pieces[o]:
                    if f < HOME:
                        d = pos.ahead(f, loc)
                        if 0 < d <= MAX_REACH and (best is None or d < best[0]):
                            best = (d, s, loc, o, f)
    if best is None:
        return None
    d, s, loc, o, f = best
    return Reason("worse_danger_at", (("piece", (colours[s], loc)), ("n", d), ("attacker", (colours[o], f))))
