"""The settle filter: commit a board reading only after the board has been still for a while.

Time comes from the caller (`feed(reading, t)` with the frame's timestamp in seconds), so
the filter is deterministic and testable; it keeps no clock of its own. A reading commits
only if every frame in the last `settle_s` seconds was uncovered, classified (unknown fields: see below), showed
the same labels, the same per-field colours (within `feature_tolerance`, log colour units)
and about the same light level (within `light_tolerance`, log units: a lamp switched on
restarts the wait, the flicker of a cheap bulb does not). Anything covering the board
resets the wait: a hand that stops moving over the board still covers it, and a covered
board is never committed.

A field read "unknown" in one frame but read in another since the board stood still is
known (glare, JPEG and pale pieces make single frames miss a field); a field read one way,
then unknown, then another way has changed and restarts the wait. Fields unknown in every
frame are handled by `max_unknown` and `explains`.
"""
from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from vision.reader import FrameReading

log = logging.getLogger(__name__)

FEATURE_TOLERANCE = 0.5  # log colour units (`_soft`): a still piece stays below 0.4 from frame to frame
LIGHT_TOLERANCE = 0.25  # log units: a lamp switched on moves the light more, a cheap bulb's flicker less

SettleKind = Literal["settled", "settling", "covered", "unreadable"]


@dataclass(frozen=True)
class SettleStatus:
    """What the filter says after one frame.

    `kind`: "settled" (board still; `board` holds the reading), "settling" (waiting for the
    board to stay still), "covered" (something is covering the board: hand, arm, object), or
    "unreadable" (the camera or board moved, a marker is hidden, fields cannot be read).
    `committed` is True on the one frame where a new settled board is reported.
    """

    kind: SettleKind
    message: str
    board: dict[str, str] | None = None
    committed: bool = False
    still_for: float = 0.0
    # fields read "unknown" in these frames, taken from the last committed board (re-read
    # on every frame, never guessed: the change had to be on fields that were read)
    assumed: tuple[str, ...] = ()


