"""The firmware's pins.json and ledmap.json: shipped files are valid, mistakes are named."""
import json
from pathlib import Path

import pytest

from firmware_bridge.firmware import config

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware_bridge" / "firmware"


def test_shipped_files_are_valid():
    pins = config.parse_pins((FIRMWARE / "pins.json").read_text())
    assert pins["link"] == "usb" and pins["encoder"] == {"a": 3, "b": 4}
    ledmap = config.parse_ledmap((FIRMWARE / "ledmap.json").read_text())
    assert len(ledmap) == 96 and ledmap[1] == (12, 12)


@pytest.mark.parametrize("pins,message", [
    ({"leds": 2, "encoder": {"a": 3}}, "pins.json: encoder.b: must be a GPIO number"),
    ({"leds": 2, "buttons": [5, 5]}, "pins.json: buttons[1]: GPIO 5 is already used by buttons[0]"),
    ({"leds": 2, "link": "uart"}, "pins.json: uart: must be an object"),
    ({"leds": 2, "rfid": {"spi": 2}}, "pins.json: rfid.spi: must be 0 or 1"),
    ({"leds": True}, "pins.json: leds: must be a GPIO number"),
])
def test_pin_mistakes_name_file_key_and_problem(pins, message):
    with pytest.raises(config.ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        config.parse_pins(json.dumps(pins))


@pytest.mark.parametrize("ledmap,message", [
    ("{", "ledmap.json: not valid JSON"),
    ({"fields": [[0, 12], [12, 0]]}, r"ledmap.json: fields\[1\]: must be \[first_pixel, count\]"),
    ({"rings": 300, "per_ring": 1}, "must list 1..256 fields"),
    ({"rings": 10}, "ledmap.json: per_ring: must be a positive number"),
    ({"rings": 200, "per_ring": 24}, "more than one RP2040 can refresh"),
])
def test_ledmap_mistakes_name_file_key_and_problem(ledmap, message):
    text = ledmap if isinstance(ledmap, str) else json.dumps(ledmap)
    with pytest.raises(config.ConfigError, match=message):
        config.parse_ledmap(text)
