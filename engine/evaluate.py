"""How good a position is for a team, in named terms a hint can put into words.

The score is the own team's terms minus the other teams' (RULES.md §2 teams; solo: each
seat its own team). The terms carry DOG knowledge a progress count lacks:

- progress: fields covered since the start field, a bonus for being out of the kennel;
- home: pieces in the home, deeper slots a little better (they leave room behind);
- danger: each piece's expected loss to the pieces behind it (1–13 fields: the cards that
  reach it), a 4 backwards from 4 fields ahead, a start card when it stands on another
  seat's start field, the black dog; weighted by the chance that the seat holds such a
  card, from the cards not yet seen this deck (card counting, `Knowledge`);
- blocking: an own piece parked on its start field while pieces wait in the kennel;
- hand (own seat only): the cards kept for later (start cards while pieces wait in the
  kennel, a 4 for a piece that can go home backwards, the 7, the joker).

Pure and deterministic: no clock, no randomness.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.moves import BLACK_CARDS, CARD_STEPS, SPLIT_POINTS, START_CARDS
from engine.position import HOME, KENNEL, Position

OUT = 12.0  # a piece out of the kennel, before its first step
HOME_BASE = 24.0  # a piece in the home, on top of the track length
HOME_SLOT = 3.0  # per slot deeper into the home
BLOCKING = 6.0  # own piece on the own start field while others wait in the kennel
DANGER = 0.85  # share of a piece's value an opponent's capture chance costs
OPPORTUNITY = 0.6  # the same for the other teams' pieces our team threatens
LEADER = 0.5  # several other teams: this share of their weight is spread evenly, the rest is the leader's
MAX_REACH = 13  # the farthest a single card moves a piece

# What a card still in hand is worth (tempo): kept for its use later.
KEEP_START = 9.0  # per start card, up to the pieces waiting in the kennel
KEEP_FOUR_HOME = 14.0  # a 4 for a piece just past its start: 4 back, then home at once
KEEP_CARD = {"joker": 7.0, "7": 5.0, "4": 2.0, "swap": 2.0, "copy": 2.0, "partner": 3.0, "1-7": 2.0,
             "black-1-7": 2.5, "magnet": 1.0}


def card_reach(card: str, variant) -> tuple[frozenset[int], bool, bool]:
    """(forward distances a card can move one piece exactly, 4 backwards?, starts a piece?)"""
    if card == "joker":
        out: set[int] = set()
        back = start = False
        for other, _ in variant.deck:
            if other != "joker":
                r, b, s = card_reach(other, variant)
                out |= r
                back |= b
                start |= s
        return frozenset(out), back, start
    steps = set(CARD_STEPS.get(card, ())) | set(BLACK_CARDS.get(card, ()))
    if card in SPLIT_POINTS and (card != "7" or "seven_split" in variant.rules):
        steps |= set(range(1, SPLIT_POINTS[card] + 1))  # the 7 also burns what it passes
    return frozenset(steps), card == "4" and "four_backward" in variant.rules, card in START_CARDS


@dataclass
class Threat:
    """A seat's chances to hold a card for each job before it is our turn again."""

    forward: tuple[float, ...]  # index d (1..13): can move a piece exactly d forward (or burn past it)
    back4: float
    start: float
    black: float  # moves the black dog (1–7 fields)


@dataclass(frozen=True)
class SeatView:
    """What one seat knows at its turn: the board, its hand, the cards seen, the others' hand sizes.

    A bot gets this (or a `Game`, which holds it all) so that card counting and the look-ahead
    work where there is no `Game`, e.g. the service's simulated table.
    """

    position: Position
    hand: tuple[str, ...]
    seen: tuple[str, ...] = ()  # every card played, discarded or shown since the deck was last shuffled
    hand_sizes: tuple[tuple[int, int], ...] = ()  # (seat, cards held) of every seat
    round_no: int = 0
    gift: str | None = None  # the card this seat gave its partner this round, if any

    @classmethod
    def of_game(cls, game, seat: int, gift: str | None = None) -> SeatView:
        return cls(game.position, tuple(game.hands.get(seat, ())), tuple(game.discard),
                   tuple((s, len(h)) for s, h in game.hands.items()), game.round_no, gift)

    def knowledge(self) -> Knowledge:
        return Knowledge(self.position.variant, self.hand, self.seen, dict(self.hand_sizes), self.gift)


