"""The camera pipeline on the simulated table: renderer -> vision (board, settle, card) -> table.

`SimCamera` calibrates the vision room's reader on frames of the hardware room's renderer,
exactly as a person calibrates the real camera (empty board, then the start position), and
then turns a position (with LEDs lit, a card on the pile, hands over the board) into what
the service gets from a real camera: a settled board occupancy, and the card seen.
"""
from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping

import engine
from engine.game import seats_for
from hardware.leds import ROLE_LIGHTS

log = logging.getLogger(__name__)

# LED colours per role (r, g, b): the same the LED rings show at the real table
ROLE_RGB: dict[str, tuple[int, int, int]] = {role: light.colour for role, light in ROLE_LIGHTS.items()}
FRAME_S = 1 / 15


class PipelineError(Exception):
    """The simulated camera could not produce a settled reading."""


class SimCamera:
    def __init__(self, variant: str, players: int, seed: int = 0, effects: object | None = None,
                 enrol_cards: bool = True) -> None:
        from hardware.simtable import SceneEffects, SimTable
        from vision.calibration import calibrate, default_start
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
        if kind == "black":  # the dog stands in the start picture so that its colour is learned
            start = dataclasses.replace(start, black_dog=5)
        empty = dataclasses.replace(start, pieces=tuple(() for _ in start.pieces), black_dog=None)
        self.frame_index = 0
        cal = calibrate(self._render(empty), segments, kind, self._render(start), start.field_occupancy())
        self.reader = BoardReader(cal)
        self.settle = SettleFilter()
        self.t = 0.0
        self.cards = CardReader(cal)
        self.cards.set_empty(self._render(empty))
        if enrol_cards:
            for card in sorted(v.cards):
                frame = self._render(start, card=card)
                self.reader.measure(frame)
                self.cards.enrol(frame, card, self.reader.homography)
        _ = default_start  # calibrate() uses it when no start occupancy is given

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
        for _ in range(max_frames):
            reading = self.reader.read(self._render(pos, lit, card), disc=disc, lit=lit)
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
