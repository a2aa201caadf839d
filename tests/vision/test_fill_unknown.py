"""Filling a lit frame's unknown fields from a frame with the LEDs blanked (`fill_unknown`, `unread`)."""
from __future__ import annotations

import numpy as np

from vision.reader import FrameReading, fill_unknown, unread

FIELDS = ("T0", "T1", "T2", "T3")


def reading(*labels: str, covered: bool = False) -> FrameReading:
    return FrameReading(FIELDS, tuple(labels), np.zeros((len(FIELDS), 3)), 0.5, covered, ())


def test_unknown_fields_are_taken_from_the_blanked_frame() -> None:
    filled = fill_unknown(reading("s0", "unknown", "empty", "unknown"), reading("s0", "s1", "empty", "dog"))
    assert filled is not None and filled.labels == ("s0", "s1", "empty", "dog")


def test_a_field_the_blanked_frame_cannot_tell_either_stays_unknown() -> None:
    filled = fill_unknown(reading("s0", "unknown", "unknown", "empty"), reading("s0", "s1", "unknown", "unknown"))
    assert filled is not None and filled.labels == ("s0", "s1", "unknown", "empty")


def test_frames_that_disagree_on_a_field_both_read_fill_nothing() -> None:
    # the board changed between the two frames: neither may be mixed into the other
    assert fill_unknown(reading("s0", "unknown", "empty", "empty"), reading("s0", "s1", "s2", "empty")) is None
    assert fill_unknown(reading("s0", "unknown", "empty", "empty"), reading("s0", "s1", "empty", "empty",
                                                                           covered=True)) is None


def test_fields_lit_in_a_piece_s_colour_are_never_taken_from_the_lit_frame() -> None:
    lit = reading("s0", "s0", "empty", "s3")  # a black piece in a red ring read red on T1
    blind = unread(lit, ["T1"])
    assert blind.labels == ("s0", "unknown", "empty", "s3") and blind.unknown == ("T1",)
    filled = fill_unknown(blind, reading("s0", "s5", "empty", "s3"))
    assert filled is not None and filled.labels == ("s0", "s5", "empty", "s3")
    assert unread(lit, []) is lit
