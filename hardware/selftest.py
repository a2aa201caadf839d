"""`dogtable hw test`: walk every LED ring, read the encoder and buttons, grab a frame.

On real hardware the checks are what a person can watch (rings lighting one by one) plus
what the program can read back. On the simulated table the program also plays the
person: it turns the disc and presses each button, and checks that the events arrive.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hardware.factory import Devices
from hardware.leds import Light


@dataclass(frozen=True)
class Check:
    device: str
    ok: bool | None  # None: not configured / not available here
    detail: str


def run_self_test(devices: Devices, ring_delay_s: float = 0.0, wait_s: float = 0.0,
                  progress: Callable[[str], None] | None = None) -> list[Check]:
    say = progress or (lambda _msg: None)
    out = []
    for name, fn in (("leds", _leds), ("encoder", _encoder), ("buttons", _buttons), ("camera", _camera)):
        if name in devices.problems:
            out.append(Check(name, None, devices.problems[name]))
            continue
        if getattr(devices, name) is None:
            out.append(Check(name, None, "not configured (backend \"none\")"))
            continue
        say(f"testing {name} ...")
        try:
            out.append(fn(devices, ring_delay_s, wait_s))
        except Exception as exc:  # a failing device is a result, not a crash
            out.append(Check(name, False, f"{type(exc).__name__}: {exc}"))
    return out


def _leds(devices: Devices, delay: float, _wait: float) -> Check:
    rings = devices.leds
    assert rings is not None
    fields = rings.ledmap.fields
    before = devices.strip.shown if devices.strip is not None else 0
    worst = 0.0
    for f in fields:
        rings.show({f: Light((255, 255, 255))})
        worst = max(worst, rings.last_estimate_ma)
        if delay:
            time.sleep(delay)
    rings.show({f: Light((255, 255, 255)) for f in fields})
    full_scale = rings.last_scale
    full_ma = rings.last_estimate_ma
    rings.clear()
    detail = (f"{len(fields)} rings, {rings.ledmap.count} LEDs walked; all white at brightness "
              f"{rings.brightness:.2f} would need scaling x{full_scale:.2f} to stay at {full_ma:.0f} mA "
              f"(budget {rings.budget.max_current_ma:.0f} mA)")
    if devices.strip is not None:
        shown = devices.strip.shown - before
        ok = shown >= len(fields) + 1 and all(sum(p) == 0 for p in devices.strip.current)
        return Check("leds", ok, f"{detail}; simulated strip recorded {shown} frames")
    return Check("leds", True, detail + " (watch the rings light one by one)")


def _encoder(devices: Devices, _delay: float, wait: float) -> Check:
    enc = devices.encoder
    assert enc is not None
    enc.read()
    table = devices.table
    if table is not None and getattr(table, "encoder_driver", None) is not None:
        if table.position.board.disc_fields:
            table.turn_disc(+1)
            table.settle()
        else:
            table.encoder_driver.turn(table.steps_per_quarter)
        turns = enc.read(now=enc.clock() + 10)
        ok = [t.direction for t in turns] == [1]
        return Check("encoder", ok, f"simulated quarter turn clockwise -> {len(turns)} event(s) "
                                    f"{[('cw' if t.clockwise else 'ccw') for t in turns]}; steps {enc.steps}")
    if wait > 0:
        end = time.monotonic() + wait
        turns = []
        while time.monotonic() < end and not turns:
            time.sleep(0.05)
            turns = enc.read()
        if turns:
            return Check("encoder", True, f"saw a quarter turn {'clockwise' if turns[0].clockwise else 'counter-clockwise'}")
        return Check("encoder", False, f"no quarter turn within {wait:.0f} s (steps counted: {enc.steps})")
    return Check("encoder", True, f"reading: {enc.steps} steps (run with --wait 10 and turn the disc to check events)")


def _buttons(devices: Devices, _delay: float, wait: float) -> Check:
    buttons = devices.buttons
    assert buttons is not None
    buttons.read()
    table = devices.table
    if table is not None and getattr(table, "buttons_driver", None) is not None:
        for name in buttons.names:
            table.press(name)
        events = buttons.read()
        pressed = [e.name for e in events if e.kind == "press"]
        ok = pressed == list(buttons.names)
        return Check("buttons", ok, f"simulated presses of {', '.join(buttons.names)} -> pressed {pressed}")
    states = ", ".join(f"{n} {'down' if buttons.is_pressed(n) else 'up'}" for n in buttons.names)
    if wait > 0:
        end = time.monotonic() + wait
        seen: set[str] = set()
        while time.monotonic() < end and seen != set(buttons.names):
            time.sleep(0.05)
            seen |= {e.name for e in buttons.read() if e.kind == "press"}
        missing = [n for n in buttons.names if n not in seen]
        return Check("buttons", not missing, f"pressed: {sorted(seen)}; never pressed: {missing}")
    return Check("buttons", True, f"{states} (run with --wait 10 and press each to check events)")


def _camera(devices: Devices, _delay: float, _wait: float) -> Check:
    import cv2

    cam = devices.camera
    assert cam is not None
    frame = cam.read()
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
        return Check("camera", False, f"{cam.name}: frame is not a colour image")
    h, w = frame.shape[:2]
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    _, ids, _ = detector.detectMarkers(frame)
    found = sorted(int(i) for i in ids.ravel() if 0 <= i <= 3) if ids is not None else []
    brightness = float(frame.mean())
    ok = brightness > 10 and (len(found) == 4 or devices.table is None)
    return Check("camera", ok, f"{cam.name}: {w}x{h}, mean level {brightness:.0f}, board markers seen {found}")
