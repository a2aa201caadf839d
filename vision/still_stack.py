"""Still frames added up: while the board stands still, it is read from the mean of its frames.

In lamp light a small camera runs at high gain, and one frame's sensor noise can leave a dark
piece and an empty hole, or two dark colours, within reach of each other: the reader then says
unknown (or, rarely, the wrong colour). Between plays the board stands still for seconds, and the
mean of n still frames has 1/sqrt(n) of one frame's noise. `StillStack` keeps that sum from the
frame the board came to rest, reads the mean at `every` frames and each time their number has
doubled, up to `most`, and from then on its labels are the board's: a field the mean cannot read,
a single frame reads only by the luck of its noise (a white pawn in dim light, read empty in one
frame out of two), so it stays unknown, and the settle filter forgets what earlier frames said of
it (`doubted`, vision.settle `SettleFilter.forget`).

A hand, a problem, other lit rings, a change of light, or any field whose colour moved from the
mean's as far as the settle filter calls a move (vision.settle.looks_changed) starts a new sum:
the mean is only ever of frames of one still board. A piece whose move changes its field's colour
too little to count (a white piece on a cream field) shows in the frames read alone: two in a row
that read a field otherwise than the mean start a second sum beside it, and once that has `every`
frames its mean is read. Where it reads a field otherwise than the old mean, the board changed
and the second sum becomes the mean; else the two frames were noise (in dim light single frames
read a white pawn empty one time in three, and two such frames in a row come every few seconds)
and the old mean goes on.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import cv2
import numpy as np

from vision.reader import BoardReader, FrameReading
from vision.settle import looks_changed

STACK_EVERY = 4  # the mean is read at 4 still frames (its noise: half of one frame's), then at 8, 16, ...
STACK_MOST = 16  # a quarter; more frames add little, and the mean stops there until the board moves


class StillStack:
    """Feed it every frame with the reader's reading of it; it answers with the still board's reading."""

    def __init__(self, reader: BoardReader, every: int = STACK_EVERY, most: int = STACK_MOST) -> None:
        if not 1 <= every <= most or most > 255:  # 255 frames of 255 fill a 16-bit sum
            raise ValueError(f"stack every {every} of at most {most} frames: need 1 <= every <= most <= 255")
        self.reader = reader
        self.every = every
        self.most = most
        self._sum: np.ndarray | None = None  # of the frames' `_box`
        self._box: tuple[slice, slice] = (slice(None), slice(None))
        self.count = 0
        self._first: FrameReading | None = None
        self._previous: FrameReading | None = None  # the frame before, as read alone
        self._lit: dict[str, Any] | None = None
        self._features = np.zeros((0, 3))  # the sum of the still frames' field colours (vision.measuring)
        self._light = 0.0
        self.stacked: FrameReading | None = None  # the newest reading of the mean
        self.reads = 0  # readings of a mean so far (their cost comes on top of the frames' own)
        # the fields a mean read on this frame could not read: earlier frames that read them were lucky in
        # their noise, and the settle filter forgets what they said (SettleFilter.forget)
        self.doubted: tuple[str, ...] = ()
        self._rival: StillStack | None = None  # the second sum, from two frames that outvoted the mean
        self._contested: tuple[int, ...] = ()  # ... on these fields
        self._checked = True  # (a second sum's frames are checked against the first's mean, not its own)

    def clear(self) -> None:
        self.count = 0
        self._first = None
        self.stacked = None
        self._rival = None

    def read(self, frame: np.ndarray, reading: FrameReading, disc: int | None = None,
             lit: Iterable[str] | Mapping[str, Any] | None = None) -> FrameReading:
        """`reading` (of `frame` alone, with `disc` and `lit` as it was read) as the still frames
        so far tell it: the mean's label where the mean read the field, the frame's elsewhere."""
        lit_now = dict(lit) if isinstance(lit, Mapping) else dict.fromkeys(lit or (), True)
        self.doubted = ()
        if reading.covered or reading.problem is not None:
            self.clear()
            self._previous = None
            return reading
        # against the mean of the frames so far: its noise is a fraction of a frame's, so one noisy frame
        # seldom looks like a move
        if self._checked and self._first is not None and (lit_now != self._lit
                                                          or looks_changed(self._mean_reading(), reading)):
            self.clear()
        if self._checked and self._rival is None:
            self._contested = self._outvoted(reading)
            if self._contested:
                self._rival = StillStack(self.reader, self.every, self.every)
                self._rival._checked = False
        self._previous = reading
        if self._rival is not None:
            self._rival.read(frame, reading, disc=disc, lit=lit)
            if self._rival.stacked is not None:
                rival, self._rival = self._rival, None
                self.reads += rival.reads
                if self.stacked is None or _differs(rival.stacked, self.stacked, self._contested):
                    self._take(rival)
                    return steadier(reading, rival.stacked)
        if self._first is None:
            self._first, self._lit = reading, lit_now
            self._features = np.zeros_like(reading.features, dtype=np.float64)
            self._light = 0.0
            # only the part of the frame the reader looks at: the board is half a 720p frame or less
            self._box = self.reader.box()
            shape = frame[self._box].shape
            self._sum = np.zeros(shape, np.uint16) if self._sum is None or self._sum.shape != shape else self._sum
            self._sum[...] = 0
        assert self._sum is not None
        if self.count < self.most:
            cv2.add(self._sum, frame[self._box], dst=self._sum, dtype=cv2.CV_16U)
            self._features += reading.features
            self._light += reading.light
            self.count += 1
            times, rest = divmod(self.count, self.every)
            if rest == 0 and times & (times - 1) == 0:  # at every, 2 * every, 4 * every, ...
                mean = frame.copy()
                mean[self._box] = cv2.convertScaleAbs(self._sum, alpha=1.0 / self.count)
                self.stacked = self.reader.read(mean, disc=disc, lit=lit)
                self.reads += 1
                self.doubted = self.stacked.unknown
        if self.stacked is None:
            return reading
        return steadier(reading, self.stacked)

    def _take(self, rival: "StillStack") -> None:
        """Go on from `rival`'s sum: the board changed when it began."""
        assert rival._sum is not None
        self._sum, self._box, self.count = rival._sum, rival._box, rival.count
        self._first, self._lit = rival._first, rival._lit
        self._features, self._light = rival._features, rival._light
        self.stacked = rival.stacked
        self.doubted = rival.doubted

    def _outvoted(self, reading: FrameReading) -> tuple[int, ...]:
        """The fields on which this frame and the one before agree against the mean: a piece may have
        moved that changes a field's colour too little to count as a move (a white piece on a cream
        field). One noisy frame against the mean does not count; the mean speaks for it."""
        prev = self._previous
        if self.stacked is None or prev is None:
            return ()
        return tuple(i for i, (a, b, m) in enumerate(zip(reading.labels, prev.labels, self.stacked.labels))
                     if a == b != m and a != "unknown" and m != "unknown")

    def _mean_reading(self) -> FrameReading:
        """The first reading with the mean colours and light of the frames so far (vision.settle compares them)."""
        assert self._first is not None and self.count
        return dataclasses.replace(self._first, features=self._features / self.count, light=self._light / self.count)


def _differs(a: FrameReading, b: FrameReading, fields: tuple[int, ...]) -> bool:
    """Whether two readings name one of `fields` otherwise, where both read it."""
    return any(a.labels[i] != b.labels[i] and "unknown" not in (a.labels[i], b.labels[i]) for i in fields)


def steadier(single: FrameReading, stacked: FrameReading) -> FrameReading:
    """`single` with the labels and hints of `stacked`, the mean of still frames, the single one among
    them. A field the mean could not read, a frame among them read only by the luck of its noise (a
    white pawn in dim light, read empty in one frame out of two): it stays unknown."""
    return dataclasses.replace(single, labels=stacked.labels, hints=stacked.hints)
