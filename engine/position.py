"""A position: where every piece stands, in the notation of NOTATION.md.

Locations are small integers so that move generation stays cheap:
track field i is `i`, home slot j of the piece's own seat is `HOME + j`, the kennel is
`KENNEL`. This order also sorts a seat's pieces as track, home, kennel.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from engine.errors import CardError, DataError, PositionError
from engine.locations import HOME, KENNEL, loc_name
from engine.messages import card_name, say
from engine.rulesdata import ALL_CARDS, DIRECTIONS, Board, Variant, get_variant, load_board

ROYAL_RANKS = ("king", "knight", "citizen", "fool")

_LOC_RE = re.compile(r"^(K|T(\d+)|H(\d+))$")
_KNOWN_KEYS = {"variant", "board", "pieces", "last_card", "black_dog", "disc", "direction", "moved_onto_start"}
CLOCKWISE, COUNTER_CLOCKWISE = DIRECTIONS


@dataclass(frozen=True)
class Seating:
    """Who plays and who partners whom, derived from which seats are occupied."""

    seats: tuple[int, ...]
    team_game: bool
    partner: tuple[int | None, ...]
    team: tuple[tuple[int, ...], ...]
    teams: tuple[tuple[int, ...], ...]

    # A value never changes: a copy may be the value itself (and must be for the compiled
    # engine, whose frozen classes cannot be rebuilt field by field the way `copy` does it).
    def __copy__(self) -> Seating:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Seating:
        return self


@functools.cache
def seating(occupied: tuple[bool, ...]) -> Seating:
    """4 players on 4 segments or 6 on 6 play in teams (opposite seats); otherwise solo."""
    size = len(occupied)
    seats = tuple(s for s, here in enumerate(occupied) if here)
    team_game = len(seats) in (4, 6) and len(seats) == size
    half = size // 2
    partner = tuple((s + half) % size if team_game else None for s in range(size))
    team = tuple(tuple(sorted((s, (s + half) % size))) if team_game else (s,) for s in range(size))
    teams = tuple(dict.fromkeys(team[s] for s in seats))
    return Seating(seats, team_game, partner, team, teams)


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable position. `pieces[s]` is seat s's tuple of locations, or None (empty seat).

    Outside `royal` each seat's tuple is sorted, so equal positions compare equal; in
    `royal` the order is [king, knight, citizen, fool].

    `direction` is the direction of play, turns and movement alike (RULES.md §2). Field numbers
    stay physical: counter-clockwise, a piece's forward steps go to lower numbers (`step` -1).
    `moved_onto_start` (editions with the rule "fresh_start_blocks", Brändi Dog): the start
    fields whose own piece got there by moving, not by coming out of the kennel: it does not
    block. Any other piece on its own start field blocks it, as in every Schmidt edition.
    """

    variant: Variant
    board: Board
    pieces: tuple[tuple[int, ...] | None, ...]
    last_card: str | None = None
    black_dog: int | None = None
    disc: int = 0
    direction: str = ""  # "": the edition's default direction (see __post_init__)
    moved_onto_start: frozenset[int] = frozenset()
    # Facts derived from the fields above, worked out when first asked and kept for the next
    # question about the same position: who plays with whom ("seating"), and the position read
    # into the engine's table ("table", see engine.table.position_table). A bot asks about one
    # position card after card. A dict, because the position itself is frozen; neither compared
    # nor copied (by dataclasses.replace: a changed position works its facts out anew).
    _derived: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # A position built without a direction is played the edition's way (Brändi Dog:
        # counter-clockwise), so code that rebuilds a position field by field keeps it right.
        if not self.direction:
            object.__setattr__(self, "direction", self.variant.default_direction)

    def __repr__(self) -> str:
        return f"Position({json.dumps(self.to_json())})"

    # A position never changes (what it keeps in `_derived` is worked out from it and read
    # only): a copy may be the position itself, as for Seating.
    def __copy__(self) -> Position:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        return self

    # --- seats and teams -------------------------------------------------------------
    @property
    def seating(self) -> Seating:
        found = self._derived.get("seating")
        if found is None:
            found = self._derived["seating"] = seating(tuple(p is not None for p in self.pieces))
        return found

    @property
    def seats(self) -> tuple[int, ...]:
        return self.seating.seats

    @property
    def players(self) -> int:
        return len(self.seating.seats)

    @property
    def is_team_game(self) -> bool:
        return self.seating.team_game

    def partner(self, seat: int) -> int | None:
        return self.seating.partner[seat]

    def team(self, seat: int) -> tuple[int, ...]:
        return self.seating.team[seat]

    def pieces_home(self, seat: int) -> int:
        n = 0
        for loc in self.pieces[seat] or ():
            if HOME <= loc < KENNEL:
                n += 1
        return n

    def is_finished(self, seat: int) -> bool:
        """All of the seat's pieces that can go home are home (then it plays for its partner)."""
        locs = self.pieces[seat]
        if locs is None:
            return False
        if self.seating.team_game:
            for loc in locs:
                if loc < HOME or loc >= KENNEL:
                    return False
            return True
        return self.pieces_home(seat) >= self.variant.solo_win_pieces

    def winner(self) -> tuple[int, ...] | None:
        """The winning team (or solo seat), or None while the game goes on."""
        # asked after every play of a game: a team is out at its first piece not home
        seating = self.seating
        for team in seating.teams:
            for s in team:
                if not self.is_finished(s):
                    break
            else:
                return team
        return None

    def colour(self, seat: int) -> str:
        return self.board.colours[seat]

    # --- direction of play -----------------------------------------------------------
    @property
    def step(self) -> int:
        """+1 clockwise, -1 counter-clockwise: what one step forward adds to a field number."""
        return -1 if self.direction == COUNTER_CLOCKWISE else 1

    def ahead(self, frm: int, to: int) -> int:
        """How many steps forward track field `to` lies from track field `frm` (0 .. L-1)."""
        return (self.step * (to - frm)) % self.board.track_length

    def forward(self, frm: int, k: int) -> int:
        """The track field k steps forward of `frm` (k < 0: backward)."""
        return (frm + self.step * k) % self.board.track_length

    @property
    def play_order(self) -> tuple[int, ...]:
        """The seats that play, in the order of the turns from the lowest seat: counter-clockwise
        the next seat is the one to the right, the previous seat number."""
        seats = self.seating.seats
        return seats if self.step > 0 else seats[:1] + seats[:0:-1]

    def next_seat(self, seat: int) -> int:
        """The seat whose turn follows `seat`'s (also whom a solo game's exchange goes to)."""
        order = self.play_order
        return order[(order.index(seat) + 1) % len(order)]

    def start_blocks(self, field: int) -> bool:
        """Whether track field `field` is a start field with its own piece on it that blocks it."""
        seat = self.board.start_owner.get(field)
        return (seat is not None and field not in self.moved_onto_start and self.pieces[seat] is not None
                and field in self.pieces[seat])

    # --- text form -------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "variant": self.variant.name,
            "board": self.board.segments,
            "pieces": [None if p is None else [loc_name(loc) for loc in p] for p in self.pieces],
            "last_card": self.last_card,
        }
        if self.variant.name == "black":
            out["black_dog"] = None if self.black_dog is None else loc_name(self.black_dog)
            out["disc"] = self.disc
        # said unless clockwise in an edition played clockwise by default: older readers see
        # what they always saw, and an edition played the other way by default says so
        if self.direction != CLOCKWISE or self.variant.default_direction != CLOCKWISE:
            out["direction"] = self.direction
        if self.moved_onto_start:
            out["moved_onto_start"] = [loc_name(f) for f in sorted(self.moved_onto_start)]
        return out

    def same_board(self, other: Position) -> bool:
        """Same pieces, black dog and disc: what a camera can see (ignores last_card)."""
        return (
            self.pieces == other.pieces
            and self.black_dog == other.black_dog
            and self.disc == other.disc
            and self.variant is other.variant
            and self.board is other.board
        )

    def field_occupancy(self) -> dict[str, str]:
        """What a camera sees: field id (engine.geometry) -> 's<seat>' or 'dog', occupied fields only.

        Kennel pieces fill the seat's kennel spots S<s>K0, S<s>K1, ... in order.
        """
        out: dict[str, str] = {}
        for seat, locs in enumerate(self.pieces):
            if locs is None:
                continue
            kennel = 0
            for loc in locs:
                if loc < HOME:
                    out[f"T{loc}"] = f"s{seat}"
                elif loc < KENNEL:
                    out[f"S{seat}H{loc - HOME}"] = f"s{seat}"
                else:
                    out[f"S{seat}K{kennel}"] = f"s{seat}"
                    kennel += 1
        if self.black_dog is not None:
            out[f"T{self.black_dog}"] = "dog"
        return out

    def occupant(self) -> dict[int, tuple[int, int]]:
        """Track field -> (seat, piece index)."""
        occ = {}
        for seat, locs in enumerate(self.pieces):
            if locs:
                for i, loc in enumerate(locs):
                    if loc < HOME:
                        occ[loc] = (seat, i)
        return occ


