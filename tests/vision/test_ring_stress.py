"""The lit-ring stress of scripts/bench_vision_photo.py (`--rings`), a few seeded boards of it.

The table lights rings in its own colours (hardware/leds.py: amber for a piece that may move,
light blue for where it may go, green for a confirmed play) under pieces of every kind. Vision
is told which rings are lit and in what colour; a lit field may be left "unknown" (the service
reads it again), never read wrong. Every occupied field's ring is lit here, and three empty ones.
"""
from __future__ import annotations

import sys

import pytest


@pytest.fixture(scope="module")
def bench(script):
    """scripts/bench_vision_photo.py (and the photo scene it renders with)."""
    return script("bench_vision_photo")


def _stress(bench, name: str, seed: int, frames: int, only: set[int] | None = None) -> dict:
    setup = sys.modules["photo_scene"].setup_named(name)
    row = bench.ring_setup(setup, tries=1, frames=frames, seed=seed, only=only)
    assert "refused" not in row, row.get("refused")
    assert row["lit"] > 15 * (frames if only is None else len(only))  # every piece's ring and three empty ones
    return row


def test_the_stress_lights_every_piece_and_a_few_empty_fields_in_the_table_s_colours(bench) -> None:
    import numpy as np

    rng = np.random.default_rng(3)
    fields = [f"T{i}" for i in range(64)]
    occupied = {"T1": "s0", "T7": "s2", "T40": "dog"}
    lit = bench.ring_lights(rng, occupied, fields)
    assert set(occupied) < set(lit) and len(lit) == len(occupied) + bench.RING_EMPTY
    assert set(lit.values()) <= set(bench.RING_COLOURS.values())
    assert bench.RING_COLOURS["green"] == (0, 255, 60)  # hardware.leds.PLAYED, not a colour of its own


@pytest.mark.parametrize("name, seed, frames", [("royal-two-20-linen", 6, 3)])
def test_pieces_in_the_table_s_lit_rings_are_never_read_wrong(bench, name: str, seed: int, frames: int) -> None:
    row = _stress(bench, name, seed, frames)
    assert row["wrong"] == {} and row["unlit_wrong"] == 0, row["examples"]
    assert row["right"] >= 0.85 * row["lit"]  # most are read, not left unknown


@pytest.mark.parametrize("name, seed, boards", [
    ("royal-lamp-12", 6, set(range(6))),  # a red royal piece on T17 (board 5) in the green ring: read yellow before
    ("royal-lamp-12", 8, {13, 28}),  # ... on S0H2 (yellow in both readings) and T24
    ("lamp-25-distorted", 6, {9, 18}),  # red (not royal) pieces in the green ring read yellow before
    ("black-window-22", 6, {0, 29}),  # a red piece read yellow, the black dog read green, in the green ring
])
def test_pieces_in_the_green_confirmed_play_ring_are_not_read_as_another_colour(bench, name: str, seed: int,
                                                                               boards: set[int]) -> None:
    # boards of the stress that had a wrong read before: a piece in the table's green ring (0, 255, 60)
    # looks like another seat's (red + green light = yellow; black + green light = green). The reader
    # follows the camera from frame to frame: a board read without the ones before it may read a little
    # differently (T17 needs boards 0-4 read first).
    row = _stress(bench, name, seed, max(boards) + 1, only=boards)
    assert row["wrong"] == {} and row["unlit_wrong"] == 0, row["examples"]
    assert row["right"] >= 0.8 * row["lit"]


def test_an_empty_field_in_its_own_amber_ring_is_not_read_as_a_white_piece(bench) -> None:
    # held-out seed 10, board 13: the empty T83 lit amber, its pattern 8.4 noise widths off its learned
    # lit look (LIT_Z_PIECE was 7.5; white pieces in their own ring: 13.4-14.5 at the 5th percentile on
    # seeds 6 and 8) and its colour as near white as empty; read as a white piece before (boards 0-12 first:
    # the reader follows the camera)
    row = _stress(bench, "6seg-lamp-10", 10, 14)
    assert row["wrong"] == {} and row["unlit_wrong"] == 0, row["examples"]
    assert row["right"] >= 0.75 * row["lit"]
