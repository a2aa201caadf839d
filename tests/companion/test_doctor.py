"""`dogtable doctor` on made-up machines: one line per check, and the fix where one fails."""
from __future__ import annotations

import os
from pathlib import Path

from companion.cli import main
from companion.commands.doctor import Machine, run_checks

PI4 = "Raspberry Pi 4 Model B Rev 1.4"
NAMES = ["config", "camera", "leds", "power", "encoder", "buttons", "bridge", "calibration", "cards", "journal",
         "disk", "clock", "unit"]


def config(tmp: Path, text: str) -> str:
    path = tmp / "config.toml"
    path.write_text(f'[service]\njournal = "{tmp}/state/journal.sqlite"\ncalibration = "{tmp}/state/cal.json"\n{text}')
    return str(path)


def machine(tmp: Path, model: str = "", modules: tuple[str, ...] = (), devices: tuple[str, ...] = (),
            synced: str = "yes") -> Machine:
    dev = tmp / "dev"
    dev.mkdir(exist_ok=True)
    for name in devices:
        (dev / name).write_text("")
    units = tmp / "units"
    units.mkdir(exist_ok=True)
    return Machine(model=model, dev=dev, systemd=False, unit_dir=units, run=lambda cmd: (0, synced),
                   user="nobody-here", has_module=lambda name: name in modules)


def checks(cfg: str, m: Machine) -> dict[str, object]:
    return {c.name: c for c in run_checks(cfg, m)}


def test_every_check_has_a_line_and_simulated_devices_pass(tmp_path: Path) -> None:
    cfg = config(tmp_path, '[leds]\nbackend = "simulated"\n[encoder]\nbackend = "simulated"\n'
                           '[buttons]\nbackend = "simulated"\n[camera]\nbackend = "simulated"\n')
    got = checks(cfg, machine(tmp_path))
    assert list(got) == NAMES
    assert {n: c.status for n, c in got.items() if c.status != "ok"} == {
        "bridge": "skip", "calibration": "FAIL", "cards": "skip", "unit": "FAIL"}
    assert got["calibration"].fix.startswith(f"dogtable vision calibrate --camera --out {tmp_path}/state/cal.json")
    assert got["unit"].fix == "sudo ./scripts/install-pi.sh"
    assert got["unit"].line().startswith("FAIL unit        dogtable.service is not installed; fix: ")


def test_a_pi_without_spi_names_the_boot_line(tmp_path: Path) -> None:
    cfg = config(tmp_path, "[leds]\npin = 10\n")
    m = machine(tmp_path, PI4, modules=("rpi_ws281x", "lgpio", "picamera2"), devices=("gpiochip0", "video0"))
    got = checks(cfg, m)
    assert got["leds"].status == "FAIL" and "spidev0.0 does not exist" in got["leds"].text
    assert "dtparam=spi=on" in got["leds"].fix
    assert got["encoder"].status == "ok" and got["buttons"].status == "ok" and got["camera"].status == "ok"
    (tmp_path / "dev/spidev0.0").write_text("")
    assert checks(cfg, m)["leds"].status == "ok"


def test_pwm_leds_without_root_and_missing_libraries_are_named(tmp_path: Path) -> None:
    m = machine(tmp_path, PI4, modules=("rpi_ws281x",), devices=("gpiochip0",))
    got = checks(config(tmp_path, ""), m)
    assert got["camera"].status == "FAIL" and "python3-picamera2" in got["camera"].fix
    assert got["encoder"].status == "FAIL" and "lgpio" in got["encoder"].text
    if os.geteuid() != 0:
        assert got["leds"].status == "FAIL" and "leds.pin = 10" in got["leds"].fix
    else:
        assert got["leds"].status == "warn" and "without root" in got["leds"].text
    pc = checks(config(tmp_path, ""), machine(tmp_path))
    assert pc["leds"].text == "ws281x: not a Raspberry Pi"
    assert "not a Raspberry Pi and picamera2 is not installed" in pc["camera"].text


def test_pins_taken_twice_across_devices_fail(tmp_path: Path) -> None:
    cfg = config(tmp_path, "[leds]\npin = 10\n[buttons.pins]\nconfirm = 11\n")
    got = checks(cfg, machine(tmp_path, PI4, modules=("lgpio",), devices=("gpiochip0",)))
    assert got["buttons"].status == "FAIL"
    assert got["buttons"].text == "buttons.pins.confirm = GPIO11 is also SPI0 (the LEDs)"


def test_power_budget_from_the_config(tmp_path: Path) -> None:
    cfg = config(tmp_path, '[leds]\nbackend = "simulated"\ncount = 100\nbrightness = 1.0\nmax_current_ma = 2500\n')
    text = checks(cfg, machine(tmp_path))["power"].text
    # 100 LEDs x (1 mA idle + 3 channels x 20 mA) = 6100 mA, more than the budget
    assert text.startswith("100 LEDs: all white at brightness 1.0 would draw 6100 mA; the strip is held to 2500 mA, dimmed")
    assert "at least 5.5 A" in text


def test_a_damaged_journal_a_missing_bridge_and_an_unsynced_clock(tmp_path: Path) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "state/journal.sqlite").write_bytes(b"not a database at all" * 10)
    cfg = config(tmp_path, f'[leds]\nbackend = "bridge"\n[bridge]\nport = "{tmp_path}/ttyACM9"\n')
    got = checks(cfg, machine(tmp_path, synced="no"))
    assert got["journal"].status == "FAIL" and "moves the damaged file aside" in got["journal"].fix
    assert got["bridge"].status == "FAIL" and got["bridge"].text == f"{tmp_path}/ttyACM9 does not exist (leds use it)"
    assert got["clock"].status == "warn" and "timesyncd" in got["clock"].fix


def test_the_command_prints_one_line_per_check_and_fails_on_a_failure(tmp_path: Path, capsys) -> None:
    cfg = config(tmp_path, '[camera]\nbackend = "none"\n')
    assert main(["doctor", "--config", cfg]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in lines[:-1]] == NAMES
    assert lines[-1].startswith(f"{len(NAMES)} checks: ")
