"""The service's LED-blanking fallback (`TableDevices._fill_from_dark` / `_read_dark`), on real parts.

White pieces on the cream 6-segment board look like empty fields; a lit LED ring changes a
field's look as much as a white piece does. A calibration that did not learn the rings'
glow reads fields next to lit LEDs as 'unknown', and the service then takes one frame with
the LEDs blanked to read them. Here `dogtable run`'s wiring runs on the simulated table:
the service lights rings on the recording strip, the simulated camera renders the lit
rings, vision (real OpenCV) reads the frames.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import pytest

import engine
from companion import settings as S
from companion import table as T
from companion.commands.service import Running, start_service
from companion.devices import TableDevices
from polling import SteppedTable

pytest.importorskip("vision.reader")
pytest.importorskip("hardware.simtable")

CONFIG = """
[table]
segments = {segments}
edition = "classic"
[leds]
backend = "simulated"
[encoder]
backend = "none"
[buttons]
backend = "none"
[camera]
backend = "simulated"
fps = 30
[service]
players = {segments}
mode = "highlight"
journal = "{tmp}/journal.sqlite"
calibration = "{calibration}"
[web]
port = 0
pin = "432100"
"""


def config(tmp: Path, segments: int, calibration: Path | str = "") -> Path:
    path = tmp / "dogtable.toml"
    path.write_text(CONFIG.format(segments=segments, tmp=tmp, calibration=calibration))
    return path


def calibrate_dark(tmp: Path, segments: int) -> Path:
    """Calibrate on the simulated camera's renderer with no LED lit: no glow learned."""
    from hardware.factory import simulated_camera, start_position
    from vision.calibration import calibrate

    render = simulated_camera(S.load(config(tmp, segments)).hardware)
    start = start_position("classic", segments)
    empty = dataclasses.replace(start, pieces=tuple(() for _ in start.pieces))
    cal = calibrate(render.render(empty, frame_index=0), segments, "standard", render.render(start, frame_index=1),
                    start.field_occupancy())
    assert not cal.has_glow
    path = tmp / "calibration.json"
    cal.save(path)
    return path


@pytest.fixture(scope="module")
def six(tmp_path_factory) -> Path:
    path = calibrate_dark(tmp_path_factory.mktemp("cal6"), 6)
    from vision.calibration import load_calibration

    assert load_calibration(path).pale_seats == (4,)  # white pieces: the 5th seat
    return path


def settled_on(td: TableDevices, pos: engine.Position, after_frame: int = 0) -> bool:
    """The camera's newest status: the board settled, read as `pos`, on a frame after `after_frame`."""
    st = td.last_status
    return td.frames > after_frame and st is not None and st.kind == "settled" and st.board == pos.field_occupancy()


def start_table(tmp: Path, segments: int, calibration: Path) -> Running:
    settings = S.load(config(tmp, segments, calibration))
    return start_service(argparse.Namespace(new=True, seed=0), settings, sim=False, link=None)


def test_pale_pieces_next_to_lit_leds_are_read_from_a_blanked_frame(tmp_path: Path, six: Path) -> None:
    run = start_table(tmp_path, 6, six)
    svc, td = run.service, run.table
    dev = td.devices
    play, strip, ledmap = dev.table, dev.strip, dev.leds.ledmap
    try:
        assert td.working() == ["leds", "camera"]
        table = SteppedTable(td)  # camera and LED animation stepped on a fake clock: no wall-clock timing
        # The pieces set out, no LED lit: the camera confirms the start, nothing blanked.
        assert table.until(lambda: svc.state.phase == "exchange"), td.last_status
        # A white piece (seat 4) on its start field T64, in the belief and on the table.
        pos = engine.parse_position({"variant": "classic", "board": 6,
                                     "pieces": [["K"] * 4] * 4 + [["T64", "K", "K", "K"], ["K"] * 4]})
        svc.submit(T.SetPosition(json.dumps(pos.to_json()), "web"))
        moved = td.frames
        play.set_position(pos)
        assert table.until(lambda: settled_on(td, pos, moved + 3)), td.last_status
        assert td.blanked == 0 and strip.lit_fields(ledmap) == {}

        # White's turn with a 2: the piece on T64 may move (orange, pulsing), T66 is the target (blue).
        svc.submit(T.SetTurn(4, "web"))
        since_strip, since_frames = strip.shown, td.frames
        svc.submit(T.CardSeen("2", None, "web"))
        assert run.lights.subscription.wait_idle(30)  # the rings are written on their own thread
        assert run.lights.roles(svc.state) == {"T64": "movable", "T66": "target"}
        lit = td.lit_fields()
        assert set(lit) == {"T64", "T66"}

        # Without a blanked frame those fields cannot be read: the white piece under its lit ring
        # and the empty fields around both rings read 'unknown' in the LED light.
        frame = play.table.render(pos, lit=strip.lit_fields(ledmap), frame_index=10_000)
        reading = td.reader.read(frame, lit=lit)
        assert "T64" in reading.unknown and "T66" in reading.unknown
        assert td.reader.unknown_only_near_lit(reading, lit)
        # ... but an unknown field far from any lit ring is not the LEDs' doing: no blank frame for it
        far = [lab if f != "T20" else "unknown" for f, lab in zip(reading.field_ids, reading.labels)]
        assert not td.reader.unknown_only_near_lit(dataclasses.replace(reading, labels=tuple(far)), lit)

        # The service blanks the LEDs for a frame, fills the unknown fields from it, and the board settles.
        assert table.until(lambda: td.blanked >= 1 and settled_on(td, pos, since_frames)), (td.blanked, td.last_status)
        assert svc.state.flag is None and svc.state.verdict is None and svc.state.card == "2"
        assert T.occupancy(svc.state.position) == T.occupancy(pos)

        # The strip went dark for it, and the service's LEDs came back on.
        shown = [f for f in list(strip.frames) if f.index >= since_strip]
        dark = [i for i, f in enumerate(shown) if not strip.lit_fields(ledmap, f)]
        assert dark, "the LEDs were never blanked"
        assert any(set(strip.lit_fields(ledmap, f)) == {"T64", "T66"} for f in shown[dark[0] + 1:])
        assert table.until(lambda: set(strip.lit_fields(ledmap)) == {"T64", "T66"})

        # While nothing moves the blanked frame's reading is reused: not one blank per frame.
        frames, blanked = td.frames, td.blanked
        table.steps(20)
        assert td.blanked - blanked <= 2, (td.blanked - blanked, td.frames - frames)
        assert settled_on(td, pos)
    finally:
        run.stop()
    assert strip.closed and sum(map(sum, strip.current)) == 0


