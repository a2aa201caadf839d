"""The lit-ring stress of scripts/bench_vision_photo.py (`--rings`), a few seeded boards of it.

The table lights rings in its own colours (hardware/leds.py: amber for a piece that may move,
light blue for where it may go, green for a confirmed play) under pieces of every kind. Vision
is told which rings are lit and in what colour; a lit field may be left "unknown" (the service
reads it again), never read wrong. Every occupied field's ring is lit here, and three empty ones.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

_SCRIPTS = str(Path(__file__).resolve().parents[2] / "scripts")


@pytest.fixture(scope="module")
def bench():
    """scripts/bench_vision_photo.py (and the photo scene it renders with)."""
    if _SCRIPTS not in sys.path:
        sys.path.insert(0, _SCRIPTS)
    return importlib.import_module("bench_vision_photo")


def _stress(bench, name: str, seed: int, frames: int) -> dict:
    setup = importlib.import_module("photo_scene").setup_named(name)
    row = bench.ring_setup(setup, tries=1, frames=frames, seed=seed)
    assert "refused" not in row, row.get("refused")
    assert row["lit"] > 15 * frames  # every piece's ring and three empty ones, each board
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
