"""A board too dark for the camera, seen on the page in Chromium: "more light on the board".

The picture comes from the second photo scene (scripts/photo_scene_evening.py, written apart from
the simulated table and from vision): a warm bulb at -2.5 EV and a small camera at gain 16. The
table opens the calibration as it does at start (`TableDevices._open_vision`), reads the frame with
the real board reader and tells the page; a phone shows the line in its own language, and it goes
once the light is back. Screenshots: test-artifacts/browser/camera-hint/.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from companion.devices import HINT_HOLD_FRAMES, TableDevices
from companion.service import Service
from companion.web.server import WebServer

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser" / "camera-hint"

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing (apt-get install -y chromium)")
pytest.importorskip("cv2")


def _evening():
    spec = importlib.util.spec_from_file_location("photo_scene_evening", ROOT / "scripts" / "photo_scene_evening.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["photo_scene_evening"] = mod
    spec.loader.exec_module(mod)
    return mod


def _calibrated(eve, setup, path: Path):
    """The scene, its calibration saved at `path` (as `dogtable vision calibrate` leaves it), and a
    frame of the start position."""
    from vision.calibration import calibrate

    scene = eve.EveningScene(setup, seed=2)
    start = eve.start_position(setup)
    cal = calibrate([scene.render(eve.empty_of(start), frame_index=i) for i in range(2)], setup.segments,
                    setup.board, [scene.render(start, frame_index=50 + i) for i in range(2)],
                    start.field_occupancy())
    cal.save(path)
    return cal, scene.render(start, frame_index=1000)


def test_a_phone_shows_more_light_while_the_board_is_too_dark(web_service: tuple[Service, WebServer],
                                                             tmp_path: Path) -> None:
    api = pytest.importorskip("playwright.sync_api")
    sync_playwright, expect = api.sync_playwright, api.expect
    service, web = web_service
    eve = _evening()
    bulb = eve.evening_named("eve-bulb-4seg")
    assert (service.state.position.board.segments, service.state.position.board.kind) == (bulb.segments, bulb.board)
    path = tmp_path / "calibration.json"
    dark_cal, dark = _calibrated(eve, dataclasses.replace(bulb, ev=-2.5, gain=16.0, patch=0.7), path)
    assert any("more light" in w for w in dark_cal.report.get("warnings", []))  # the calibration warned first

    devices = TableDevices(service, SimpleNamespace(encoder=None, leds=None, camera=None),
                           SimpleNamespace(calibration_path=lambda: path))
    devices._open_vision()
    assert devices.reader is not None, service.devices_status
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {ARTIFACTS}")
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            phone = browser.new_page(viewport={"width": 390, "height": 844})
            phone.on("pageerror", lambda e: errors.append(str(e)))
            phone.goto(web.url)
            phone.wait_for_selector("[data-field=T0]")
            expect(phone.locator("#devices")).not_to_contain_text("more light")

            devices.process(dark, 0.0)
            expect(phone.locator("#devices")).to_contain_text(
                "more light on the board: in this light the camera cannot tell some pieces from empty holes")
            phone.screenshot(path=str(ARTIFACTS / "1-too-dark.png"), full_page=True)
            phone.select_option("#lang", "de")
            expect(phone.locator("#devices")).to_contain_text("mehr Licht aufs Brett")
            phone.select_option("#lang", "en")

            _, bright = _calibrated(eve, dataclasses.replace(bulb, ev=0.0, gain=1.0), path)
            devices._open_vision()  # calibrated again under a lamp, as the hint asked
            for i in range(HINT_HOLD_FRAMES):  # the line holds a while, so that it does not flicker
                devices.process(bright, 0.1 * (i + 1))
            assert service.devices_status.get("hints")
            expect(phone.locator("#devices")).to_contain_text("more light on the board")
            devices.process(bright, 0.1 * (HINT_HOLD_FRAMES + 1))
            assert not service.devices_status.get("hints")
            expect(phone.locator("body")).not_to_contain_text("more light on the board")
            phone.screenshot(path=str(ARTIFACTS / "2-light-back.png"), full_page=True)
        finally:
            browser.close()
    assert not errors, errors
