"""Shared setups for the vision tests: simulated tables and their calibrations (built once)."""
from __future__ import annotations

import dataclasses
import fcntl
import importlib
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import engine
from hardware.simtable import CameraPose, SceneEffects, SimTable
from vision.calibration import Calibration, calibrate


_SCRIPTS = str(Path(__file__).resolve().parents[2] / "scripts")


@pytest.fixture(scope="module")
def script():
    """scripts/<name>.py as a module, by name (the photo-like scene and its benchmark)."""
    if _SCRIPTS not in sys.path:
        sys.path.insert(0, _SCRIPTS)
    return importlib.import_module


@pytest.fixture(scope="module")
def eve(script):
    """The second, evening scene (scripts/photo_scene_evening.py), written apart from the first."""
    return script("photo_scene_evening")


@pytest.fixture(scope="module")
def photo_boards(script) -> Callable[[str, int], tuple[Any, Callable[[int], tuple[np.ndarray, dict[str, str]]]]]:
    """`photo_boards(setup_name, seed)`: a reader calibrated as the photo benchmark calibrates that setup
    on that scene seed, and `board(i)`: the benchmark's i-th board there (frame, truth), one it reads
    without lit rings (the benchmark lights them on every third board); `board(i, k)`: the k-th still
    frame the benchmark serves of it (`served_board`; the 0th is the first)."""
    from vision.reader import BoardReader

    bench = script("bench_vision_photo")

    def make(setup_name: str, seed: int):
        setup = next(s for s in bench.SETUPS if s.name == setup_name)
        scene = bench.PhotoScene(setup, seed=seed)
        cal = bench.with_rings_learned(scene, bench.calibrate_try(scene, 0, bench.CAL_FRAMES), bench.LED_COLOURS)
        base = bench.start_position(setup)

        def board(i: int, k: int = 0) -> tuple[np.ndarray, dict[str, str]]:
            rng = np.random.default_rng([seed, 9, len(setup_name)])
            for _ in range(i + 1):
                pos = bench.random_position(rng, base)
            assert i % 3 != 2  # the benchmark lights rings on every third board
            return scene.render(pos, frame_index=1000 + i if k == 0 else 20000 + 100 * i + k), pos.field_occupancy()

        return BoardReader(cal), board

    return make


@pytest.fixture(scope="session")
def made_once(tmp_path_factory) -> Callable[[str, Callable[[], Any]], Any]:
    """`made_once(key, make)`: `make()` once per test run, also when xdist's workers share the tests
    out: the first worker to ask makes it, under a lock, and leaves it pickled in the run's temporary
    folder (the workers share its parent); a worker that asks later, or while it is being made, loads
    it. For a value that depends on its key alone, as a calibration on the frames it was made from."""
    shared = tmp_path_factory.getbasetemp().parent if os.environ.get("PYTEST_XDIST_WORKER") else None
    memo: dict[str, Any] = {}

    def get(key: str, make: Callable[[], Any]) -> Any:
        if key not in memo:
            memo[key] = make() if shared is None else _made_or_loaded(shared / f"made-once-{key}", make)
        return memo[key]

    return get


def _made_or_loaded(stem: Path, make: Callable[[], Any]) -> Any:
    path, partial = Path(f"{stem}.pickle"), Path(f"{stem}.partial")
    with open(f"{stem}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if the worker dies
        if path.exists():
            return pickle.loads(path.read_bytes())
        value = make()
        partial.write_bytes(pickle.dumps(value))
        partial.replace(path)
        return value


def start_position(segments: int = 4, board: str = "standard") -> engine.Position:
    pos = engine.parse_position({"variant": "classic", "board": segments, "pieces": [["K"] * 4] * segments})
    return dataclasses.replace(pos, board=engine.load_board(board, segments))


def empty_of(pos: engine.Position) -> engine.Position:
    return dataclasses.replace(pos, pieces=tuple(() for _ in pos.pieces), black_dog=None)


def some_position(board: str = "standard", disc: int = 0) -> engine.Position:
    pos = engine.parse_position({"variant": "classic", "pieces": [
        ["T0", "T7", "H1", "K"], ["T16", "T33", "K", "K"], ["T40", "K", "K", "K"], ["T50", "T9", "K", "K"]]})
    pos = dataclasses.replace(pos, board=engine.load_board(board, 4))
    if board == "black":
        pos = dataclasses.replace(pos, black_dog=21, disc=disc)
    return pos


def calibrated(table: SimTable, board: str = "standard") -> Calibration:
    start = start_position(table.segments, board)
    if board == "black":  # the dog stands in the start picture so that its colour is learned
        start = dataclasses.replace(start, black_dog=5)
    return calibrate(table.render(empty_of(start), frame_index=0), table.segments, board,
                     table.render(start, frame_index=1), start.field_occupancy())


def marker_canvas(ids: tuple[int, ...] = (0, 1, 2, 3), size: tuple[int, int] = (800, 600)) -> np.ndarray:
    """A plain picture with ArUco markers at the geometry's corners (no renderer: just cv2)."""
    geo = engine.load_geometry(4)
    scale = 0.8
    img = np.full((size[1], size[0], 3), 200, np.uint8)
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for mid in ids:
        (x, y), side = geo.markers[mid]
        s = int(round(side * scale))
        m = cv2.aruco.generateImageMarker(d, mid, s, borderBits=1)
        u, v = int(size[0] / 2 + x * scale - s / 2), int(size[1] / 2 + y * scale - s / 2)
        img[v - 8 : v + s + 8, u - 8 : u + s + 8] = 255
        img[v : v + s, u : u + s] = m[..., None]
    return img


@pytest.fixture(scope="session")
def table() -> SimTable:
    return SimTable(4, seed=3)


@pytest.fixture(scope="session")
def cal(table: SimTable) -> Calibration:
    return calibrated(table)


@pytest.fixture(scope="session")
def harsh_table() -> SimTable:
    return SimTable(4, seed=4, effects=SceneEffects.harsh())


@pytest.fixture(scope="session")
def harsh_cal(harsh_table: SimTable) -> Calibration:
    return calibrated(harsh_table)


POSES = {
    "straight": CameraPose(tilt_deg=0.0),
    "tilted": CameraPose(tilt_deg=15.0),
    "turned": CameraPose(yaw_deg=5.0, tilt_deg=10.0),
    "low": CameraPose(height_mm=900.0, focal_px=820.0),
}


@pytest.fixture(scope="session")
def h():
    """The helpers above, for test modules (importlib mode: tests cannot import conftest)."""
    import types

    return types.SimpleNamespace(start_position=start_position, empty_of=empty_of, some_position=some_position,
                                 calibrated=calibrated, marker_canvas=marker_canvas, POSES=POSES)
