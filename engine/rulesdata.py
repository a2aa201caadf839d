"""Boards, decks and editions as data: loaded from `engine/data/`, validated on load.

Everything a user might need to correct (deck sizes, colours, special fields) lives in the
TOML files; a mistake there is reported as `DataError` naming the file, the key and the
problem. Loading happens once per process (the files are part of the package).
"""
from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.errors import DataError

ALL_CARDS = (
    "1/11", "2", "3", "4", "5", "6", "7", "8", "9", "10", "12", "13", "swap", "joker",
    "1-7", "magnet", "copy", "partner", "black-1-7", "black-5", "black-6",
)


# eq=False: boards and variants are loaded once, so identity is equality (and cheap).
@dataclass(frozen=True, eq=False)
class Board:
    """Topology of one board: track length, start fields, seat colours, special fields."""

    kind: str
    segments: int
    segment_length: int
    start_offset: int
    colours: tuple[str, ...]
    # Royal: fields that draw a card when landed on actively. Black: the disc.
    special_fields: frozenset[int] = frozenset()
    disc_fields: tuple[int, ...] = ()
    paw_fields: frozenset[int] = frozenset()
    paw_colours: tuple[tuple[int, str], ...] = ()
    disc_shift: int = 0  # track fields a clockwise quarter turn carries a disc field forward

    def __repr__(self) -> str:
        return f"Board({self.kind!r}, {self.segments})"

    @property
    def track_length(self) -> int:
        return self.segments * self.segment_length

    def start_field(self, seat: int) -> int:
        return seat * self.segment_length + self.start_offset

    @functools.cached_property
    def start_fields(self) -> tuple[int, ...]:
        return tuple(self.start_field(s) for s in range(self.segments))

    @functools.cached_property
    def start_owner(self) -> dict[int, int]:
        """Track field -> the seat whose start field it is."""
        return {self.start_field(s): s for s in range(self.segments)}

    def field_ids(self, home_slots: int, kennel_spots: int = 0) -> list[str]:
        """Field ids (see engine.geometry): track, then each seat's home slots and kennel spots."""
        ids = [f"T{i}" for i in range(self.track_length)]
        for seat in range(self.segments):
            ids += [f"S{seat}H{j}" for j in range(home_slots)]
            ids += [f"S{seat}K{j}" for j in range(kennel_spots)]
        return ids


@dataclass(frozen=True, eq=False)
class Variant:
    """One edition's rules parameters (RULES.md §1)."""

    name: str
    title: str
    board_kind: str
    deck: tuple[tuple[str, int], ...]  # (card id, count), deck file order
    pieces: int
    solo_pieces: int
    home_slots: int
    players: tuple[int, ...]
    cards_per_round: tuple[int, ...]
    solo_win_pieces: int
    rules: frozenset[str] = frozenset()
    start_on_field: str = "solo"  # "solo": only solo games begin with a piece out; "all": every game
    # cards of the classic game this deck has not, each with the card that takes its place
    replaced: tuple[tuple[str, str], ...] = ()
    # the directions of play the rulebook allows, its default first (see DIRECTIONS)
    directions: tuple[str, ...] = ("clockwise",)
    # why a direction the rulebook does not allow is refused, in one sentence
    direction_note: str = ""
    # what a player who cannot play does: "lay_down" the whole hand (Schmidt), or "discard"
    # one card per turn (Brändi Dog)
    stuck: str = "lay_down"

    def __repr__(self) -> str:
        return f"Variant({self.name!r})"

    @functools.cached_property
    def cards(self) -> frozenset[str]:
        return frozenset(card for card, _ in self.deck)

    @property
    def default_direction(self) -> str:
        return self.directions[0]

    def check_direction(self, direction: object) -> str:
        """`direction` if this edition may be played that way; DataError with the reason if not."""
        if direction not in DIRECTIONS:
            raise DataError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
        if direction not in self.directions:
            raise DataError(self.direction_note or f"{self.name} is not played {direction}")
        return str(direction)

    @property
    def deck_size(self) -> int:
        return sum(n for _, n in self.deck)

    def board(self, segments: int) -> Board:
        return load_board(self.board_kind, segments)


def _read_toml(name: str) -> dict[str, Any]:
    path = resources.files("engine") / "data" / name
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise DataError(f"engine data file {name} is missing; reinstall dogtable") from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"engine data file {name} is not valid TOML: {exc}") from None


