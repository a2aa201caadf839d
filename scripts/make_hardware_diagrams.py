"""Draw the pictures of docs/hardware.md into docs/img/ (wiring, markers, LED chain, a simulated frame).

The pin numbers come from the packaged default configuration, so the wiring picture and
the config cannot drift apart: change a pin in companion/data/default-config.toml, run
this again.

Run: .venv/bin/python scripts/make_hardware_diagrams.py
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

import engine
from companion.config import load_config
from hardware.ledmap import LedMap
from hardware.simtable import CameraPose, Hand, SceneEffects, SimTable
from hardware.simtable.board import BoardLook, Canvas, static_board

OUT = Path(__file__).resolve().parent.parent / "docs" / "img"
FONT = cv2.FONT_HERSHEY_SIMPLEX
INK = (40, 40, 40)
PAPER = (250, 250, 250)

# The 40-pin header: physical pin -> label (BCM numbers as "GPIOn").
HEADER = {
    1: "3V3", 2: "5V", 3: "GPIO2", 4: "5V", 5: "GPIO3", 6: "GND", 7: "GPIO4", 8: "GPIO14", 9: "GND", 10: "GPIO15",
    11: "GPIO17", 12: "GPIO18", 13: "GPIO27", 14: "GND", 15: "GPIO22", 16: "GPIO23", 17: "3V3", 18: "GPIO24",
    19: "GPIO10", 20: "GND", 21: "GPIO9", 22: "GPIO25", 23: "GPIO11", 24: "GPIO8", 25: "GND", 26: "GPIO7",
    27: "GPIO0", 28: "GPIO1", 29: "GPIO5", 30: "GND", 31: "GPIO6", 32: "GPIO12", 33: "GPIO13", 34: "GND",
    35: "GPIO19", 36: "GPIO16", 37: "GPIO26", 38: "GPIO20", 39: "GND", 40: "GPIO21",
}


def physical(gpio: int) -> int:
    return next(p for p, name in HEADER.items() if name == f"GPIO{gpio}")


def text(img: np.ndarray, s: str, org: tuple[int, int], scale: float = 0.55, colour=INK, thick: int = 1) -> None:
    cv2.putText(img, s, org, FONT, scale, colour, thick, cv2.LINE_AA)


def box(img: np.ndarray, x: int, y: int, w: int, h: int, title: str, fill=(235, 235, 235), lines=()) -> None:
    cv2.rectangle(img, (x, y), (x + w, y + h), fill, -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), INK, 2)
    text(img, title, (x + 10, y + 24), 0.62, INK, 2)
    for i, line in enumerate(lines):
        text(img, line, (x + 10, y + 48 + 20 * i), 0.48)


def wire(img: np.ndarray, pts: list[tuple[int, int]], colour, label: str = "") -> None:
    cv2.polylines(img, [np.array(pts, np.int32)], False, colour, 3, cv2.LINE_AA)
    for p in (pts[0], pts[-1]):
        cv2.circle(img, p, 5, colour, -1, cv2.LINE_AA)
    if label:
        x, y = pts[len(pts) // 2]
        text(img, label, (x + 6, y - 6), 0.45, colour)


def wiring() -> np.ndarray:
    hw = load_config([]).hardware
    img = np.full((900, 1400, 3), PAPER, np.uint8)
    text(img, "dogtable wiring (default configuration; BCM GPIO numbers, physical pin in brackets)", (20, 34), 0.7, INK, 2)
    hx, hy, pitch = 640, 110, 19
    bottom = hy + 20 * pitch
    # The Pi's board behind the header, with its camera and USB ports.
    cv2.rectangle(img, (470, 60), (840, 560), (225, 240, 225), -1)
    cv2.rectangle(img, (470, 60), (840, 560), (60, 110, 60), 2)
    text(img, "Raspberry Pi", (480, 84), 0.62, (40, 90, 40), 2)
    cv2.rectangle(img, (480, 520), (600, 550), (200, 200, 200), -1)
    text(img, "CSI camera", (488, 541), 0.45)
    cv2.rectangle(img, (720, 520), (830, 550), (200, 200, 200), -1)
    text(img, "USB", (760, 541), 0.45)
    pin_xy = {}
    for p in range(1, 41):
        row, col = (p - 1) // 2, (p - 1) % 2
        pin_xy[p] = (hx + col * 28, hy + row * pitch)
    wires = []
    # Encoder: left-column pins, straight in from the left.
    enc = hw.encoder
    box(img, 20, 80, 330, 150, "Disc encoder (quadrature)", lines=[
        f"A -> GPIO{enc.pin_a}, B -> GPIO{enc.pin_b}", "C (common) -> GND", "internal pull-ups (gpiozero)",
        f"{enc.steps_per_quarter} steps per quarter turn"])
    for k, (label, gpio) in enumerate((("A", enc.pin_a), ("B", enc.pin_b))):
        wires.append((_route(350, 130 + 20 * k, 380 + 12 * k, pin_xy[physical(gpio)], hx, bottom, k), (180, 80, 0), label))
    btn = hw.buttons
    box(img, 20, 300, 330, 150 + 20 * len(btn.pins), "Buttons (to GND)", lines=[
        *(f"{name}: GPIO{pin}" for name, pin in btn.pins.items()), "other leg of every button -> GND",
        f"debounce {btn.bounce_ms} ms in software"])
    for k, (name, gpio) in enumerate(btn.pins.items()):
        wires.append((_route(350, 340 + 20 * k, 410 + 12 * k, pin_xy[physical(gpio)], hx, bottom, k), (140, 0, 140), name))
    led = hw.leds
    lp = pin_xy[physical(led.pin)]
    wires.append(([lp, (880, lp[1]), (880, 300), (900, 300)], (0, 140, 0), ""))
    text(img, f"GPIO{led.pin} data", (886, lp[1] + 60), 0.45, (0, 140, 0))
    for pts, colour, label in wires:
        wire(img, pts, colour, "")
    # Header on top of the wires, labels on a paper background so that wires pass behind them.
    cv2.rectangle(img, (hx - 12, hy - 14), (hx + 40, bottom - 4), (60, 110, 60), -1)
    for p in range(1, 41):
        x, y = pin_xy[p]
        colour = (0, 200, 255) if "GPIO" in HEADER[p] else ((0, 0, 200) if "V" in HEADER[p] else (30, 30, 30))
        cv2.circle(img, (x, y), 6, colour, -1, cv2.LINE_AA)
        label = f"{HEADER[p]}({p})"
        (tw, th), _ = cv2.getTextSize(label, FONT, 0.38, 1)
        lx = x - 16 - tw if p % 2 else x + 14
        cv2.rectangle(img, (lx - 2, y - th), (lx + tw + 2, y + 4), (225, 240, 225), -1)
        text(img, label, (lx, y + 4), 0.38)
    for pts, colour, label in wires:
        x, y = pts[0]
        text(img, label, (x + 4, y - 5), 0.45, colour)
    box(img, 1000, 80, 370, 170, "LED rings (WS2812B)", lines=[
        f"{led.leds_per_ring} LEDs per field, chained", "DIN <- 74AHCT125 level shifter", "5 V and GND from the LED supply",
        f"budget {led.max_current_ma} mA (leds.max_current_ma)"])
    box(img, 900, 270, 90, 90, "AHCT", fill=(220, 235, 250), lines=["125", "3.3->5V"])
    wire(img, [(990, 300), (1000, 300), (1000, 200)], (0, 140, 0), "")
    text(img, "330 R", (1004, 290), 0.45, (0, 140, 0))
    box(img, 1000, 420, 370, 140, "5 V supply", fill=(230, 230, 250), lines=[
        "size it: LEDs x 60 mA x brightness,", "or the power budget + 1 A for the Pi", "1000 uF across 5 V / GND at the strip",
        "common GND with the Pi"])
    wire(img, [(1180, 420), (1180, 250)], (0, 0, 200), "5 V")
    wire(img, [(1250, 420), (1250, 250)], (30, 30, 30), "GND")
    box(img, 20, 640, 330, 120, "Camera", fill=(235, 250, 235), lines=[
        "Pi Camera Module 3 on the CSI ribbon", "(camera.backend = picamera2)", "or a USB webcam (opencv)"])
    wire(img, [(350, 700), (540, 700), (540, 550)], (90, 90, 90), "ribbon")
    box(img, 700, 680, 420, 140, "Optional: Raspberry Pi Pico (bridge)", fill=(250, 240, 225), lines=[
        "USB to the Pi (/dev/ttyACM0)", "LEDs, encoder, buttons on the Pico instead:",
        "the only way to drive WS2812 from a Pi 5", "backend = \"bridge\" for those devices"])
    wire(img, [(775, 680), (775, 550)], (90, 90, 90), "")
    return img


def _route(x0: int, y0: int, x_turn: int, pin: tuple[int, int], hx: int, bottom: int, k: int) -> list[tuple[int, int]]:
    """From a box on the left to a header pin; right-column pins are reached round the bottom."""
    px, py = pin
    if px == hx:
        return [(x0, y0), (x_turn, y0), (x_turn, py), (px, py)]
    below = bottom + 8 + 8 * k
    return [(x0, y0), (x_turn, y0), (x_turn, below), (hx + 150, below), (hx + 150, py), (px, py)]


def markers() -> np.ndarray:
    pos = engine.parse_position({"variant": "classic", "pieces": [["K"] * 4] * 4})
    key = BoardLook.of(pos, 1.2)
    img = cv2.cvtColor(cv2.cvtColor(static_board(key), cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    geo = engine.load_geometry(4)
    cv = Canvas(1.2, geo.size)
    pad = 60
    img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=PAPER)
    for mid, ((x, y), size) in geo.markers.items():
        u, v = cv.px(x, y)
        u, v = int(u) + pad, int(v) + pad
        half = int(size * 1.2 / 2)
        cv2.rectangle(img, (u - half - 4, v - half - 4), (u + half + 4, v + half + 4), (0, 0, 230), 3)
        label = f"id {mid}: centre ({x:+.0f}, {y:+.0f}) mm, {size:.0f} mm"
        tx = u - 150 if x < 0 else u - 250
        ty = v - half - 14 if y < 0 else v + half + 30
        text(img, label, (max(5, tx + (60 if x < 0 else 0)), ty), 0.5, (0, 0, 200), 1)
    text(img, "ArUco DICT_4X4_50 markers, ids 0-3; origin = board centre, y towards seat 0 (bottom)", (10, 25), 0.55, INK, 1)
    seat0 = cv.px(0, geo.size[1] / 2)
    text(img, "seat 0 (red) sits here", (int(seat0[0]) - 90, int(seat0[1]) + pad + 40), 0.55, INK, 2)
    return img


def led_chain() -> np.ndarray:
    geo = engine.load_geometry(4)
    ledmap = LedMap.generated(4, 8)
    s = 1.2
    cv = Canvas(s, geo.size)
    h, w = cv.shape
    img = np.full((h, w, 3), PAPER, np.uint8)
    order = [f for f in ledmap.fields if f in geo.centres]
    pts = [tuple(int(v) for v in cv.px(*geo.centres[f])) for f in order]
    for k in range(len(pts) - 1):
        colour = (200, 120, 0) if order[k + 1].startswith("T") else (0, 120, 200)
        cv2.arrowedLine(img, pts[k], pts[k + 1], colour, 1, cv2.LINE_AA, tipLength=0.15)
    for f, p in zip(order, pts):
        cv2.circle(img, p, int(geo.field_radius * s), INK, 1, cv2.LINE_AA)
    for f in ("T0", "T16", "T32", "T48", "S0H0", "S1H0", "S2H0", "S3H0"):
        p = tuple(int(v) for v in cv.px(*geo.centres[f]))
        first = ledmap.rings[f][0]
        dy = -12 if f.startswith("T") else 26  # homes below, track above: neighbours do not overprint
        text(img, f"{f}: LED {first}", (p[0] + 8, p[1] + dy), 0.45, (0, 0, 200))
    text(img, "Default LED chain (leds.map = \"\"): T0, T1, ... T63, then S0H0..S0H3, S1H0..", (10, 24), 0.5, INK)
    text(img, "8 LEDs per ring; write your own map file if you wire in another order", (10, 46), 0.5, INK)
    return img


def simulated_frame() -> np.ndarray:
    pos = engine.parse_position({"variant": "classic",
                                 "pieces": [["T0", "T5", "H1", "K"], ["T16", "T30", "K", "K"],
                                            ["T40", "T45", "K", "K"], ["T60", "T50", "H0", "H3"]]})
    table = SimTable(seed=2, effects=SceneEffects(), pose=CameraPose(tilt_deg=10, yaw_deg=3))
    return table.render(pos, lit={"T5": (255, 150, 0), "T12": (0, 220, 70), "T14": (0, 220, 70)}, card="7",
                        hand=Hand(edge="right", target="T45", approach=0.8, skin=2))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, make in (("wiring", wiring), ("markers", markers), ("led-chain", led_chain),
                       ("simulated-table", simulated_frame)):
        path = OUT / f"hardware-{name}.png"
        img = make()
        cv2.imwrite(str(path), img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        print(f"wrote {path} ({img.shape[1]}x{img.shape[0]})")


if __name__ == "__main__":
    main()