class Knowledge:
    """What a seat knows about the cards: its own hand, the unseen cards, the others' hand sizes.

    The unseen cards are the deck's composition less the discard pile (everything played or
    shown since the last reshuffle) and the own hand. A seat's hand is a draw from them.
    """

    def __init__(self, variant, hand: list[str] | tuple[str, ...], discard=(), hand_sizes: dict[int, int] | None = None,
                 partner_gift: str | None = None) -> None:
        self.variant = variant
        self.hand = tuple(hand)
        unseen = Counter({card: count for card, count in variant.deck})
        unseen.subtract(discard)
        unseen.subtract(self.hand)
        self.unseen = {card: n for card, n in unseen.items() if n > 0}
        self.total = sum(self.unseen.values())
        self.hand_sizes = dict(hand_sizes or {})
        self.partner_gift = partner_gift  # the card we gave our partner this round, if still known
        self._reach = {card: card_reach(card, variant) for card, _ in variant.deck}
        self._threats: dict[tuple[int, str | None], Threat] = {}

    def chance(self, covering: int, drawn: int) -> float:
        """Probability that `drawn` cards from the unseen ones include one of `covering` kinds."""
        total = self.total
        if covering <= 0 or drawn <= 0 or total <= 0:
            return 0.0
        miss = 1.0
        for i in range(drawn):
            if total - i <= 0:
                break
            miss *= max(0.0, (total - covering - i) / (total - i))
        return 1.0 - miss

    def threat(self, seat: int, default_size: int = 4, known: str | None = None) -> Threat:
        """The chances for a seat with `hand_sizes[seat]` unknown cards (plus a `known` one)."""
        size = self.hand_sizes.get(seat, default_size)
        key = (size, known)
        found = self._threats.get(key)
        if found is not None:
            return found
        drawn = size - (1 if known else 0)
        fwd_counts = [0] * (MAX_REACH + 1)
        back = start = black = 0
        for card, n in self.unseen.items():
            reach, b, s = self._reach[card]
            for d in reach:
                if d <= MAX_REACH:
                    fwd_counts[d] += n
            back += n if b else 0
            start += n if s else 0
            black += n if card in BLACK_CARDS else 0
        sure = self._reach.get(known, (frozenset(), False, False)) if known else (frozenset(), False, False)
        fwd = tuple(1.0 if d in sure[0] else self.chance(fwd_counts[d], drawn) for d in range(MAX_REACH + 1))
        found = Threat(fwd, 1.0 if sure[1] else self.chance(back, drawn), 1.0 if sure[2] else self.chance(start, drawn),
                       1.0 if known in BLACK_CARDS else self.chance(black, drawn))
        self._threats[key] = found
        return found

    def own_threat(self, hand: tuple[str, ...] | list[str]) -> Threat:
        """The same for a hand we know."""
        fwd = [0.0] * (MAX_REACH + 1)
        back = start = black = 0.0
        for card in hand:
            reach, b, s = self._reach.get(card, (frozenset(), False, False))
            for d in reach:
                if d <= MAX_REACH:
                    fwd[d] = 1.0
            back = max(back, 1.0 if b else 0.0)
            start = max(start, 1.0 if s else 0.0)
            black = max(black, 1.0 if card in BLACK_CARDS else 0.0)
        return Threat(tuple(fwd), back, start, black)


