"""`dogtable run` against a config whose devices are all simulated: the real table's wiring.

The simulated table (hardware.factory: gpiozero MockFactory pins for encoder and buttons,
a recording LED strip, a camera rendering the table) is played on like a person would:
lay a card, move a piece, press buttons, turn the disc. What the service sees comes only
through the devices: camera frames through the vision pipeline, pin edges through gpiozero.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from companion import settings as S
from companion import table as T
from companion.commands.service import Running, start_service
from companion.config import ConfigError, load_config
from companion.simulated.board import move_piece
from polling import wait_for

pytest.importorskip("vision.reader")
pytest.importorskip("hardware.simtable")

ALL_SIMULATED = """
[table]
edition = "{edition}"
[leds]
backend = "simulated"
[encoder]
backend = "simulated"
[buttons]
backend = "simulated"
[camera]
backend = "{camera}"
fps = 30
[service]
journal = "{tmp}/journal.sqlite"
calibration = "{calibration}"
card_tags = "{card_tags}"
accept_flash_s = 1.0
[web]
port = 0
pin = "432100"
"""


def config(tmp: Path, edition: str = "classic", camera: str = "simulated", calibration: str | Path = "",
           card_tags: str | Path = "") -> Path:
    path = tmp / "dogtable.toml"
    path.write_text(ALL_SIMULATED.format(edition=edition, camera=camera, tmp=tmp, calibration=calibration,
                                         card_tags=card_tags))
    return path


def start(cfg: Path, link=None) -> Running:
    return start_service(argparse.Namespace(new=True, seed=0), S.load(cfg), sim=False, link=link)


def journal_events(run: Running) -> list[T.Event]:
    return run.service.journal.events(run.service.game_id)


@pytest.fixture(scope="module")
def calibration(tmp_path_factory) -> Path:
    """Calibrate vision on the simulated camera's own renderer, as a person would on the real one."""
    from hardware.factory import simulated_camera, start_position
    from vision.calibration import calibrate
    from vision.cards import CardReader
    from vision.reader import BoardReader

    tmp = tmp_path_factory.mktemp("cal")
    hw = S.load(config(tmp)).hardware
    render = simulated_camera(hw)
    start_pos = start_position("classic", 4)
    empty = dataclasses.replace(start_pos, pieces=tuple(() for _ in start_pos.pieces))
    cal = calibrate(render.render(empty, frame_index=0), 4, "standard", render.render(start_pos, frame_index=1),
                    start_pos.field_occupancy())
    reader, cards = BoardReader(cal), CardReader(cal)
    cards.set_empty(render.render(start_pos, frame_index=2))
    for i, card in enumerate(("1/11", "13", "7")):
        frame = render.render(start_pos, card=card, frame_index=10 + i)
        reader.measure(frame)
        cards.enrol(frame, card, reader.homography)
    cards.save(tmp / "cards.json")
    path = tmp / "calibration.json"
    dataclasses.replace(cal, cards_path=str(tmp / "cards.json")).save(path)
    return path


def ring(run: Running, field: str) -> tuple[int, int, int]:
    dev = run.table.devices
    return dev.strip.lit_fields(dev.leds.ledmap).get(field, (0, 0, 0))


def shown_since(run: Running, since: int, field: str, colour) -> bool:
    """Whether any frame the strip showed since frame `since` had `field` lit in that colour."""
    dev = run.table.devices
    frames = [f for f in list(dev.strip.frames) if f.index >= since]
    return any(colour(dev.strip.lit_fields(dev.leds.ledmap, f).get(field, (0, 0, 0))) for f in frames)


def green(rgb: tuple[int, int, int]) -> bool:
    return rgb[1] > 50 and rgb[1] > 2 * max(rgb[0], rgb[2])


def red(rgb: tuple[int, int, int]) -> bool:
    return rgb[0] > 50 and rgb[0] > 2 * max(rgb[1], rgb[2])


