"""The bridge backends against the firmware bridge's simulated MCU on a real pty."""
from __future__ import annotations

import time

import pytest

from hardware.bridge import FirmwareBridgeLink
from hardware.buttons import BridgeButtons
from hardware.encoder import BridgeDiscEncoder
from hardware.errors import DeviceUnavailable
from hardware.ledmap import LedMap
from hardware.leds import BridgeLeds, LedRings, PowerBudget

simulator = pytest.importorskip("firmware_bridge.simulator")


def wait_for(pred, timeout: float = 3.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


def test_leds_encoder_and_buttons_over_the_simulated_mcu() -> None:
    with simulator.SimulatedMCU(fields=80) as mcu:
        link = FirmwareBridgeLink(mcu.port, connect_timeout_s=3.0)
        try:
            ledmap = LedMap.generated(4, 8)
            rings = LedRings(BridgeLeds(link), ledmap, 1.0, PowerBudget(100_000))
            enc = BridgeDiscEncoder(link, steps_per_quarter=6)
            buttons = BridgeButtons(link, {"confirm": 0, "undo": 1, "hint": 2, "mode": 3})
            rings.show_violation(["T3"])
            assert wait_for(lambda: mcu.shown() == {3: (5, 255, 0, 0)})  # pattern 5 = flash
            mcu.spin(6)
            assert wait_for(lambda: enc.steps == 6)
            assert [t.direction for t in enc.read()] == [1]
            mcu.press(1)
            assert wait_for(lambda: buttons.is_pressed("undo"))
        finally:
            link.close()


def test_missing_port_is_unavailable(tmp_path) -> None:
    with pytest.raises(DeviceUnavailable, match="bridge"):
        FirmwareBridgeLink(str(tmp_path / "ttyNONE"), connect_timeout_s=0.2)


@pytest.mark.parametrize("port,baud,says", [
    ("/dev/ttyACM0", -1, "baud rate -1"),
    ("/dev/ttyACM0", 0, "baud rate 0"),
    ("/dev/tty\x00ACM0", 921600, "control character"),
])
def test_bad_port_or_baud_is_unavailable_not_a_crash(port, baud, says) -> None:
    with pytest.raises(DeviceUnavailable, match=says):
        FirmwareBridgeLink(port, baud, connect_timeout_s=0.2)
