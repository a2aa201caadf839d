"""A pale seat's own kennel and home fields are read by their pattern, not by the colour's t.

On the photo scene's royal 6-segment board (scripts/photo_scene.py `6seg-royal-1080p`) seat 4's white
pieces differ from their white kennel and home fields mostly in brightness (0.3-0.55 log units), and
sheen and the shading of the pieces beside a hole move a piece's look and an empty hole's by as much
(not noise: the frame's noise does not see it). The seat-coloured fields' judge (vision.own_colour)
used to have the last word there and read a white piece in its kennel empty, or left it unknown, where
its pattern had read it right; where a pale seat differs from its fields in brightness alone, those
fields are now left to the pattern (vision.pale). Seeded: a tuning seed of the scene (the benchmark's
held-out seeds start at 101).
"""
from __future__ import annotations

import pytest

SEED = 3  # a tuning seed of the first photo scene
SETUP = "6seg-royal-1080p"


@pytest.fixture(scope="module")
def royal(photo_boards):
    """A reader calibrated as the benchmark calibrates it, and the benchmark's i-th board of SEED
    (frame, truth), read without lit rings."""
    return photo_boards(SETUP, SEED)


def test_a_white_piece_in_its_white_kennel_is_read_by_its_pattern(royal) -> None:
    reader, board = royal
    frame, truth = board(9)
    assert truth["S4K0"] == "s4" and truth["S4K1"] == "s4"  # (S4K1 had read empty, S4K0 unknown)
    r = reader.read(frame)
    got = dict(zip(r.field_ids, r.labels))
    assert all(lab == truth.get(f, "empty") for f, lab in got.items())


def test_white_kennel_fields_beside_white_pieces_are_read(royal) -> None:
    reader, board = royal
    for i in (0, 10, 12):  # a white piece in S4K0 and empty holes beside white pieces (unknown before)
        frame, truth = board(i)
        got = dict(zip(reader.cal.field_ids, reader.read(frame).labels))
        assert all(lab == truth.get(f, "empty") for f, lab in got.items()), i


def test_a_white_pawn_in_its_kennel_is_read_however_darker_calibration_learned_the_white_pieces(photo_boards) -> None:
    """How far a white piece's brightness lies from its kennel's, as calibration learns it, is shading too:
    on the 6-segment board under a lamp it ranged from 0.14 to 0.88 log units seed by seed. At 0.63
    (seed 182, held out once: there the board below waited for a clear view) a white pawn in its kennel
    came halfway between the empty hole's look and the learned piece's (t 0.5) in every frame, and the
    seat-coloured fields' judge left it unknown, though its pattern named it plainly."""
    reader, board = photo_boards("6seg-lamp-10", 182)
    for k in range(4):
        frame, truth = board(7, k)
        assert truth["S4K2"] == "s4"
        got = dict(zip(reader.cal.field_ids, reader.read(frame).labels))
        assert got["S4K2"] == "s4", k
        assert all(lab in ("unknown", truth.get(f, "empty")) for f, lab in got.items()), k