def test_a_turn_through_camera_leds_and_buttons(tmp_path: Path, calibration: Path) -> None:
    run = start(config(tmp_path, calibration=calibration))
    svc, dev = run.service, run.table.devices
    table = dev.table  # hardware.simtable.play.PlayTable: what the players do
    try:
        assert run.table.working() == ["leds", "encoder", "buttons", "camera"] and run.table.problems == {}
        # the camera sees the pieces set out and confirms the start
        assert wait_for(lambda: svc.state.phase == "exchange"), run.table.last_status
        assert journal_events(run)[0] == T.BoardSettled.of(svc.state.position.field_occupancy(), "camera")
        table.press("confirm")  # cards exchanged
        assert svc.state.phase == "play" and journal_events(run)[-1] == T.ExchangeDone("button")

        # red lays a 1/11: the camera recognises it and the target ring lights
        table.play_card("1/11", seat=0)
        assert wait_for(lambda: svc.state.card == "1/11")
        assert journal_events(run)[-1] == T.CardSeen("1/11", None, "camera")
        assert wait_for(lambda: sum(ring(run, "T0")) > 0)
        assert not green(ring(run, "T0")) and not red(ring(run, "T0"))  # a target, not a verdict
        # ... moves a piece out; the board settles and the verdict shows green on the strip
        since = dev.strip.shown
        table.move_piece(svc.state.plays[0].result, "S0K3", "T0", seat=0)
        assert wait_for(lambda: svc.state.verdict is not None and svc.state.verdict.play == "1/11: K-T0")
        assert svc.state.verdict.legal and svc.state.turn == 1
        assert wait_for(lambda: shown_since(run, since, "T0", green))  # the state changes just before the LEDs
        assert isinstance(journal_events(run)[-1], T.BoardSettled) and journal_events(run)[-1].source == "camera"

        # blue lays a 13 and puts the piece on the wrong field: red on the strip
        table.play_card("13", seat=1)
        assert wait_for(lambda: svc.state.card == "13")
        before = svc.state.position
        since = dev.strip.shown
        table.move_piece(move_piece(before, "S1K3", "T20"), "S1K3", "T20", seat=1)
        assert wait_for(lambda: svc.state.flag is not None)
        assert svc.state.flag.fields == ("T20",) and "T16" in svc.state.flag.reason["en"]
        assert wait_for(lambda: shown_since(run, since, "T20", red))  # flashing: red half the time
        table.move_piece(before, "T20", "S1K3", seat=1)  # put back
        assert wait_for(lambda: svc.state.flag is None)

        # the buttons: hint, mode, undo; each is a journaled event from "button"
        table.press("hint")
        assert svc.state.hint is not None and svc.state.hint.play == "13: K-T16"
        assert wait_for(lambda: "hint" in run.lights.roles(svc.state).values() and sum(ring(run, "T16")) > 0)
        table.press("mode")
        assert svc.state.mode == "training"
        table.press("undo")  # one step back: the 13 just shown goes back to Blue's hand
        assert svc.state.card is None and svc.state.turn == 1
        table.press("undo")  # the next: Red's play
        assert svc.state.turn == 0 and T.board_key(svc.state.position) != T.board_key(before)
        sources = [(type(e).__name__, e.source) for e in journal_events(run)[-4:]]
        assert sources == [("AskHint", "button"), ("SetMode", "button"), ("Undo", "button"), ("Undo", "button")]
    finally:
        run.stop()
    assert dev.strip.closed and sum(map(sum, dev.strip.current)) == 0


def test_disc_encoder_and_a_missing_camera(tmp_path: Path) -> None:
    run = start(config(tmp_path, edition="black", camera="none"))
    svc, dev = run.service, run.table.devices
    try:
        assert run.table.working() == ["leds", "encoder", "buttons"]
        assert "camera" in run.table.problems
        # the page says so
        with urllib.request.urlopen(run.web.url + "api/state", timeout=5) as r:
            page = json.loads(r.read())
        assert page["devices"]["problems"]["camera"].startswith("camera not configured")
        # a quarter turn on the encoder's pins: steps through gpiozero, one event
        dev.table.encoder_driver.turn(dev.settings.encoder.steps_per_quarter)
        assert svc.state.disc_delta == 1 and journal_events(run)[-1] == T.DiscTurned(1, "encoder")
        dev.table.encoder_driver.turn(-dev.settings.encoder.steps_per_quarter)
        assert svc.state.disc_delta == 0 and journal_events(run)[-1] == T.DiscTurned(-1, "encoder")
        # without a camera, confirm cannot read the board: it says why on the page
        svc.submit(T.BoardSettled.of(T.occupancy(svc.state.position), "web"))  # manual entry confirms the start
        svc.submit(T.ExchangeDone())
        dev.table.press("confirm")
        assert "no camera" in svc.snapshot()["devices"]["notice"]
        dev.table.press("hint")  # no card in play: a note, not a crash
        assert "show a card first" in svc.snapshot()["devices"]["notice"]
    finally:
        run.stop()