def piece_value(loc: int, start: int, L: int, step: int = 1) -> float:
    """What a piece is worth by how far it has come from its start field (`step`: +1 when the
    game goes clockwise, -1 counter-clockwise)."""
    if loc >= KENNEL:
        return 0.0
    if loc >= HOME:
        return L + HOME_BASE + HOME_SLOT * (loc - HOME)
    return OUT + (step * (loc - start)) % L


TERMS = ("progress", "home", "danger", "opportunity", "blocking", "hand")


def mover_of(pos: Position, seat: int) -> int:
    """Whose pieces a seat's cards move: its own, or the partner's once its own are all home."""
    partner = pos.partner(seat)
    locs = pos.pieces[seat] or ()
    if partner is not None and locs and all(HOME <= x < KENNEL for x in locs):
        return partner
    return seat


def terms(pos: Position, seat: int, know: Knowledge, hand_after: tuple[str, ...] | list[str] | None = None,
          own_threat: Threat | None = None) -> dict[str, float]:
    """The named terms of the position for `seat`'s team (own minus others); their sum is the score.

    `hand_after`: the seat's cards after the play being judged (None: the hand term is 0).
    `own_threat`: what the seat itself can do next turn (from its known hand); the partner and
    the other seats are judged from the unseen cards.
    """
    board = pos.board
    L = board.track_length
    step = pos.step  # the way the pieces go: distances are counted that way
    seating = pos.seating
    pieces = pos.pieces
    starts = board.start_fields
    team_of = seating.team
    my_team = team_of[seat]
    # threats: each playing seat's chances, applied to the pieces its cards move
    threat_by_mover: dict[int, list[Threat]] = {}
    for s in seating.seats:
        if s == seat and own_threat is not None:
            t = own_threat
        else:
            known = know.partner_gift if s == seating.partner[seat] else None
            t = know.threat(s, known=known)
        threat_by_mover.setdefault(mover_of(pos, s), []).append(t)
    # protected fields: own piece on own start field (Brändi: freshly started)
    blocked = [f for f in starts if pos.start_blocks(f)]
    track: list[tuple[int, int]] = []  # (field, seat) of every piece on the track
    kings: dict[int, int] = {}  # royal: track field -> seat of the king standing there
    rank_at: dict[int, int] = {}  # royal: track field -> rank index of the piece there (0 king .. 3 fool)
    for s in seating.seats:
        for index, loc in enumerate(pieces[s]):
            if loc < HOME:
                track.append((loc, s))
                rank_at[loc] = index
                if index == 0:
                    kings[loc] = s
    dog = pos.black_dog
    black_chance = 0.0
    if dog is not None:
        miss = 1.0
        for s in seating.seats:
            if team_of[s] != my_team:
                miss *= 1.0 - know.threat(s).black
        black_chance = 1.0 - miss

    ranked = "ranks" in pos.variant.rules
    # per team: (progress, home, expected loss, blocking)
    per_team: dict[tuple[int, ...], list[float]] = {team: [0.0, 0.0, 0.0, 0.0] for team in seating.teams}
    for s in seating.seats:
        acc = per_team[team_of[s]]
        start = starts[s]
        kennel = 0
        for index, loc in enumerate(pieces[s]):
            if loc >= KENNEL:
                kennel += 1
                continue
            if loc >= HOME:
                acc[1] += piece_value(loc, start, L, step)
                continue
            value = piece_value(loc, start, L, step)
            acc[0] += value
            if loc == start:
                continue  # protected
            king = ranked and index == 0  # royal: a king falls only to a king (or on a start field)
            # the chance it is captured before its owner's team moves it again
            miss = 1.0
            for f, a in track:
                if team_of[a] == team_of[s] or f == loc or (king and kings.get(f) is None):
                    continue
                threats = threat_by_mover.get(a)
                if not threats:
                    continue
                d = (step * (loc - f)) % L
                if d <= MAX_REACH:
                    if not any(0 < (step * (b - f)) % L < d for b in blocked):
                        # royal: a higher rank on the way lets only the green cards (4, 10) pass
                        green_only = ranked and any(rank_at.get((f + step * i) % L, 9) < rank_at[f] for i in range(1, d))
                        if not green_only or d in (4, 10):
                            for t in threats:
                                miss *= 1.0 - t.forward[d]
                elif L - d == 4:  # 4 backwards from 4 fields ahead
                    if not any(0 < (step * (f - b)) % L < 4 for b in blocked):
                        for t in threats:
                            miss *= 1.0 - t.back4
            owner = board.start_owner.get(loc)
            if owner is not None and team_of[owner] != team_of[s] and pieces[owner] is not None and KENNEL in pieces[owner]:
                for t in threat_by_mover.get(owner, ()):
                    miss *= 1.0 - t.start
            if dog is not None and 0 < (step * (loc - dog)) % L <= 7 + 1:
                miss *= 1.0 - black_chance
            acc[2] += (1.0 - miss) * value
        if kennel and start in pieces[s]:
            acc[3] += BLOCKING
    # the other teams: the leading one counts most (solo games with 3 or more seats)
    own = per_team[my_team]
    others = [acc for team, acc in per_team.items() if team != my_team]
    if len(others) == 1:
        weights = [1.0]
    else:
        totals = [a[0] + a[1] - DANGER * a[2] - a[3] for a in others]
        lead = totals.index(max(totals))
        share = LEADER / len(others)
        weights = [(1.0 - LEADER) + share if i == lead else share for i in range(len(others))]  # sum 1
    score = {name: 0.0 for name in TERMS}
    score["progress"] = own[0] - sum(w * a[0] for w, a in zip(weights, others))
    score["home"] = own[1] - sum(w * a[1] for w, a in zip(weights, others))
    score["danger"] = -DANGER * own[2]
    score["opportunity"] = OPPORTUNITY * sum(w * a[2] for w, a in zip(weights, others))
    score["blocking"] = -own[3] + sum(w * a[3] for w, a in zip(weights, others))
    if hand_after is not None:
        score["hand"] = hand_value(pos, seat, hand_after)
    return score


