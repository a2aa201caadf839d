"""A table to play on without hardware: actions change the scene and drive the simulated devices.

`PlayTable` holds the position, the card on the discard zone and the LED strip; each
action (play a card, move a piece, turn the disc, press a button) queues a few frames of a
hand reaching in and out, and turning the disc drives the encoder's mock pins through
real quadrature steps. The camera source `hardware.camera.SimTableCamera` reads frames
from it, one scene per `frame()`.
"""
from __future__ import annotations

import logging
import math
from collections import deque
from dataclasses import dataclass

import numpy as np

import engine
from engine.position import canonical
from hardware.simtable.hand import Hand
from hardware.simtable.render import SimTable

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Scene:
    position: engine.Position
    card: str | None
    hands: tuple[Hand, ...] = ()


def seat_edge(seat: int, segments: int) -> str:
    """The board edge a player at `seat` reaches in from (seat 0 at the bottom, clockwise)."""
    a = math.pi / 2 + seat * 2 * math.pi / segments
    x, y = math.cos(a), math.sin(a)
    if abs(y) >= abs(x):
        return "bottom" if y > 0 else "top"
    return "left" if x < 0 else "right"


def turn_disc(position: engine.Position, direction: int) -> engine.Position:
    """The position after a quarter turn of the disc (+1 clockwise): every piece on it turns along."""
    board = position.board
    if not board.disc_fields:
        raise ValueError(f"the {board.kind} board has no disc")
    on_disc = set(board.disc_fields)
    n, seg = board.track_length, board.segment_length

    def moved(loc: int) -> int:
        return (loc + direction * seg) % n if loc in on_disc else loc

    pieces = tuple(None if p is None else canonical(position.variant, [moved(x) for x in p]) for p in position.pieces)
    dog = None if position.black_dog is None else moved(position.black_dog)
    return engine.Position(position.variant, board, pieces, position.last_card, dog, (position.disc + direction) % 4)