def _need(table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in table:
        raise DataError(f"{where}: key '{key}' is missing")
    value = table[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise DataError(f"{where}: key '{key}' has the wrong type ({type(value).__name__})")
    return value


def _int_list(table: dict[str, Any], key: str, where: str, lo: int = 0) -> tuple[int, ...]:
    values = _need(table, key, list, where)
    if not values or not all(isinstance(v, int) and not isinstance(v, bool) and v >= lo for v in values):
        raise DataError(f"{where}: key '{key}' must be a non-empty list of whole numbers >= {lo}")
    return tuple(values)


@functools.cache
def load_deck(name: str) -> tuple[tuple[str, int], ...]:
    fname = f"decks/{name}.toml"
    data = _read_toml(fname)
    cards = _need(data, "cards", dict, fname)
    deck = []
    for card, count in cards.items():
        if card not in ALL_CARDS:
            raise DataError(f"{fname}: card '{card}' is not a DOG card (known: {', '.join(ALL_CARDS)})")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise DataError(f"{fname}: count of '{card}' must be a whole number >= 0")
        if count:
            deck.append((card, count))
    if not deck:
        raise DataError(f"{fname}: the deck has no cards")
    return tuple(deck)


@functools.cache
def load_replaced(name: str) -> tuple[tuple[str, str], ...]:
    """The deck file's optional [replaces] table: card id missing -> card id in its place."""
    fname = f"decks/{name}.toml"
    data = _read_toml(fname)
    table = data.get("replaces", {})
    if not isinstance(table, dict):
        raise DataError(f"{fname}: 'replaces' must be a table of card = card that takes its place")
    cards = {card for card, _ in load_deck(name)}
    for old, new in table.items():
        if old not in ALL_CARDS or old in cards:
            raise DataError(f"{fname}: replaces '{old}': it must be a DOG card that is not in this deck")
        if new not in cards:
            raise DataError(f"{fname}: replaces '{old}' = '{new}': '{new}' must be a card of this deck")
    return tuple(table.items())


@functools.cache
def load_board(kind: str, segments: int) -> Board:
    data = _read_toml("boards.toml")
    if kind not in data:
        raise DataError(f"boards.toml: board '{kind}' is not defined")
    table = data[kind]
    where = f"boards.toml [{kind}]"
    allowed = _int_list(table, "segments", where, lo=2)
    if segments not in allowed:
        raise DataError(f"{where}: a board of {segments} segments is not defined (have {list(allowed)})")
    seg_len = _need(table, "segment_length", int, where)
    start_offset = _need(table, "start_offset", int, where)
    if not 0 <= start_offset < seg_len:
        raise DataError(f"{where}: start_offset must lie inside a segment (0..{seg_len - 1})")
    colours = _need(table, f"colours_{segments}", list, where)
    if len(colours) != segments or not all(isinstance(c, str) and c for c in colours):
        raise DataError(f"{where}: colours_{segments} must name {segments} colours")
    special: frozenset[int] = frozenset()
    if "special_offsets" in table:
        offsets = _int_list(table, "special_offsets", where)
        if any(o >= seg_len or o == start_offset for o in offsets):
            raise DataError(f"{where}: special_offsets must lie in a segment and not on the start field")
        special = frozenset(s * seg_len + o for s in range(segments) for o in offsets)
    disc: tuple[int, ...] = ()
    paws: frozenset[int] = frozenset()
    paw_colours: tuple[tuple[int, str], ...] = ()
    shift = 0
    if "disc_offsets" in table:
        offsets = _int_list(table, "disc_offsets", where)
        if any(o >= seg_len or o == start_offset for o in offsets):
            raise DataError(f"{where}: disc_offsets must lie in a segment and not on the start field")
        disc = tuple(s * seg_len + o for s in range(segments) for o in offsets)
        paw_table = _need(table, "paw_offsets", dict, where)
        pc = []
        for off, colour in paw_table.items():
            if not off.isdigit() or int(off) not in offsets or colour not in ("white", "black"):
                raise DataError(f"{where}: paw_offsets entry '{off}' must be a disc offset with colour white or black")
            pc.extend((s * seg_len + int(off), colour) for s in range(segments))
        paws = frozenset(f for f, _ in pc)
        paw_colours = tuple(sorted(pc))
        shift = _need(table, "disc_quarter_turn", int, where)
        L = segments * seg_len
        colour_of = dict(pc)
        if any((f + shift) % L not in disc for f in disc) or any(
            colour_of.get((f + shift) % L) != c for f, c in pc
        ):
            raise DataError(
                f"{where}: disc_quarter_turn {shift} does not carry the disc onto itself "
                "(disc fields onto disc fields, each paw onto a paw of its colour)"
            )
    return Board(
        kind=kind,
        segments=segments,
        segment_length=seg_len,
        start_offset=start_offset,
        colours=tuple(colours),
        special_fields=special,
        disc_fields=disc,
        paw_fields=paws,
        paw_colours=paw_colours,
        disc_shift=shift,
    )


def _choice(table: dict[str, Any], key: str, choices: tuple[str, ...], where: str) -> str:
    value = _need(table, key, str, where)
    if value not in choices:
        raise DataError(f"{where}: key '{key}' must be one of {', '.join(choices)}, not '{value}'")
    return value


RULE_FAMILIES = frozenset({"four_backward", "seven_split", "swap_void", "ranks", "special_draw", "black_dog",
                           "fresh_start_blocks"})
# The directions of play: the order of the turns and of movement round the track. Field
# numbers are physical (the camera's and the LEDs'), so counter-clockwise play walks them downward.
DIRECTIONS = ("clockwise", "counter-clockwise")
STUCK = ("lay_down", "discard")


def _directions(table: dict[str, Any], rules: frozenset[str], where: str) -> tuple[tuple[str, ...], str]:
    values = table.get("directions", ["clockwise"])
    if not isinstance(values, list) or not values or len(set(values)) != len(values) or \
            any(v not in DIRECTIONS for v in values):
        raise DataError(f"{where}: key 'directions' must list one or both of {', '.join(DIRECTIONS)}")
    # the disc's quarter turns and the black dog's run are data for clockwise play only
    if "black_dog" in rules and values != ["clockwise"]:
        raise DataError(f"{where}: key 'directions': the black dog and the disc are played clockwise only")
    note = table.get("direction_note", "")
    if not isinstance(note, str):
        raise DataError(f"{where}: key 'direction_note' must be a sentence")
    if len(values) < len(DIRECTIONS) and not note:
        raise DataError(f"{where}: key 'direction_note' must say why the edition is played {values[0]} only")
    return tuple(values), note


def _rules(table: dict[str, Any], where: str) -> frozenset[str]:
    rules = _need(table, "rules", list, where)
    unknown = [r for r in rules if r not in RULE_FAMILIES]
    if unknown:
        raise DataError(f"{where}: unknown rule '{unknown[0]}' (known: {', '.join(sorted(RULE_FAMILIES))})")
    return frozenset(rules)


@functools.cache
def load_variants() -> dict[str, Variant]:
    data = _read_toml("variants.toml")
    variants = {}
    for name, table in data.items():
        where = f"variants.toml [{name}]"
        deck_name = _need(table, "deck", str, where)
        pieces = _need(table, "pieces", int, where)
        home = _need(table, "home_slots", int, where)
        if not 1 <= pieces <= 5 or not 1 <= home <= 5:
            raise DataError(f"{where}: pieces and home_slots must be between 1 and 5")
        rules = _rules(table, where)
        directions, note = _directions(table, rules, where)
        variants[name] = Variant(
            name=name,
            title=_need(table, "title", str, where),
            board_kind=_need(table, "board", str, where),
            deck=load_deck(deck_name),
            replaced=load_replaced(deck_name),
            pieces=pieces,
            solo_pieces=_need(table, "solo_pieces", int, where),
            home_slots=home,
            players=_int_list(table, "players", where, lo=2),
            cards_per_round=_int_list(table, "cards_per_round", where, lo=1),
            solo_win_pieces=_need(table, "solo_win_pieces", int, where),
            rules=rules,
            start_on_field=_choice(table, "start_on_field", ("solo", "all"), where),
            directions=directions,
            direction_note=note,
            stuck=_choice(table, "stuck", STUCK, where) if "stuck" in table else "lay_down",
        )
    return variants


def get_variant(name: str) -> Variant:
    variants = load_variants()
    if name not in variants:
        raise DataError(f"unknown variant '{name}' (choose one of: {', '.join(variants)})")
    return variants[name]
