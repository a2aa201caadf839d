"""The camera pipeline on the simulated table: renderer -> vision (board, settle, card) -> table.

`SimCamera` calibrates the vision room's reader on frames of the hardware room's renderer,
exactly as a person calibrates the real camera (empty board, then the start position), and
then turns a position (with LEDs lit, a card on the pile, hands over the board) into what
the service gets from a real camera: a settled board occupancy, and the card seen.
"""
from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import engine
from companion import table as T
from engine.game import seats_for
from hardware.leds import ROLE_LIGHTS

log = logging.getLogger(__name__)


def fill_unknown(reading: object, dark: object) -> object | None:
    from vision.reader import fill_unknown as fill

    return fill(reading, dark)  # type: ignore[arg-type]

# LED colours per role (r, g, b): the same the LED rings show at the real table
ROLE_RGB: dict[str, tuple[int, int, int]] = {role: light.colour for role, light in ROLE_LIGHTS.items()}
FRAME_S = 1 / 15


class Referee:
    """What the game knows, told to the camera's settle filter (vision.settle.SettleFilter).

    `tell(settle)` gives the filter the game's board after every accepted play (the filter
    compares a still board with a few fields unread against it), and `explains` is the
    filter's referee for such a board: exactly one legal play of the current state leads to
    a board that agrees with the reading on every field read, and that play leaves the
    unknown fields as they were. The unknown fields then keep the game's word, never a
    guess, and are read again on the next frames.
    """

    def __init__(self, state: Callable[[], T.TableState]) -> None:
        self.state = state
        self._last: T.TableState | None = None
        self._plays: tuple[engine.Position, int | None, str | None, list[engine.Play]] | None = None

    def tell(self, settle: Any) -> None:
        st, last = self.state(), self._last
        self._last = st
        if last is None or st.position == last.position:
            return
        # Only a play the game accepted: at the start the camera itself must see the pieces
        # set out, and after an undo the board the camera saw is not to be sent again.
        key = T.board_key(st.position)
        if not any(T.board_key(p.result) == key for p in last.plays):
            return
        board = st.position.field_occupancy()
        seen = settle.committed_board
        # the camera's own board of the same position (a captured piece may stand in another
        # kennel spot than the game's first free one) stays: it is what the camera sees
        if seen is None or not _same_board(seen, board):
            settle.expect(board)

    def explains(self, before: dict[str, str], after: dict[str, str], unknown: tuple[str, ...]) -> bool:
        st = self.state()
        if st.phase != "play":
            return False
        pos = st.position
        known = pos.field_occupancy()
        # the filter's word for an unknown track or home field is not the game's: read it first
        # (kennel spots are not told apart; the filter's piece counts cover them)
        if any(before.get(f) != known.get(f) for f in unknown if "K" not in f):
            return False
        hidden = set(unknown)
        want = {f: who for f, who in _track_and_home(after).items() if f not in hidden}
        boards = set()
        for play in self._candidates(st):
            results = [play.result]
            if play.disc_turn:  # the board shows the play before the disc is turned, too
                results.append(T.rotate_disc(play.result, -play.disc_turn))
            for res in results:
                occ = T.occupancy(res)
                if {f: who for f, who in occ.items() if f not in hidden} == want:
                    boards.add(tuple(sorted(occ.items())))
        if len(boards) != 1:
            return False  # no play, or several that differ on the unknown fields: read them first
        occ = dict(next(iter(boards)))
        return all(occ.get(f) == known.get(f) for f in hidden if "K" not in f)

    def _candidates(self, st: T.TableState) -> list[engine.Play]:
        """The plays of the card in play, or of every card while the pile is not read yet."""
        if st.card is not None:
            return list(st.plays)
        seat = st.card_seat if st.card_seat is not None else st.turn
        key = (st.position, seat, st.card)
        if self._plays is None or self._plays[:3] != key:
            cards = sorted(st.position.variant.cards)
            plays = [p for ps in engine.legal_moves_for_hand(st.position, cards, seat).values() for p in ps]
            self._plays = (*key, plays)
        return self._plays[3]


