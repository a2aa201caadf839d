"""companion.config: defaults, system and user files merged; every mistake named by file and key."""
from __future__ import annotations

import pytest

from companion.config import ConfigError, load_config, user_path
from companion.cli import main
from hardware.settings import HardwareSettings


def write(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_defaults_alone_are_valid_and_match_the_settings_defaults() -> None:
    cfg = load_config([])
    assert cfg.hardware == HardwareSettings()
    assert cfg.files == ("companion/data/default-config.toml",)


def test_later_files_win_key_by_key(tmp_path) -> None:
    system = write(tmp_path, "system.toml", '[leds]\nbackend = "bridge"\nbrightness = 0.3\n[buttons.pins]\nundo = 12\n')
    user = write(tmp_path, "user.toml", '[leds]\nbrightness = 0.8\n[camera]\nexposure = 8000\n')
    hw = load_config([system, user]).hardware
    assert hw.leds.backend == "bridge" and hw.leds.brightness == 0.8
    assert hw.buttons.pins == {"confirm": 5, "undo": 12, "hint": 16, "mode": 26}
    assert hw.camera.exposure == "8000"


def test_every_problem_names_file_key_and_problem(tmp_path) -> None:
    system = write(tmp_path, "system.toml", '[leds]\nbackend = "neopixel"\npin = 4\n')
    user = write(tmp_path, "user.toml",
                 '[encoder]\npin_a = 40\nsteps_per_quarter = "six"\n[buttons.pins]\nconfirm = 17\nbeep = 3\n'
                 '[table]\nsegments = 5\n[gadgets]\nx = 1\n')
    with pytest.raises(ConfigError) as err:
        load_config([system, user])
    text = [str(p) for p in err.value.problems]
    expect = [
        f"{system}: leds.backend: 'neopixel' is not a backend",
        f"{user}: encoder.steps_per_quarter: must be a whole number, not 'six'",
        f"{user}: buttons.pins.beep: unknown button",
        f"{user}: table.segments: 5 is not a board",
        f"{user}: gadgets: unknown section",
    ]
    for e in expect:
        assert any(t.startswith(e) for t in text), (e, text)
    assert len(text) >= 5


def test_pin_clashes_between_devices_are_found(tmp_path) -> None:
    user = write(tmp_path, "user.toml", '[buttons.pins]\nconfirm = 17\nundo = 18\n')
    with pytest.raises(ConfigError) as err:
        load_config([user])
    text = [str(p) for p in err.value.problems]
    assert f"{user}: buttons.pins.confirm: GPIO17 is also used by encoder.pin_a" in text
    assert f"{user}: buttons.pins.undo: GPIO18 is also used by leds.pin" in text


def test_broken_toml_and_bad_led_map_are_reported(tmp_path) -> None:
    bad = write(tmp_path, "bad.toml", "[leds\n")
    ledmap = write(tmp_path, "map.toml", "T0 = [0, 0]\n")
    user = write(tmp_path, "user.toml", f'[leds]\nmap = "{ledmap}"\n')
    with pytest.raises(ConfigError) as err:
        load_config([bad, user])
    text = [str(p) for p in err.value.problems]
    assert any(t.startswith(f"{bad}: (file): is not valid TOML") for t in text)
    assert any(t.startswith(f"{user}: leds.map: {ledmap}: T0: LED 0 is already") for t in text)


def test_user_path_follows_the_environment(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("DOGTABLE_CONFIG", str(tmp_path / "x.toml"))
    assert user_path() == tmp_path / "x.toml"
    monkeypatch.delenv("DOGTABLE_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert user_path() == tmp_path / "dogtable" / "config.toml"


def test_config_check_command(tmp_path, capsys) -> None:
    good = write(tmp_path, "good.toml", '[camera]\nbackend = "simulated"\n')
    assert main(["config", "check", "--file", str(good)]) == 0
    assert "configuration OK" in capsys.readouterr().out
    bad = write(tmp_path, "bad.toml", '[camera]\nfps = 0\nwidth = "wide"\n')
    assert main(["config", "check", "--file", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: camera.fps: must be more than 0" in err
    assert f"{bad}: camera.width: must be a whole number, not 'wide'" in err
    assert "problem(s) in the configuration" in err