class PlayTable:
    def __init__(self, position: engine.Position, table: SimTable | None = None, *, leds=None, ledmap=None,
                 encoder_driver=None, steps_per_quarter: int = 6, buttons_driver=None,
                 frames_per_move: int = 4) -> None:
        self.position = position
        self.table = table or SimTable(segments=position.board.segments)
        self.card: str | None = None
        self.leds = leds  # hardware.leds.SimulatedStrip
        self.ledmap = ledmap
        self.encoder_driver = encoder_driver  # hardware.encoder.QuadratureDriver
        self.steps_per_quarter = steps_per_quarter
        self.buttons_driver = buttons_driver  # hardware.buttons.ButtonDriver
        self.frames_per_move = max(1, frames_per_move)
        self.frame_index = 0
        self._script: deque[tuple[Scene, int]] = deque()  # (scene, encoder steps to drive when shown)

    # --- actions ---------------------------------------------------------------------
    def set_position(self, position: engine.Position) -> None:
        self.position = position

    def play_card(self, card: str, seat: int = 0) -> None:
        """A hand lays `card` on the discard zone."""
        edge = seat_edge(seat, self.position.board.segments)
        target = self._discard_field_like()
        self._reach(edge, target, before=(self.position, self.card), after=(self.position, card))
        self.card = card

    def move_piece(self, after: engine.Position, from_field: str, to_field: str, seat: int = 0) -> None:
        """A hand picks the piece up on from_field and puts it down on to_field; the table then shows `after`."""
        edge = seat_edge(seat, self.position.board.segments)
        k = self.frames_per_move
        for i in range(1, k + 1):
            self._push(Scene(self.position, self.card, (Hand(edge, target=from_field, approach=i / k, skin=seat),)))
        for i in range(1, k + 1):
            # The piece is in the hand while it travels: drawn at its new field, under the hand.
            t = i / k
            hand = _between(self.table.geometry, edge, from_field, to_field, t, seat)
            self._push(Scene(after, self.card, (hand,)))
        for i in range(k - 1, -1, -1):
            self._push(Scene(after, self.card, (Hand(edge, target=to_field, approach=i / k, skin=seat),)))
        self.position = after

    def turn_disc(self, direction: int, seat: int = 0, missed_steps: int = 0) -> engine.Position:
        """Turn the Black DOG disc a quarter (+1 clockwise); drives the encoder's pins on the way."""
        after = turn_disc(self.position, direction)
        edge = seat_edge(seat, self.position.board.segments)
        k = self.frames_per_move
        rim = self._disc_rim_field(edge)
        steps = max(0, self.steps_per_quarter - missed_steps)
        for i in range(1, k + 1):
            self._push(Scene(self.position, self.card, (Hand(edge, target=rim, approach=i / k, skin=seat),)))
        share = [steps * (i + 1) // k - steps * i // k for i in range(k)]
        for i in range(k):
            scene = Scene(self.position if i < k - 1 else after, self.card, (Hand(edge, target=rim, skin=seat),))
            self._push(scene, direction * share[i])
        for i in range(k - 1, -1, -1):
            self._push(Scene(after, self.card, (Hand(edge, target=rim, approach=i / k, skin=seat),)))
        self.position = after
        return after

    def press(self, name: str) -> None:
        if self.buttons_driver is None:
            raise RuntimeError("this simulated table has no buttons attached")
        self.buttons_driver.press(name)

    def settle(self) -> None:
        """Play out every queued scene now (drives any pending encoder steps)."""
        while self._script:
            self._next_scene()

    # --- frames ----------------------------------------------------------------------
    @property
    def pending_frames(self) -> int:
        return len(self._script)

    def frame(self) -> np.ndarray:
        scene = self._next_scene()
        lit = self.leds.lit_fields(self.ledmap) if self.leds is not None and self.ledmap is not None else None
        img = self.table.render(scene.position, lit=lit, card=scene.card, hand=scene.hands or None,
                                frame_index=self.frame_index)
        self.frame_index += 1
        return img

    # --- internals -------------------------------------------------------------------
    def _next_scene(self) -> Scene:
        if not self._script:
            return Scene(self.position, self.card)
        scene, steps = self._script.popleft()
        if steps and self.encoder_driver is not None:
            self.encoder_driver.turn(steps)
        return scene

    def _push(self, scene: Scene, steps: int = 0) -> None:
        self._script.append((scene, steps))

    def _reach(self, edge: str, target: str, before: tuple, after: tuple) -> None:
        k = self.frames_per_move
        for i in range(1, k + 1):
            self._push(Scene(before[0], before[1], (Hand(edge, target=target, approach=i / k),)))
        for i in range(k - 1, -1, -1):
            self._push(Scene(after[0], after[1], (Hand(edge, target=target, approach=i / k),)))

    def _discard_field_like(self) -> str:
        """The field nearest the discard zone (hands aim at fields)."""
        geo = self.table.geometry
        cx, cy = geo.discard_centre
        return min(geo.centres, key=lambda f: math.dist(geo.centres[f], (cx, cy)))

    def _disc_rim_field(self, edge: str) -> str:
        """The disc field nearest the player's edge: where a hand grips the disc."""
        geo = self.table.geometry
        fields = [f"T{i}" for i in self.position.board.disc_fields] or ["T0"]
        ex, ey = {"bottom": (0, 1), "top": (0, -1), "left": (-1, 0), "right": (1, 0)}[edge]
        return max(fields, key=lambda f: geo.centres[f][0] * ex + geo.centres[f][1] * ey)


def _between(geo: engine.BoardGeometry, edge: str, a: str, b: str, t: float, skin: int) -> Hand:
    """A hand part-way between two fields: aim at whichever is nearer, since a Hand aims at fields."""
    return Hand(edge, target=b if t >= 0.5 else a, skin=skin)
