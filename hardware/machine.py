"""What machine are we on: decides only whether a Pi-only backend may be constructed."""
from __future__ import annotations

from pathlib import Path

MODEL_FILES = ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model")


def board_model() -> str:
    """The device-tree model string ("Raspberry Pi 4 Model B Rev 1.4"), or "" off a Pi."""
    for name in MODEL_FILES:
        try:
            return Path(name).read_bytes().rstrip(b"\x00").decode("ascii", "replace").strip()
        except OSError:
            continue
    return ""


def is_raspberry_pi(model: str | None = None) -> bool:
    return "Raspberry Pi" in (board_model() if model is None else model)


def is_raspberry_pi_5(model: str | None = None) -> bool:
    m = board_model() if model is None else model
    return "Raspberry Pi 5" in m or "Raspberry Pi Compute Module 5" in m
