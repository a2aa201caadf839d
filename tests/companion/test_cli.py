"""`dogtable sim` prints its address and PIN and serves; `dogtable replay` lists and exports."""
from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

from companion import table as T
from companion.cli import main
from companion.journal import Journal
from companion.simulated.scripted import scripted_game
from companion.service import Service
from companion.settings import Settings


def test_sim_prints_url_and_pin_and_serves(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "companion.cli", "sim", "--port", "0", "--no-browser", "--players", "3",
           "--bots", "1,2", "--journal", str(tmp_path / "s.sqlite"), "--pin", "123456"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not lines or "pairing PIN" not in lines[-1]:
            lines.append(proc.stdout.readline())
            assert lines[-1], "dogtable sim ended early"
        url = next(line.split()[1] for line in lines if line.startswith("open "))
        assert any("pairing PIN: 123456" in line for line in lines)
        with urllib.request.urlopen(url + "api/state", timeout=5) as r:
            st = json.loads(r.read())
        assert st["players"] == 3 and st["sim"]["bots"] == [1, 2]
    finally:
        proc.terminate()
        assert proc.wait(timeout=60) == 0


def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path: Path) -> None:
    assert main(["sim", "--no-browser", "--players", "7", "--journal", str(tmp_path / "x.sqlite")]) == 2
    assert main(["sim", "--no-browser", "--bots", "one"]) == 2
    assert main(["replay", "--journal", str(tmp_path / "missing.sqlite")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("dogtable: error: ") for line in err)


def test_replay_lists_prints_and_exports(tmp_path: Path, capsys) -> None:
    path = tmp_path / "j.sqlite"
    service = Service(Settings(), Journal(path))
    service.open(T.Setup("compact", 4, "highlight"))
    for step, _ in scripted_game("compact", 4, seed=2):
        service.submit(step.event)
    service.journal.close()
    assert main(["replay", "--journal", str(path), "--list"]) == 0
    assert "compact" in capsys.readouterr().out
    assert main(["replay", "--journal", str(path), "--lang", "de"]) == 0
    out = capsys.readouterr().out
    assert "Startstellung bestätigt" in out and "gewonnen" in out
    export = tmp_path / "game.json"
    assert main(["replay", "--journal", str(path), "--export", str(export)]) == 0
    data = json.loads(export.read_text())
    assert data["format"] == "dogtable-record" and data["result"] == "won" and data["events"][0]["kind"] == "board"
