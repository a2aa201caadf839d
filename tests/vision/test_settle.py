from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import engine
from hardware.simtable import Hand
from vision.reader import BoardReader, FrameReading
from vision.settle import SettleFilter

IDS = ("T0", "T1", "T2")


def fake(labels: tuple[str, ...], covered: bool = False, light: float = 1.0, f: float = 0.0,
         problem: str | None = None) -> FrameReading:
    return FrameReading(IDS, labels, np.full((3, 3), f, np.float32), light, covered, (), problem)


def test_commits_once_after_settle_time() -> None:
    s = SettleFilter(settle_s=0.3)
    board = ("s0", "empty", "dog")
    kinds = [s.feed(fake(board), t / 30) for t in range(15)]
    committed = [k for k in kinds if k.committed]
    assert len(committed) == 1
    assert kinds.index(committed[0]) == 9  # 9 frames after the first = 0.3 s
    assert committed[0].board == {"T0": "s0", "T2": "dog"}
    assert kinds[-1].kind == "settled" and not kinds[-1].committed


def test_cover_resets_and_never_commits() -> None:
    s = SettleFilter(settle_s=0.3)
    t = 0.0
    for _ in range(20):
        st = s.feed(fake(("s0", "empty", "empty"), covered=True), t)
        assert st.kind == "covered" and not st.committed
        t += 1 / 30
    # Uncovered again: the full settle time must pass before a commit.
    results = [s.feed(fake(("s0", "empty", "empty")), t + i / 30) for i in range(12)]
    assert [r.committed for r in results].index(True) == 9


def test_light_jump_and_flicker_restart_the_wait() -> None:
    s = SettleFilter(settle_s=0.3)
    for i in range(8):
        assert not s.feed(fake(("empty",) * 3), i / 30).committed
    s.feed(fake(("empty",) * 3, light=1.6), 8 / 30)  # lights switched on
    assert not any(s.feed(fake(("empty",) * 3, light=1.6), (9 + i) / 30).committed for i in range(8))
    assert s.feed(fake(("empty",) * 3, light=1.6), 17 / 30).committed


def test_unknown_fields_and_problems_block() -> None:
    s = SettleFilter()
    for i in range(30):
        assert s.feed(fake(("unknown", "empty", "empty")), i / 30).kind == "covered"
    for i in range(30):
        st = s.feed(fake(("empty",) * 3, problem="marker 1 hidden"), 1 + i / 30)
        assert st.kind == "unreadable" and "marker 1" in st.message


def test_time_must_not_go_backwards() -> None:
    s = SettleFilter()
    s.feed(fake(("empty",) * 3), 1.0)
    with pytest.raises(ValueError):
        s.feed(fake(("empty",) * 3), 0.5)


def test_flicker_does_not_block_settling() -> None:
    s = SettleFilter(settle_s=0.3)
    lights = [1.0, 1.07, 0.95, 1.04, 0.93, 1.06, 0.98, 1.02, 0.96, 1.05, 1.0, 0.97]
    results = [s.feed(fake(("s0", "empty", "empty"), light=v), i / 30) for i, v in enumerate(lights)]
    assert any(r.committed for r in results)


@pytest.mark.parametrize("skin", [0, 1, 2, 3])
def test_scripted_hand_sequence_on_rendered_frames(h, table, cal, skin: int) -> None:
    """Hand comes in, moves a piece, rests still, leaves: one commit before, one after, none between."""
    reader = BoardReader(cal)
    before = h.some_position()
    pieces = list(before.pieces)
    pieces[2] = tuple(sorted([41 if loc == 40 else loc for loc in pieces[2]]))
    after = dataclasses.replace(before, pieces=tuple(pieces))
    script: list[tuple[engine.Position, Hand | None, int]] = [
        (before, None, 8),
        (before, Hand(edge="top", reach=0.2, skin=skin), 2),
        (before, Hand(edge="top", target="T40", skin=skin), 3),
        (after, Hand(edge="top", target="T41", height_mm=30, skin=skin), 8),  # still hand, longer than settle
        (after, Hand(edge="top", reach=0.2, skin=skin), 2),
        (after, None, 8),
    ]
    s = SettleFilter(settle_s=0.3)
    t, k = 0.0, 100
    commits = []
    for pos, hand, n in script:
        for _ in range(n):
            st = s.feed(reader.read(table.render(pos, hand=hand, frame_index=k)), t)
            if st.committed:
                commits.append((hand is not None, st.board))
            t += 1 / 15
            k += 1
    assert commits == [(False, before.field_occupancy()), (False, after.field_occupancy())]


def _settle(s: SettleFilter, labels: tuple[str, ...], t0: float, n: int = 12) -> list:
    return [s.feed(fake(labels), t0 + i / 30) for i in range(n)]