class SettleFilter:
    """Feed it every frame's reading with its timestamp; it says when the board is settled."""

    def __init__(
        self,
        settle_s: float = 0.3,
        min_frames: int = 3,
        feature_tolerance: float = FEATURE_TOLERANCE,
        light_tolerance: float = LIGHT_TOLERANCE,
        max_unknown: int = 3,
        explains: Callable[[dict[str, str], dict[str, str], tuple[str, ...]], bool] | None = None,
    ) -> None:
        """`max_unknown`: a still board with at most this many fields read "unknown" may
        still commit, once a board has been committed, if the change from it is on fields
        that were read, every colour's piece count is unchanged (a move or a capture moves
        pieces, it does not make them vanish), and `explains(before, after, unknown)` (the
        caller's referee: exactly one legal play leads from the game's position to a board
        that agrees with `after` on every field read, and it leaves the `unknown` fields as
        they were) agrees. The unknown fields keep the committed board's word for them
        (`SettleStatus.assumed`) and are read again on every later frame: never guessed."""
        self.settle_s = settle_s
        self.min_frames = min_frames
        self.feature_tolerance = feature_tolerance
        self.light_tolerance = light_tolerance
        self._since: float | None = None
        self._frames = 0
        self._prev: FrameReading | None = None
        self._seen: dict[str, str] = {}  # each field's label, as read in a frame since the board stood still
        self._last_t: float | None = None
        self._committed: dict[str, str] | None = None
        self.max_unknown = max_unknown
        self.explains = explains

    @property
    def committed_board(self) -> dict[str, str] | None:
        return self._committed

    def expect(self, board: dict[str, str]) -> None:
        """The board as the game knows it (e.g. after the referee accepted a play): a later
        still board with a few unknown fields is compared with it (see `max_unknown`)."""
        self._committed = dict(board)

    def forget(self, fields) -> None:
        """What frames since the board stood still said of `fields`: the mean of those frames could not
        read them (vision.still_stack), so a frame that did was lucky in its noise."""
        for f in fields:
            self._seen.pop(f, None)

    def reset(self) -> None:
        self._since = None
        self._frames = 0
        self._prev = None
        self._seen = {}

    def feed(self, reading: FrameReading, t: float) -> SettleStatus:
        if self._last_t is not None and t < self._last_t:
            raise ValueError(f"frame time went backwards ({t} after {self._last_t})")
        self._last_t = t
        if reading.problem is not None:
            self.reset()
            return SettleStatus("unreadable", reading.problem)
        if reading.covered:
            self.reset()
            return SettleStatus("covered", reading.cover_message())
        prev = self._prev
        self._prev = reading
        read = {f: lab for f, lab in zip(reading.field_ids, reading.labels) if lab != "unknown"}
        if prev is None or self._changed(prev, reading) or any(self._seen.get(f, lab) != lab for f, lab in read.items()):
            self._since = t
            self._frames = 1
            self._seen = read
        else:
            self._frames += 1
            self._seen.update(read)
        # A field read in any frame since the board stood still is known: the unknown ones
        # are those not read in any of them (glare, a pale piece, JPEG come and go by frame).
        unknown = tuple(f for f in reading.unknown if f not in self._seen)
        if unknown and (self._committed is None or len(unknown) > self.max_unknown):
            # Not covered, yet some fields match no learned colour: wait (a moving hand
            # changes the colours and restarts the wait).
            return SettleStatus("covered", f"cannot tell what is on {', '.join(unknown[:5])}: is something covering the board?")
        if self._frames == 1:
            return SettleStatus("settling", "waiting for the board to stay still")
        still = t - (self._since if self._since is not None else t)
        if still + 1e-9 < self.settle_s or self._frames < self.min_frames:
            return SettleStatus("settling", "waiting for the board to stay still", still_for=still)
        board = {f: lab for f, lab in self._seen.items() if lab != "empty"}
        if unknown:
            assert self._committed is not None
            for f in unknown:  # the last committed board's word for them; re-read next frame
                if f in self._committed:
                    board[f] = self._committed[f]
            if board != self._committed and not self._explained(self._committed, board, unknown):
                return SettleStatus("settling", f"cannot tell what is on {', '.join(unknown[:5])}: waiting for a clear view",
                                    still_for=still, assumed=unknown)
        new = board != self._committed
        if new:
            self._committed = board
            log.debug("settled board committed after %.3f s still", still)
        return SettleStatus("settled", "board is still", board=board, committed=new, still_for=still, assumed=unknown)

    def _explained(self, before: dict[str, str], after: dict[str, str], unknown: tuple[str, ...]) -> bool:
        if Counter(before.values()) != Counter(after.values()):
            return False
        return self.explains is None or bool(self.explains(before, after, unknown))

    def _changed(self, a: FrameReading, b: FrameReading) -> bool:
        # a field read in one frame and unknown in the other has not changed (it is re-read);
        # one read differently in both has
        if any(x != y and x != "unknown" and y != "unknown" for x, y in zip(a.labels, b.labels)):
            return True
        return looks_changed(a, b, self.feature_tolerance, self.light_tolerance)


def looks_changed(a: FrameReading, b: FrameReading, feature_tolerance: float = FEATURE_TOLERANCE,
                  light_tolerance: float = LIGHT_TOLERANCE) -> bool:
    """True if the light or any field's colour moved between two readings by more than noise moves them."""
    if abs(float(np.log(max(b.light, 1e-6) / max(a.light, 1e-6)))) > light_tolerance:
        return True
    return float(np.abs(_soft(a.features) - _soft(b.features)).max(initial=0.0)) > feature_tolerance


DARK_FLOOR = 0.25  # of the bare board's brightness: darker channels are compressed (`_soft`)


def _soft(features: np.ndarray) -> np.ndarray:
    """Features (l, r-g, b-g; log, light-corrected) -> log(channel + DARK_FLOOR) per channel.

    The dark channel of a saturated piece (the blue of a yellow one) is a few grey levels:
    noise and JPEG (its colour at half resolution takes in the board around a small pawn)
    move it by half a log unit from frame to frame while nothing moves. Its change is
    judged against the board's brightness, not against itself: on the photo-like scene a
    floor of 0.08 still let still pieces jump by 0.5-0.7, a quarter of the board's
    brightness leaves them below 0.4.
    """
    l, rg, bg = features[:, 0], features[:, 1], features[:, 2]
    g = l - (rg + bg) / 3
    ch = np.stack([g + bg, g, g + rg], axis=1)
    return np.log(np.exp(ch) + DARK_FLOOR)
