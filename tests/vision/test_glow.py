"""White pieces next to lit LED rings on the 6-segment board: the lit looks calibration learns, and reading with them.

A lit ring floods its field's rim with light, which clips a white piece and the cream field
alike; the reader judges the inside of a lit field patch by patch against the field's learned
lit look. Unknown is allowed where it cannot tell; a wrong reading never.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import engine
from hardware.simtable import CameraPose, SceneEffects, SimTable
from hardware.simtable.render import with_effects
from vision.calibration import Calibration, calibrate, glow_groups, load_calibration
from vision.lit_pattern import patch_z, wilson_hilferty
from vision.reader import BoardReader
from vision.sampling import STRUCTURE_CELLS, STRUCTURE_POINTS, structure_cells

WHITE = (255, 255, 255)
GREEN = (0, 255, 0)
COLOURS = (WHITE, GREEN)


def six_start() -> engine.Position:
    return engine.parse_position({"variant": "classic", "board": 6, "pieces": [["K"] * 4] * 6})


def lit_calibration(table: SimTable) -> Calibration:
    start = six_start()
    empty = dataclasses.replace(start, pieces=tuple(() for _ in start.pieces))
    groups = glow_groups(6)
    lit_frames = [(table.render(empty, lit={f: c for f in g}, frame_index=900 + 20 * k + i), {f: c for f in g})
                  for k, c in enumerate(COLOURS) for i, g in enumerate(groups)]
    return calibrate(table.render(empty, frame_index=0), 6, "standard", table.render(start, frame_index=1),
                     start.field_occupancy(), lit_frames=lit_frames)


@pytest.fixture(scope="module")
def six() -> tuple[SimTable, Calibration]:
    table = SimTable(6, seed=5, pose=CameraPose(height_mm=1500.0))
    return table, lit_calibration(table)


# Seat 4 plays white: its pieces on T66, T70 and T88 and in its home.
POSITION = engine.parse_position({"variant": "classic", "board": 6, "pieces": [
    ["T1", "K", "K", "K"], ["T20", "K", "K", "K"], ["T33", "H0", "K", "K"],
    ["T50", "K", "K", "K"], ["T66", "T70", "T88", "H2"], ["T90", "K", "K", "K"]]})


def misread(reader: BoardReader, labels: tuple[str, ...], pos: engine.Position) -> dict[str, tuple[str, str]]:
    """Fields read as something they are not ("unknown" is not a misreading)."""
    truth = pos.field_occupancy()
    return {f: (lab, truth.get(f, "empty")) for f, lab in zip(reader.cal.field_ids, labels)
            if lab not in ("unknown", truth.get(f, "empty"))}


def test_the_lit_looks_are_learned_per_colour(six) -> None:
    _, cal = six
    assert cal.pale_seats == (4,) and cal.has_glow and cal.glow_colours == COLOURS
    assert cal.glow_pattern is not None and cal.glow_pattern.shape == (2, len(cal.field_ids), STRUCTURE_POINTS, 3)
    assert cal.glow_unsure is not None and cal.glow_unsure.shape == (2, len(cal.field_ids), STRUCTURE_CELLS, 3)
    assert cal.glow_light is not None and np.isfinite(cal.glow_light).all()
    # a ring lights its field's rim, hardly its middle
    cell = structure_cells()
    rim, middle = cell >= 9, cell == 0
    white = np.expm1(cal.glow_pattern[0])
    assert np.median(white[:, rim]) > 5 * max(np.median(white[:, middle]), 0.01)


def lit_rings(k: int) -> dict[str, tuple[int, int, int]]:
    """Rings lit over white pieces and empty fields, the two learned colours alternating, one white."""
    return {"T66": COLOURS[k % 2], "T70": COLOURS[(k + 1) % 2], "T88": COLOURS[k % 2],
            "T10": COLOURS[k % 2], "T40": COLOURS[(k + 1) % 2], "T80": WHITE}


def test_white_pieces_and_empty_fields_under_lit_rings_are_read(six) -> None:
    table, cal = six
    reader = BoardReader(cal)
    truth = POSITION.field_occupancy()
    read_pieces = 0
    for k in range(4):
        lit = lit_rings(k)
        reading = reader.read(table.render(POSITION, lit=lit, frame_index=30 + k), lit=lit)
        assert not reading.covered and reading.problem is None
        assert misread(reader, reading.labels, POSITION) == {}
        labels = dict(zip(reading.field_ids, reading.labels))
        for f in lit:
            if truth.get(f) == "s4":
                read_pieces += labels[f] == "s4"
            else:
                assert labels[f] == "empty", (k, f)
        assert set(reading.unknown) <= {f for f in lit if truth.get(f) == "s4"}
    assert read_pieces >= 9  # of 12: a piece may hide how bright its ring shines (then it is unknown)


def test_what_the_reader_cannot_judge_stays_unknown(six) -> None:
    """A blinking ring (no colour), a colour calibration never saw, a ring dimmer than learned."""
    table, cal = six
    reader = BoardReader(cal)
    for lit in ({"T66": None, "T10": None}, {"T66": (255, 0, 0), "T10": (255, 0, 0)}):
        render_lit = {f: c or WHITE for f, c in lit.items()}
        reading = reader.read(table.render(POSITION, lit=render_lit, frame_index=40), lit=lit)
        assert misread(reader, reading.labels, POSITION) == {}
        assert {"T66", "T10"} <= set(reading.unknown)
        assert any("LED light" in n for n in reading.notices)
    dim = with_effects(table, glow_strength=0.5)
    lit = {"T66": WHITE, "T70": GREEN, "T10": WHITE, "T40": GREEN}
    for k in range(3):
        reading = reader.read(dim.render(POSITION, lit=lit, frame_index=50 + k), lit=lit)
        assert misread(reader, reading.labels, POSITION) == {}


def test_harsh_light_never_misreads_lit_fields() -> None:
    table = SimTable(6, seed=1, pose=CameraPose(height_mm=1500.0), effects=SceneEffects.harsh())
    reader = BoardReader(lit_calibration(table))
    truth = POSITION.field_occupancy()
    read = 0
    for k in range(4):
        lit = lit_rings(k)
        reading = reader.read(table.render(POSITION, lit=lit, frame_index=30 + k), lit=lit)
        assert misread(reader, reading.labels, POSITION) == {}
        read += sum(lab == truth.get(f, "empty") for f, lab in zip(reading.field_ids, reading.labels) if f in lit)
    assert read >= 18  # of 24 lit fields


def test_the_lit_looks_survive_saving(six, tmp_path) -> None:
    table, cal = six
    cal.save(tmp_path / "cal6.json")
    back = load_calibration(tmp_path / "cal6.json")
    assert back.glow_colours == cal.glow_colours
    assert np.allclose(back.glow_unsure, cal.glow_unsure, atol=1e-4)
    assert np.allclose(back.glow_light, cal.glow_light, atol=1e-4)
    lit = {"T66": WHITE, "T10": GREEN}
    frame = table.render(POSITION, lit=lit, frame_index=60)
    assert BoardReader(back).read(frame, lit=lit).labels == BoardReader(cal).read(frame, lit=lit).labels


def test_structure_cells_cover_a_field_in_patches() -> None:
    cell = structure_cells()
    assert cell.shape == (STRUCTURE_POINTS,) and set(cell) == set(range(STRUCTURE_CELLS))
    assert np.bincount(cell).min() >= 5
    assert cell[0] == 0  # the spiral starts at the centre


def test_patch_z_scores() -> None:
    rng = np.random.default_rng(2)
    sigma = np.ones((3, 9))
    use = np.ones((3, 9), bool)
    quiet = rng.normal(0, 1, (60, 3, 9))
    assert abs(wilson_hilferty(27.0, 27)) < 0.5
    nothing = patch_z(rng.normal(0, 1, (3, 9)), sigma, use, quiet)
    piece = patch_z(rng.normal(0, 1, (3, 9)) + np.linspace(-4, 4, 9)[None, :], sigma, use, quiet)
    assert nothing < 2.5 < 8 < piece
    # a whole channel a little off, as the quiet fields are too: the light, not a piece
    offset = rng.normal(0, 1, (3, 9)) + np.array([3.0, 0.0, 0.0])[:, None]
    quiet_off = quiet + rng.normal(0, 3.0, (60, 3, 1))
    assert patch_z(offset, sigma, use, quiet_off) < patch_z(offset, sigma, use, quiet) - 2


def test_a_white_piece_beside_a_standing_piece_in_harsh_light_is_never_read_empty() -> None:
    """The white piece on T64 beside the piece on T65 keeps too little of its own pattern out of the
    neighbour's reach, so its kept points alone may look empty. Its colour leans to white, so the
    kept points must say "empty" plainly before it is read empty."""
    table = SimTable(6, seed=0, pose=CameraPose(height_mm=1500.0), effects=SceneEffects.harsh())
    reader = BoardReader(lit_calibration(table))
    pos = engine.parse_position({"variant": "classic", "board": 6, "pieces": [
        ["T50", "T86", "K", "K"], ["T57", "T77", "K", "K"], ["T32", "T74", "T80", "K"],
        ["T4", "T49", "T56", "T65"], ["T59", "T64", "T69", "H1"], ["T18", "T29", "T82", "K"]]})
    lit = {"S0H1": GREEN, "T91": (255, 0, 0), "T73": (0, 80, 255), "S5H1": (255, 200, 0), "T37": WHITE,
           "S3K3": GREEN}
    for k in range(4):
        for leds in (None, lit):
            reading = reader.read(table.render(pos, lit=leds, frame_index=60 + k), lit=leds)
            assert misread(reader, reading.labels, pos) == {}