def after_play(before: Position, pieces: tuple[tuple[int, ...] | None, ...], last_card: str | None,
               black_dog: int | None, disc: int, moved_onto_start: frozenset[int] = frozenset()) -> Position:
    """The position a play leaves: the same seats play, so it starts out knowing its seating."""
    after = Position(before.variant, before.board, pieces, last_card, black_dog, disc, before.direction,
                     moved_onto_start)
    after._derived["seating"] = before.seating
    return after


def canonical(variant: Variant, locs: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    return tuple(locs) if variant.name == "royal" else tuple(sorted(locs))


def check_card(variant: Variant, card: object, lang: str = "en") -> str:
    if isinstance(card, str) and card in variant.cards:  # the usual case, one set lookup
        return card
    if not isinstance(card, str) or card not in ALL_CARDS:
        raise CardError(f"unknown card {card!r} (card ids: {', '.join(ALL_CARDS)})")
    cards = ", ".join(c for c, _ in variant.deck)
    instead = dict(variant.replaced).get(card)
    if instead is not None:  # e.g. Black DOG: "4 Black" is the partner card
        raise CardError(say(lang, "card_replaced", card=card, variant=variant.name, cards=cards,
                            name=card_name(instead, lang), instead=instead))
    raise CardError(say(lang, "card_not_in_deck", card=card, variant=variant.name, cards=cards))


def _parse_loc(text: object, board: Board, variant: Variant, where: str) -> int:
    if not isinstance(text, str):
        raise PositionError(f"{where}: {text!r} is not a location (use \"K\", \"T<i>\" or \"H<i>\")")
    m = _LOC_RE.match(text)
    if not m:
        raise PositionError(f"{where}: '{text}' is not a location (use \"K\", \"T<i>\" or \"H<i>\")")
    if m.group(2) is not None:
        i = int(m.group(2))
        if i >= board.track_length:
            raise PositionError(
                f"{where}: field T{i} does not exist (the {board.segments}-segment board has T0..T{board.track_length - 1})"
            )
        return i
    if m.group(3) is not None:
        j = int(m.group(3))
        if j >= variant.home_slots:
            raise PositionError(
                f"{where}: home slot H{j} does not exist ({variant.name} has H0..H{variant.home_slots - 1})"
            )
        return HOME + j
    return KENNEL


def parse_position(obj: Any) -> Position:
    """Build a Position from the JSON form of NOTATION.md; raise PositionError naming the problem."""
    if not isinstance(obj, dict):
        raise PositionError("a position must be a JSON object with 'variant' and 'pieces'")
    unknown = set(obj) - _KNOWN_KEYS
    if unknown:
        raise PositionError(f"unknown key(s) {', '.join(sorted(unknown))} (allowed: {', '.join(sorted(_KNOWN_KEYS))})")
    if "variant" not in obj:
        raise PositionError("the position has no 'variant' (classic, compact, royal-basic, royal or black)")
    try:
        variant = get_variant(obj["variant"]) if isinstance(obj["variant"], str) else None
    except Exception as exc:
        raise PositionError(str(exc)) from None
    if variant is None:
        raise PositionError(f"'variant' must be a string, not {obj['variant']!r}")
    pieces = obj.get("pieces")
    if not isinstance(pieces, list):
        raise PositionError("'pieces' must be a list with one entry (a list, or null) per seat")
    segments = obj.get("board", len(pieces))
    if segments not in (4, 6) or isinstance(segments, bool):
        raise PositionError(f"'board' must be 4 or 6 segments, not {segments!r}")
    if len(pieces) != segments:
        raise PositionError(f"'pieces' has {len(pieces)} seats but the board has {segments} segments")
    try:
        board = load_board(variant.board_kind, segments)
    except DataError as exc:
        raise PositionError(f"{variant.name} is not played on a {segments}-segment board ({exc})") from None
    players = sum(1 for p in pieces if p is not None)
    allowed = [n for n in variant.players if (n <= 4) == (segments == 4)]
    if players not in allowed:
        raise PositionError(
            f"{players} players cannot play {variant.name} on the {segments}-segment board (possible: {allowed})"
        )
    team_game = players in (4, 6) and players == segments
    counts = {variant.pieces} if team_game else {variant.pieces, variant.solo_pieces}
    seen: dict[int, str] = {}
    parsed: list[tuple[int, ...] | None] = []
    for seat, locs in enumerate(pieces):
        if locs is None:
            parsed.append(None)
            continue
        where = f"seat {seat} ({board.colours[seat]})"
        if not isinstance(locs, list):
            raise PositionError(f"{where}: pieces must be a list of locations or null")
        if len(locs) not in counts:
            raise PositionError(
                f"{where} has {len(locs)} pieces; {variant.name} uses {' or '.join(map(str, sorted(counts)))} per seat here"
            )
        out = []
        homes: set[int] = set()
        for text in locs:
            loc = _parse_loc(text, board, variant, where)
            if loc < HOME:
                if loc in seen:
                    raise PositionError(f"two pieces on field T{loc} ({seen[loc]} and {where}); a field holds one piece")
                seen[loc] = where
            elif loc < KENNEL:
                if loc in homes:
                    raise PositionError(f"{where}: two pieces in home slot {loc_name(loc)}")
                homes.add(loc)
            out.append(loc)
        parsed.append(canonical(variant, out))
    if not any(p is not None for p in parsed):
        raise PositionError("the position has no players (every seat is null)")
    lengths = {len(p) for p in parsed if p is not None}
    if len(lengths) > 1:
        raise PositionError("every seat must have the same number of pieces")
    if variant.name == "royal" and lengths != {4}:
        raise PositionError("royal needs 4 pieces per seat, in the order [king, knight, citizen, fool]")
    last_card = obj.get("last_card")
    if last_card is not None:
        try:
            check_card(variant, last_card)
        except CardError as exc:
            raise PositionError(f"last_card: {exc}") from None
    black_dog = None
    disc = 0
    if variant.name == "black":
        dog = obj.get("black_dog")
        if dog is not None:
            black_dog = _parse_loc(dog, board, variant, "black_dog")
            if black_dog >= HOME:
                raise PositionError("black_dog must stand on a track field T<i>")
            if black_dog in board.start_owner:
                raise PositionError(f"the black dog cannot stand on the start field T{black_dog}")
            if black_dog in seen:
                raise PositionError(f"the black dog and {seen[black_dog]}'s piece are both on T{black_dog}")
        disc = obj.get("disc", 0)
        if not isinstance(disc, int) or isinstance(disc, bool) or not 0 <= disc <= 3:
            raise PositionError(f"'disc' must be 0, 1, 2 or 3 (quarter turns), not {disc!r}")
    else:
        for key in ("black_dog", "disc"):
            if obj.get(key) not in (None, 0) or (key == "black_dog" and key in obj and obj[key] is not None):
                raise PositionError(f"'{key}' belongs to the black variant only; remove it for {variant.name}")
    direction = obj.get("direction", variant.default_direction)
    try:
        direction = variant.check_direction(direction)
    except DataError as exc:
        raise PositionError(str(exc)) from None
    moved = _parse_moved_onto_start(obj.get("moved_onto_start"), board, variant, parsed)
    return Position(variant, board, tuple(parsed), last_card, black_dog, disc, direction, moved)


def _parse_moved_onto_start(value: object, board: Board, variant: Variant,
                            pieces: list[tuple[int, ...] | None]) -> frozenset[int]:
    if value is None:
        return frozenset()
    if "fresh_start_blocks" not in variant.rules:
        raise PositionError(f"'moved_onto_start' belongs to editions where only a freshly started piece blocks "
                            f"its start field (brandi); remove it for {variant.name}")
    if not isinstance(value, list):
        raise PositionError("'moved_onto_start' must be a list of start fields \"T<i>\"")
    out = set()
    for text in value:
        f = _parse_loc(text, board, variant, "moved_onto_start")
        seat = board.start_owner.get(f)
        if seat is None or f >= HOME:
            raise PositionError(f"moved_onto_start: {text!r} is not a start field")
        if pieces[seat] is None or f not in (pieces[seat] or ()):
            raise PositionError(f"moved_onto_start: no {board.colours[seat]} piece stands on its start field {text}")
        out.add(f)
    return frozenset(out)