def test_nothing_is_blanked_without_unknown_fields_near_lit_leds(tmp_path: Path) -> None:
    """A 4-segment board has no pale pieces: lit rings leave every field readable, no frame is blanked."""
    run = start_table(tmp_path, 4, calibrate_dark(tmp_path, 4))
    svc, td = run.service, run.table
    strip, ledmap = td.devices.strip, td.devices.leds.ledmap
    try:
        table = SteppedTable(td)
        assert table.until(lambda: svc.state.phase == "exchange"), td.last_status
        svc.submit(T.CardSeen("1/11", None, "web"))  # red may come out: T0 lit as the target
        assert run.lights.subscription.wait_idle(30)  # the rings are written on their own thread
        assert table.until(lambda: "T0" in strip.lit_fields(ledmap))
        frames = td.frames
        assert table.until(lambda: settled_on(td, svc.state.position, frames + 20)), td.last_status
        assert td.blanked == 0
        frame = td.devices.table.table.render(svc.state.position, lit=strip.lit_fields(ledmap), frame_index=10_000)
        assert td.reader.read(frame, lit=td.lit_fields()).unknown == ()
    finally:
        run.stop()


def test_a_play_of_another_table_lit_in_its_players_colour_is_read_with_the_leds_blanked(tmp_path: Path) -> None:
    """Rings in a piece's colour (a play made at another table, `remote_from/to-<colour>`) look like
    that piece: the service never takes those fields from a lit frame, only from a blanked one."""
    from hardware.leds import PLAYER_RGB
    from vision.reader import unread

    run = start_table(tmp_path, 4, calibrate_dark(tmp_path, 4))
    svc, td = run.service, run.table
    dev = td.devices
    play, strip, ledmap = dev.table, dev.strip, dev.leds.ledmap
    try:
        table = SteppedTable(td)
        assert table.until(lambda: svc.state.phase == "exchange"), td.last_status
        # a blue piece on T12 that a red piece from T8 is to capture (as another table played it)
        pos = engine.parse_position({"variant": "classic", "board": 4,
                                     "pieces": [["T8", "K", "K", "K"], ["T12", "K", "K", "K"], ["K"] * 4, ["K"] * 4]})
        svc.submit(T.SetPosition(json.dumps(pos.to_json()), "web"))
        moved = td.frames
        play.set_position(pos)
        assert table.until(lambda: settled_on(td, pos, moved + 3)), td.last_status
        assert td.blanked == 0

        job = {"T8": "remote_from-red", "T12": "remote_to-red"}
        run.lights.overlay = lambda: job
        run.lights.refresh()
        lights = dev.leds.lights
        assert {f: (lights[f].colour, lights[f].pattern, lights[f].eye_only) for f in job} == {
            "T8": (PLAYER_RGB["red"], "pulse", True), "T12": (PLAYER_RGB["red"], "solid", True)}
        assert table.until(lambda: set(strip.lit_fields(ledmap)) == {"T8", "T12"})
        # the LEDs' red reaches the camera on both fields
        frame = play.table.render(pos, lit=strip.lit_fields(ledmap), frame_index=10_000)
        assert unread(td.reader.read(frame, lit=td.lit_fields()), job).unknown == ("T8", "T12")

        # so the service blanks the rings for a frame and reads both fields from it; the board stays settled
        frames = td.frames
        assert table.until(lambda: td.blanked >= 1 and settled_on(td, pos, frames + 3)), (td.blanked, td.last_status)
        assert table.until(lambda: set(strip.lit_fields(ledmap)) == {"T8", "T12"})  # and lit again
        # while nothing moves that frame's reading is reused: not one blank per frame
        frames, blanked = td.frames, td.blanked
        table.steps(20)
        assert td.blanked - blanked <= 2, (td.blanked - blanked, td.frames - frames)
        assert settled_on(td, pos)
        assert T.occupancy(svc.state.position) == T.occupancy(pos)
    finally:
        run.lights.overlay = None
        run.stop()