def hand_value(pos: Position, seat: int, hand: tuple[str, ...] | list[str]) -> float:
    """What the cards still in hand are worth for later turns (tempo)."""
    if not hand:
        return 0.0
    mover = mover_of(pos, seat)
    locs = pos.pieces[mover]
    L = pos.board.track_length
    start = pos.board.start_field(mover)
    kennel = sum(1 for x in locs if x >= KENNEL)
    starters = sum(1 for c in hand if c in START_CARDS)
    value = KEEP_START * min(kennel, starters)
    jokers = sum(1 for c in hand if c == "joker")
    spare_kennel = max(0, kennel - starters)
    value += (KEEP_START + 1.0) * min(spare_kennel, jokers) + KEEP_CARD["joker"] * max(0, jokers - spare_kennel)
    fours = sum(1 for c in hand if c == "4")
    if fours and "four_backward" in pos.variant.rules:
        near = sum(1 for x in locs if x < HOME and 0 <= pos.ahead(start, x) <= 3)
        value += KEEP_FOUR_HOME * min(near, fours)
    for c in hand:
        if c != "joker":
            value += KEEP_CARD.get(c, 0.0)
    return value


def quick_score(pos: Position, seat: int) -> float:
    """Progress only (own team minus the others' mean): cheap, for the opponents' replies in a look-ahead."""
    board = pos.board
    L = board.track_length
    seating = pos.seating
    mine = seating.team[seat]
    own = other = 0.0
    for s in seating.seats:
        start = board.start_fields[s]
        value = sum(piece_value(loc, start, L, pos.step) for loc in pos.pieces[s])
        if seating.team[s] == mine:
            own += value
        else:
            other += value
    return own - other / (len(seating.teams) - 1)


def evaluate(pos: Position, seat: int, know: Knowledge, hand_after=None, own_threat: Threat | None = None) -> float:
    return sum(terms(pos, seat, know, hand_after, own_threat).values())
