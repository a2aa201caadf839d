"""Checked option types for argparse: a bad value is a one-line usage error (exit 2)."""
from __future__ import annotations

import argparse
import math


def seconds(text: str) -> float:
    """A time in seconds: a finite number, 0 or more (not nan, inf or negative)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a time: give 0 or more seconds, e.g. 3 or 0.5")
    return value


def web_port(text: str) -> int:
    """A TCP port, 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is outside 0..65535 (0 picks a free port)")
    return value
