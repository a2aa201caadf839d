"""LED rings: field addressing, meanings, flashing, power budget, strips and the bridge sink."""
from __future__ import annotations

import numpy as np
import pytest

from hardware.bridge import LoopbackLink
from hardware.errors import DataFileError, DeviceUnavailable, HardwareError
from hardware.ledmap import LedMap
from hardware.leds import (PLAYED, PLAYER_RGB, SOURCE, TARGET, VIOLATION, BridgeLeds, LedRings, Light, PowerBudget,
                           SimulatedStrip, Ws281xStrip)


class Clock:
    t = 0.0

    def __call__(self) -> float:
        return self.t


def rings(max_ma: float = 100_000, brightness: float = 1.0):
    ledmap = LedMap.generated(4, leds_per_ring=8)
    strip = SimulatedStrip(ledmap.count)
    clock = Clock()
    return LedRings(strip, ledmap, brightness, PowerBudget(max_ma), clock=clock), strip, clock


def test_generated_map_covers_every_field_in_engine_order() -> None:
    m = LedMap.generated(4, 8, home_slots=4)
    assert m.fields[:2] == ("T0", "T1") and m.rings["T1"] == tuple(range(8, 16))
    assert len(m.fields) == 64 + 16 and m.count == 80 * 8
    assert m.index_of("S0H0") == 64


def test_map_file_errors_name_file_key_and_problem(tmp_path) -> None:
    p = tmp_path / "map.toml"
    p.write_text('T0 = [0, 1, 2]\nT1 = { first = 2, count = 3 }\n')
    with pytest.raises(DataFileError, match=r"map.toml: T1: LED 2 is already in the ring of T0"):
        LedMap.load(p)
    p.write_text('X9 = [0]\n')
    with pytest.raises(DataFileError, match="X9.*not a field id"):
        LedMap.load(p)
    p.write_text('T0 = { first = 0, count = 4 }\nS1H2 = [4, 5]\n')
    m = LedMap.load(p)
    assert m.rings == {"T0": (0, 1, 2, 3), "S1H2": (4, 5)} and m.count == 6


def test_fields_light_their_own_rings_only() -> None:
    r, strip, _ = rings()
    r.show_legal(["T0"], ["T5", "T9"])
    px = strip.current
    assert all(px[i] == TARGET for i in range(40, 48))
    assert all(px[i] == (0, 0, 0) for i in range(8, 40))
    assert strip.lit_fields(r.ledmap) == {"T0": px[0], "T5": TARGET, "T9": TARGET}
    r.show_play(["T3"])
    assert strip.lit_fields(r.ledmap) == {"T3": PLAYED}


def test_a_play_of_another_table_is_lit_in_its_player_s_colour_for_the_eye_only() -> None:
    r, strip, clock = rings()
    r.show_roles({"T0": "remote_from-black", "T5": "remote_to-black", "T9": "target"})
    lights = r.lights
    assert lights["T0"] == Light(PLAYER_RGB["black"], "pulse", eye_only=True)  # violet: an LED cannot be black
    assert lights["T5"] == Light(PLAYER_RGB["black"], "solid", eye_only=True)
    assert lights["T9"] == Light(TARGET) and not lights["T9"].eye_only  # the table's own colours: the camera reads them
    assert strip.lit_fields(r.ledmap)["T5"] == PLAYER_RGB["black"]
    for bad in ("remote_to-orange", "remote_at-red", "remote_to-"):
        with pytest.raises(ValueError, match="unknown LED role"):
            r.show_roles({"T1": bad})


def test_violation_flashes_red_over_what_was_shown() -> None:
    r, strip, clock = rings()
    r.show({"T1": Light(SOURCE)})
    r.show_violation(["T7"])
    on = strip.lit_fields(r.ledmap)
    assert on == {"T1": SOURCE, "T7": VIOLATION}
    clock.t = 0.2  # 4 Hz flash: the second half of a period is dark
    r.update()
    assert strip.lit_fields(r.ledmap) == {"T1": SOURCE}
    clock.t = 0.25
    r.update()
    assert strip.lit_fields(r.ledmap)["T7"] == VIOLATION
    frames = strip.shown
    r.update()  # nothing changed: nothing sent
    assert strip.shown == frames


def test_power_budget_scales_everything_down_to_the_limit() -> None:
    budget = PowerBudget(max_current_ma=1000, ma_per_channel=20, idle_ma_per_led=1)
    r, strip, _ = rings()
    r.budget = budget
    r.show({f: (255, 255, 255) for f in r.ledmap.fields})
    px = np.array(strip.current, float)
    assert budget.estimate_ma(px) <= 1000
    assert r.last_scale < 0.1
    # A small load is left alone.
    r.show({"T0": (255, 0, 0)})
    assert strip.current[0] == (255, 0, 0) and r.last_scale == 1.0


def test_brightness_applies_before_the_budget() -> None:
    r, strip, _ = rings(brightness=0.5)
    r.show({"T2": (200, 100, 0)})
    assert strip.current[16] == (100, 50, 0)


def test_unknown_field_and_short_strip_are_errors() -> None:
    r, _, _ = rings()
    with pytest.raises(KeyError, match="T99"):
        r.show({"T99": (1, 1, 1)})
    with pytest.raises(HardwareError, match="uses 640 LEDs but the strip has 10"):
        LedRings(SimulatedStrip(10), LedMap.generated(4))


def test_simulated_strip_renders_rings() -> None:
    r, strip, _ = rings()
    r.show({"T0": (0, 255, 0)})
    img = strip.render(r.ledmap, 4, px_per_mm=1.0)
    assert img.shape[2] == 3 and (img[..., 1] > 200).sum() > 20


def test_ws281x_refuses_off_a_pi_and_on_a_pi_5() -> None:
    with pytest.raises(DeviceUnavailable, match="not available on this machine"):
        Ws281xStrip(10, model="")
    with pytest.raises(DeviceUnavailable, match="Raspberry Pi 5"):
        Ws281xStrip(10, model="Raspberry Pi 5 Model B Rev 1.0")


def test_bridge_sink_gets_field_indices_patterns_and_budgeted_colours() -> None:
    link = LoopbackLink()
    ledmap = LedMap.generated(4, 8)
    r = LedRings(BridgeLeds(link), ledmap, 1.0, PowerBudget(100_000))
    r.show_legal(["T0"], ["S1H0"])
    assert link.fields == {0: Light(SOURCE, "pulse"), ledmap.index_of("S1H0"): Light(TARGET)}
    r.show_violation(["T4"])
    assert link.fields[4] == Light(VIOLATION, "flash")
    r.budget = PowerBudget(200)
    r.show({"T0": (255, 255, 255), "T1": (255, 255, 255)})
    assert all(max(light.colour) < 255 for light in link.fields.values())
    r.clear()
    assert link.fields == {}