def test_commits_a_move_despite_an_unknown_field_it_did_not_touch() -> None:
    s = SettleFilter(settle_s=0.3)
    _settle(s, ("s0", "empty", "s1"), 0.0)
    assert s.committed_board == {"T0": "s0", "T2": "s1"}
    # s0 moves T0 -> T1 while T2 (not part of the move) reads unknown: committed, T2 kept as it was
    out = _settle(s, ("empty", "s0", "unknown"), 1.0)
    done = [o for o in out if o.committed]
    assert len(done) == 1 and done[0].board == {"T1": "s0", "T2": "s1"} and done[0].assumed == ("T2",)


def test_never_commits_when_the_change_touches_an_unknown_field() -> None:
    s = SettleFilter(settle_s=0.3)
    _settle(s, ("s0", "empty", "empty"), 0.0)
    # s0 leaves T0 and its new field T2 reads unknown: the piece would vanish, so nothing commits
    out = _settle(s, ("empty", "empty", "unknown"), 1.0)
    assert not any(o.committed for o in out) and s.committed_board == {"T0": "s0"}
    assert out[-1].kind == "settling" and "T2" in out[-1].message
    # the referee may refuse a change too
    s = SettleFilter(settle_s=0.3, explains=lambda before, after, unknown: False)
    _settle(s, ("s0", "empty", "s1"), 0.0)
    assert not any(o.committed for o in _settle(s, ("empty", "s0", "unknown"), 1.0))


def test_unknown_before_any_commit_or_too_many_unknowns_never_commit() -> None:
    s = SettleFilter(settle_s=0.3, max_unknown=1)
    assert not any(o.committed for o in _settle(s, ("s0", "unknown", "empty"), 0.0))
    _settle(s, ("s0", "empty", "empty"), 1.0)
    s.feed(fake(("s0", "empty", "empty"), covered=True), 1.95)  # a hand: what was read before no longer counts
    out = _settle(s, ("unknown", "unknown", "empty"), 2.0)
    assert all(o.kind == "covered" and not o.committed for o in out)


def test_a_field_read_in_any_still_frame_is_known() -> None:
    """Unknown fields come and go from frame to frame (glare, JPEG): while the board stands
    still, a field read in one frame is known in the others; one never read stays unknown."""
    s = SettleFilter(settle_s=0.3, max_unknown=1)
    s.expect({"T0": "s0"})
    frames = [("empty", "s0", "unknown"), ("unknown", "s0", "empty"), ("empty", "unknown", "unknown")] * 4
    out = [s.feed(fake(lab), i / 30) for i, lab in enumerate(frames)]
    done = [o for o in out if o.committed]
    assert len(done) == 1 and done[0].board == {"T1": "s0"} and done[0].assumed == ()
    # a field read differently after unknown frames has changed: the wait starts again
    s = SettleFilter(settle_s=0.3)
    _settle(s, ("s0", "empty", "empty"), 0.0)
    frames = [("unknown", "unknown", "empty")] * 2 + [("empty", "s0", "empty")] * 12
    out = [s.feed(fake(lab), 1 + i / 30) for i, lab in enumerate(frames)]
    done = [i for i, o in enumerate(out) if o.committed]
    assert done == [2 + 9] and out[done[0]].board == {"T1": "s0"}  # 0.3 s after the move was first seen


def test_expected_board_lets_the_first_move_commit_despite_an_unknown_field() -> None:
    s = SettleFilter(settle_s=0.3)
    s.expect({"T0": "s0", "T2": "s1"})
    done = [o for o in _settle(s, ("empty", "s0", "unknown"), 0.0) if o.committed]
    assert len(done) == 1 and done[0].board == {"T1": "s0", "T2": "s1"}


def test_what_lucky_frames_said_of_a_field_is_forgotten() -> None:
    """A field one frame read (by the luck of its noise) and the still frames' mean could not read
    (vision.still_stack `doubted`) is unknown again: the board waits instead of committing it."""
    s = SettleFilter(settle_s=0.3)
    s.feed(fake(("s0", "empty", "empty")), 0.0)  # a frame reads T2 (a white pawn, say) as empty
    for i in range(1, 15):
        if i == 3:
            s.forget(("T2",))  # the mean of the frames so far cannot read T2
        st = s.feed(fake(("s0", "empty", "unknown")), i / 30)
        assert not st.committed, i
        if i >= 3:
            assert st.kind == "covered" and "T2" in st.message, i
    # without the mean's doubt, the frame's word stands and the board commits
    s = SettleFilter(settle_s=0.3)
    s.feed(fake(("s0", "empty", "empty")), 0.0)
    assert any(s.feed(fake(("s0", "empty", "unknown")), i / 30).committed for i in range(1, 15))
