"""The camera on the simulated table: renderer -> vision (board, settle, card) -> table events.

`SimCamera` calibrates the vision room's reader on frames of the hardware room's renderer,
exactly as a person calibrates the real camera (empty board, then the start position), and
then turns a position (with LEDs lit, a card on the pile, hands over the board) into what
the service gets from a real camera: a settled board occupancy, and the card seen.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping

import engine
from companion import table as T
from companion.settle_referee import SettleReferee
from engine.game import seats_for
from hardware.leds import ROLE_LIGHTS
from hardware.simtable import SceneEffects, SimTable
from vision.calibration import calibrate, glow_groups
from vision.cards import CardReader
from vision.reader import BoardReader, fill_unknown
from vision.settle import SettleFilter
from vision.still_stack import StillStack

# LED colours per role (r, g, b): the same the LED rings show at the real table
ROLE_RGB: dict[str, tuple[int, int, int]] = {role: light.colour for role, light in ROLE_LIGHTS.items()}
FRAME_S = 1 / 15  # the camera's frame interval: the settle filter counts still time in frames


class PipelineError(Exception):
    """The simulated camera could not produce a settled reading."""


class SimCamera:
    def __init__(self, variant: str, players: int, seed: int = 0, effects: object | None = None,
                 enrol_cards: bool = True, glow: bool = True) -> None:
        """`glow`: calibrate with the LED rings lit (as the table can); False calibrates the board
        dark only, and unknown fields next to lit LEDs are then read from a frame with the LEDs blanked."""
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
        self.stack = StillStack(self.reader)
        self.referee: SettleReferee | None = None
        self.t = 0.0
        self.cards = CardReader(cal)
        self.cards.set_empty(self._render(empty))
        if enrol_cards:
            for card in sorted(v.cards):
                frame = self._render(start, card=card)
                self.reader.measure(frame)
                self.cards.enrol(frame, card, self.reader.homography)

    def follow(self, state: Callable[[], T.TableState]) -> None:
        """Read as the service does: the settle filter knows the game (`SettleReferee`)."""
        self.referee = SettleReferee(state)
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
            frame = self._render(pos, lit, card, hand)
            reading = self.stack.read(frame, self.reader.read(frame, disc=disc, lit=lit), disc=disc, lit=lit)
            self.settle.feed(reading, self._tick())
        patched = None
        for _ in range(max_frames):
            frame = self._render(pos, lit, card)
            reading = self.stack.read(frame, self.reader.read(frame, disc=disc, lit=lit), disc=disc, lit=lit)
            self.settle.forget(self.stack.doubted)
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
