"""Every bad input of the command line is one line and exit 2: never a traceback or an internal error.

Table-driven: each case runs through the real dispatcher (`companion.cli.main`) with files
a user might really hand it (binary, UTF-16, 200k-deep JSON, a folder, NaN).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main
from companion.journal import Journal
from companion import table as T

DEEP = "[" * 200_000 + "]" * 200_000


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("bad")

    def put(name: str, data: str | bytes) -> str:
        p = tmp / name
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
        return str(p)

    journal = tmp / "j.sqlite"
    j = Journal(journal)
    j.new_game(T.Setup("classic", 4))
    j.close()
    return {
        "deep.json": put("deep.json", DEEP),
        "deep-object.json": put("deep-object.json", '{"a":' * 100_000 + "1" + "}" * 100_000),
        "deep.toml": put("deep.toml", "a = " + DEEP),
        "binary.toml": put("binary.toml", bytes(range(256)) * 8),
        "utf16.toml": put("utf16.toml", '[table]\nedition = "classic"\n'.encode("utf-16")),
        "latin1.toml": put("latin1.toml", '[service]\njournal = "spiele-\xe4.sqlite"\n'.encode("latin-1")),
        "nan.toml": put("nan.toml", "[service]\nbot_delay_s = nan\n"),
        "inf.toml": put("inf.toml", "[encoder]\nsettle_s = inf\n"),
        "index.toml": put("index.toml", "[buttons]\nbridge_index = { undo = 300 }\n"),
        "nul.toml": put("nul.toml", '[bridge]\nport = "/dev/tty\\u0000ACM0"\n'),
        "bots.toml": put("bots.toml", "[service]\nplayers = 4\nbots = [1, 1]\n"),
        "missing.toml": str(tmp / "nope.toml"),
        "folder": str(tmp),
        "missing-folder/game.txt": str(tmp / "missing" / "game.txt"),
        "journal": str(journal),
        "sim-journal": str(tmp / "sim.sqlite"),
    }


CASES = {
    # 200k-deep JSON, wherever JSON is read
    "moves, deep JSON": ["moves", "{deep.json}", "--card", "5", "--seat", "0"],
    "moves, deep object": ["moves", "{deep-object.json}", "--card", "5", "--seat", "0"],
    "check, deep JSON": ["check", "{deep.json}", "{deep.json}", "--card", "5", "--seat", "0"],
    "config, deep TOML": ["config", "check", "--file", "{deep.toml}"],
    "replay import, deep JSON": ["replay", "{deep.json}"],
    # files that are not what they should be
    "replay --export to a folder": ["replay", "--journal", "{journal}", "--export", "{folder}"],
    "replay --export to a missing folder": ["replay", "--journal", "{journal}", "--export", "{missing-folder/game.txt}"],
    "replay --game that does not exist": ["replay", "--journal", "{journal}", "--game", "2"],
    "config check, binary file": ["config", "check", "--file", "{binary.toml}"],
    "config check, UTF-16 file": ["config", "check", "--file", "{utf16.toml}"],
    "config check, Latin-1 file": ["config", "check", "--file", "{latin1.toml}"],
    "config check, missing --file": ["config", "check", "--file", "{missing.toml}"],
    "hw test --save-frame to a folder": ["hw", "test", "--simulate", "--save-frame", "{folder}"],
    "hw test --save-frame unknown extension": ["hw", "test", "--simulate", "--save-frame", "frame.gif2"],
    "sim --port 99999": ["sim", "--no-browser", "--port", "99999", "--journal", "{sim-journal}"],
    # values that are no values
    "config NaN time": ["config", "check", "--file", "{nan.toml}"],
    "config inf time": ["config", "check", "--file", "{inf.toml}"],
    "hw test --wait nan": ["hw", "test", "--simulate", "--wait", "nan"],
    "config bridge_index 300": ["config", "check", "--file", "{index.toml}"],
    "config NUL in the port name": ["config", "check", "--file", "{nul.toml}"],
    "calibrate-encoder --quarters -3": ["hw", "calibrate-encoder", "--simulate", "--quarters", "-3"],
    "sim, two bots on one seat": ["sim", "--no-browser", "--port", "0", "--bots", "1,1", "--journal", "{sim-journal}"],
    "sim, bots on seats that do not play": ["sim", "--no-browser", "--port", "0", "--players", "2", "--bots", "1,3",
                                            "--journal", "{sim-journal}"],
    "config, two bots on one seat": ["config", "check", "--file", "{bots.toml}"],
}


def run(argv: list[str]) -> int:
    """The dispatcher as the `dogtable` script runs it: argparse's usage errors exit, the rest return."""
    try:
        return main(argv)
    except SystemExit as stop:
        return int(stop.code or 0)


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_line_and_exit_2(name: str, files: dict[str, str], capsys) -> None:
    argv = [files[a[1:-1]] if a.startswith("{") else a for a in CASES[name]]
    assert run(argv) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err
    assert lines[0].startswith("dogtable"), err


def test_the_sim_wrote_nothing_for_rejected_options(files: dict[str, str]) -> None:
    assert not Path(files["sim-journal"]).exists()


def test_config_check_names_the_missing_file(files: dict[str, str], capsys) -> None:
    assert main(["config", "check", "--file", files["missing.toml"]]) == 2
    err = capsys.readouterr().err
    assert "nope.toml" in err and "does not exist" in err and "OK" not in err


def test_an_internal_error_is_one_line_with_where_the_details_are(tmp_path: Path, monkeypatch, capsys) -> None:
    import companion.commands.engine as engine_commands

    def broken(args) -> int:
        raise RuntimeError("first line\nsecond line")

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.setattr(engine_commands, "cmd_selfplay", broken)
    assert main(["selfplay"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "internal error: RuntimeError: first line" in err and "--debug" in err
    saved = tmp_path / "dogtable" / "last-error.txt"
    assert f"details in {saved}" in err and "second line" in saved.read_text() and "Traceback" in saved.read_text()