def test_no_calibration_keeps_running_with_manual_entry(tmp_path: Path) -> None:
    run = start(config(tmp_path, calibration=tmp_path / "none.json"))
    try:
        problem = run.table.problems["camera"]
        assert "no calibration" in problem and "dogtable vision calibrate" in problem
        assert "camera" not in run.table.working()
        run.service.submit(T.BoardSettled.of(T.occupancy(run.service.state.position), "web"))
        assert run.service.state.phase == "exchange"
    finally:
        run.stop()


def test_rfid_cards_through_the_bridge(tmp_path: Path) -> None:
    from hardware.bridge import LoopbackLink

    tags = tmp_path / "tags.toml"
    tags.write_text('"04:A2:19:7C" = "1/11"\n"04-a2-19-7d" = "13"\n')
    link = LoopbackLink()
    run = start(config(tmp_path, camera="none", card_tags=tags), link=link)
    svc = run.service
    try:
        assert "rfid" in run.table.working()
        svc.submit(T.BoardSettled.of(T.occupancy(svc.state.position), "web"))
        link.scan(bytes.fromhex("04a2197c"))
        assert svc.state.card == "1/11" and journal_events(run)[-1] == T.CardSeen("1/11", None, "rfid")
        link.scan(b"\x01\x02")
        assert svc.snapshot()["devices"]["notice"] == f"unknown card tag 01:02: add it to {tags}"
    finally:
        run.stop()


def test_card_tag_map_and_service_sections_are_checked(tmp_path: Path) -> None:
    tags = tmp_path / "tags.toml"
    tags.write_text('"zz" = "7"\n')
    bad = tmp_path / "bad.toml"
    bad.write_text(f'[service]\ncard_tags = "{tags}"\nbots = [2, 2]\n[web]\npin = "12"\n')
    with pytest.raises(ConfigError) as err:
        load_config([bad])
    text = [str(p) for p in err.value.problems]
    assert text == [
        f"{bad}: service.bots: [2, 2] names a seat twice",
        f"{bad}: service.card_tags: card-tag map {tags}: 'zz' is not a tag uid (1 to 10 bytes in hex, like \"04:a2:19:7c\")",
        f"{bad}: web.pin: must be 6 to 8 digits 0-9, or empty for a random PIN at each start",
    ]
    tags.write_text('"04:a2" = "eleven"\n')
    with pytest.raises(ConfigError) as err:
        load_config([bad])
    assert "'04:a2': 'eleven' is not a card id" in str(err.value.problems[1])


def test_config_check_knows_the_service_sections_on_its_own(tmp_path: Path) -> None:
    """A fresh process that imports only the config command must not call [service] unknown."""
    cfg = tmp_path / "c.toml"
    cfg.write_text("[service]\nplayers = 3\nbots = [1]\n[web]\nhost = \"0.0.0.0\"\n")
    out = subprocess.run([sys.executable, "-m", "companion.cli", "config", "check", "--file", str(cfg)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    cfg.write_text("[service]\nplayers = 3\nbots = [3]\n")
    out = subprocess.run([sys.executable, "-m", "companion.cli", "config", "check", "--file", str(cfg)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "service.bots: seat 3 does not play with 3 players" in out.stderr


def test_run_on_a_machine_without_the_devices_reports_each_and_serves(tmp_path: Path) -> None:
    """The packaged defaults (ws281x, GPIO, picamera2) on a PC: every device missing, no crash."""
    cfg = tmp_path / "c.toml"
    cfg.write_text("[web]\nport = 0\n")
    cmd = [sys.executable, "-m", "companion.cli", "run", "--config", str(cfg), "--journal", str(tmp_path / "j.sqlite")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not lines or not lines[-1].startswith("devices:"):
            lines.append(proc.stdout.readline())
            assert lines[-1], f"dogtable run ended early: {lines}"
        assert any(line.startswith("dogtable run: web page http://") for line in lines), lines
        if not Path("/proc/device-tree/model").exists():  # not a Pi: nothing can open
            assert lines[-1].strip() == "devices: none (enter cards and boards on the web page); " \
                                        "not used: leds, encoder, buttons, camera", lines
            for name in ("leds", "encoder", "buttons", "camera"):
                assert sum(f"{name} not available: " in line for line in lines) == 1, (name, lines)
    finally:
        proc.terminate()
        assert proc.wait(timeout=60) == 0
