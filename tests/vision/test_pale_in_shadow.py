"""A white pawn in a standing neighbour's shadow is read by its pattern, never empty by its colour.

On the track a pale seat's piece is told from the empty field by its pattern (vision.pale); where
the pattern cannot tell beside a standing piece, the colour decides if it is far from both looks
(vision.own_colour, tier "far"). In a dim lamp's light the neighbour's shadow darkens a white pawn
towards the cream field's look: on the photo scene's dim 6-segment board the mean of eight still
frames of a white pawn on T94, beside a standing piece, put it a fifth of the way from the empty
field to the white piece, and the table committed the field as empty, though the pattern, judged
out of the shadow's reach, named a piece. A shadow only darkens: where the pattern names a piece
and the colour doubts it, the colour reads the field empty only past the empty look (away from
the pale piece's), and as the pale piece a clear way towards it. Seeded: a tuning seed of the
scene (the benchmark's held-out seeds start at 101).
"""
from __future__ import annotations

import pytest

from vision.settle import SettleFilter
from vision.still_stack import StillStack

SEED = 6  # a tuning seed of the first photo scene
SETUP = "dim-6seg-lamp"
BOARD = 16  # the benchmark's board with a white pawn on T94 beside a standing piece
FRAMES = 16


@pytest.fixture(scope="module")
def dim(photo_boards):
    return photo_boards(SETUP, SEED)


def test_a_white_pawn_in_a_neighbour_s_shadow_is_committed_as_the_pawn(dim) -> None:
    reader, board = dim
    stack, settle = StillStack(reader), SettleFilter()
    row = reader.cal.field_ids.index("T94")
    judged = []  # per reading: was T94's colour nearest the empty field's, and did the pattern name a piece
    spy = reader._pale.judge

    def judge(m, d, cls, lit):
        out = spy(m, d, cls, lit)
        judged.append((int(d[row].argmin()) == 0, bool(out[3][row])))
        return out

    reader._pale.judge = judge
    committed = None
    for k in range(FRAMES):
        frame, truth = board(BOARD, k)
        assert truth["T94"] == "s4"  # a white pawn
        out = stack.read(frame, reader.read(frame))
        settle.forget(stack.doubted)
        status = settle.feed(out, k / 15)
        if status.committed:  # (a single frame may still read it empty: the mean speaks for them)
            committed = committed or status.board
            assert status.board.get("T94", "empty") == "s4", k
    # the pawn's colour lay nearest the empty field's every time, and a mean's pattern named a piece
    assert all(nearest for nearest, _ in judged)
    assert any(contested for _, contested in judged)
    assert committed == truth  # the whole board, first committed within FRAMES still frames
