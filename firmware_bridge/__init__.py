"""The serial link to the table's microcontroller: framing, sequencing, reconnect, a
simulated MCU and the MCU firmware itself. Imports nothing else of dogtable's.

    from firmware_bridge import BridgeClient, FieldLight
    with BridgeClient("/dev/ttyACM0") as bridge:
        identity = bridge.connect()
        bridge.set_leds({12: FieldLight((255, 0, 0), "blink")})
        event = bridge.events.get()

The wire format is in docs/protocol.md; `firmware_bridge/protocol.py` is shared with the
firmware and must stay MicroPython-compatible.
"""
from firmware_bridge.client import BridgeClient, BridgeError, NoAnswer, PortNotFound
from firmware_bridge.types import (
    BridgeStatus,
    ButtonEvent,
    CardScan,
    Counters,
    EncoderDelta,
    FieldLight,
    Identity,
    LinkTimings,
    McuError,
)

__all__ = [
    "BridgeClient",
    "BridgeError",
    "BridgeStatus",
    "ButtonEvent",
    "CardScan",
    "Counters",
    "EncoderDelta",
    "FieldLight",
    "Identity",
    "LinkTimings",
    "McuError",
    "NoAnswer",
    "PortNotFound",
]