def _same_board(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """The same pieces on the same track and home fields, and as many in each kennel."""
    return _track_and_home(a) == _track_and_home(b) and _kennels(a) == _kennels(b)


def _track_and_home(board: Mapping[str, str]) -> dict[str, str]:
    """A board without its kennel spots (as companion.table.occupancy: they are not told apart)."""
    return {f: who for f, who in board.items() if "K" not in f}


def _kennels(board: Mapping[str, str]) -> Counter[str]:
    """How many pieces stand in each kennel ("S2K0" and "S2K3" count for kennel "S2")."""
    return Counter(f.split("K")[0] for f in board if "K" in f)


class PipelineError(Exception):
    """The simulated camera could not produce a settled reading."""


class SimCamera:
    def __init__(self, variant: str, players: int, seed: int = 0, effects: object | None = None,
                 enrol_cards: bool = True, glow: bool = True) -> None:
        """`glow`: calibrate with the LED rings lit (as the table can); False calibrates the board
        dark only, and unknown fields next to lit LEDs are then read from a frame with the LEDs blanked."""
        from hardware.simtable import SceneEffects, SimTable
        from vision.calibration import calibrate, default_start, glow_groups
        from vision.cards import CardReader
        from vision.reader import BoardReader
        from vision.settle import SettleFilter

        v = engine.get_variant(variant)
        self.variant = v
        segments, _ = seats_for(players)
        self.segments = segments
        self.table = SimTable(segments, seed=seed, effects=effects or SceneEffects())
        kind = v.board_kind
        start = engine.parse_position({"variant": "classic", "board": segments, "pieces": [["K"] * 4] * segments})
        start = dataclasses.replace(start, board=engine.load_board(kind, segments))
        if kind == "royal":  # royal pieces carry their rank marks: calibrate from a picture of them
            start = dataclasses.replace(start, variant=engine.get_variant("royal"))
        if kind == "black":  # the dog stands in the start picture so that its colour is learned
            start = dataclasses.replace(start, black_dog=5)
        empty = dataclasses.replace(start, pieces=tuple(() for _ in start.pieces), black_dog=None)
        self.frame_index = 0
        empty_frame, start_frame = self._render(empty), self._render(start)
        lit_frames = None
        if glow and segments == 6:
            # White pieces on the cream board: photograph the empty board with the rings lit, a
            # few far-apart rings at a time, in every role colour, as the service can at the table.
            lit_frames = [(self._render(empty, lit), lit) for colour in dict.fromkeys(ROLE_RGB.values())
                          for lit in ({f: colour for f in g} for g in glow_groups(segments))]
        cal = calibrate(empty_frame, segments, kind, start_frame, start.field_occupancy(), lit_frames=lit_frames)
        self.reader = BoardReader(cal)
        self.blanked = 0  # frames read with the LEDs blanked (boards calibrated without them)
        self.settle = SettleFilter()
        self.referee: Referee | None = None
        self.t = 0.0
        self.cards = CardReader(cal)
        self.cards.set_empty(self._render(empty))
        if enrol_cards:
            for card in sorted(v.cards):
                frame = self._render(start, card=card)
                self.reader.measure(frame)
                self.cards.enrol(frame, card, self.reader.homography)
        _ = default_start  # calibrate() uses it when no start occupancy is given

    def follow(self, state: Callable[[], T.TableState]) -> None:
        """Read as the service does: the settle filter knows the game (`Referee`)."""
        self.referee = Referee(state)
        self.settle.explains = self.referee.explains

    @classmethod
    def for_variant(cls, variant: str, players: int, seed: int = 0) -> SimCamera:
        return cls(variant, players, seed)

    def _render(self, pos: engine.Position, lit: Mapping[str, tuple[int, int, int]] | None = None,
                card: str | None = None, hand: object | None = None):
        frame = self.table.render(pos, lit=dict(lit or {}), card=card, hand=hand, frame_index=self.frame_index)
        self.frame_index += 1
        return frame

    def watch(self, pos: engine.Position, leds: Mapping[str, str] | None = None, card: str | None = None,
              hands: Iterable[object] = (), max_frames: int = 30) -> dict[str, str]:
        """Frames of a person's hand moving away, then of the still board, until vision settles."""
        lit = {f: ROLE_RGB.get(role, (255, 255, 255)) for f, role in (leds or {}).items()}
        disc = pos.disc if self.variant.name == "black" else None
        for hand in hands:
            reading = self.reader.read(self._render(pos, lit, card, hand), disc=disc, lit=lit)
            self.settle.feed(reading, self._tick())
        patched = None
        for _ in range(max_frames):
            reading = self.reader.read(self._render(pos, lit, card), disc=disc, lit=lit)
            if patched is not None:
                reading = fill_unknown(reading, patched) or reading
            if self.reader.unknown_only_near_lit(reading, lit):
                # Fields the lit LEDs make unreadable (a dark piece in a ring of a seat's colour,
                # white pieces next to lit rings): blank the LEDs for one frame and read them from it.
                self.blanked += 1
                dark = self.reader.read(self._render(pos, None, card), disc=disc, lit=None)
                filled = fill_unknown(reading, dark)
                if filled is not None:
                    patched, reading = dark, filled
            if self.referee is not None:
                self.referee.tell(self.settle)
            status = self.settle.feed(reading, self._tick())
            if status.kind == "settled" and status.board is not None:
                return status.board
            if status.kind == "unreadable":
                raise PipelineError(status.message)
        raise PipelineError(f"the board did not settle in {max_frames} frames: {status.message}")

    def read_board(self, pos: engine.Position) -> dict[str, str]:
        return self.watch(pos)

    def see_card(self, pos: engine.Position, card: str) -> str | None:
        frame = self._render(pos, card=card)
        self.reader.measure(frame)
        return self.cards.recognise(frame, self.reader.homography).card

    def _tick(self) -> float:
        self.t += FRAME_S
        return self.t
