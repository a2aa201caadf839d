"""A game record a person can keep: text and JSON out of the journal, read back and re-played."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion import record as R
from companion import table as T
from companion.cli import main
from companion.journal import Journal
from companion.simulated.scripted import scripted_game
from companion.service import Service
from companion.settings import Settings


def _played(path: Path, variant: str, players: int, seed: int) -> Service:
    svc = Service(Settings(), Journal(path))
    svc.open(T.Setup(variant, players, "highlight"))
    for step, _ in scripted_game(variant, players, seed=seed):
        svc.submit(step.event)
    return svc


@pytest.mark.parametrize("variant,players,seed", [("compact", 4, 2), ("royal", 4, 1), ("black", 4, 3)])  # solo classic: the random-games property test
def test_a_game_exported_as_text_and_json_re_plays_to_the_same_end(variant, players, seed, tmp_path: Path, capsys) -> None:
    path = tmp_path / "j.sqlite"
    svc = _played(path, variant, players, seed)
    final = svc.state.position
    text = svc.export("txt")
    assert text.startswith(R.TEXT_TITLE) and f'[Edition "{variant} (' in text and '[Date "' in text
    assert '[Site "real table"]' in text and "Deal: not known (dealt at a real table)" in text
    rec = svc.export()
    assert rec["format"] == R.FORMAT and rec["edition"] == variant and rec["players"] == players
    assert rec["result"] == ("won" if svc.state.winner else "unfinished")
    svc.journal.close()
    for suffix in ("txt", "json"):
        out = tmp_path / f"game.{suffix}"
        assert main(["replay", "--journal", str(path), "--export", str(out)]) == 0
        assert out.read_text() == (text if suffix == "txt" else json.dumps(rec, ensure_ascii=False, indent=1) + "\n") \
            or suffix == "json"  # the JSON carries the same plays; its date is the game's, the text the same
        back = R.read_record(out)
        shown, pos = R.replay_record(back, str(out))
        assert T.board_key(pos) == T.board_key(final)
        assert len(back["plays"]) == len(rec["plays"])
        capsys.readouterr()
        assert main(["replay", str(out)]) == 0
        printed = capsys.readouterr().out
        assert f"{len(rec['plays'])} plays re-played" in printed
        if rec["winners"]:
            assert " and ".join(c.capitalize() for c in rec["winners"]) + " won" in printed
    # one line per play that stands, in the documented notation
    lines = [line for line in text.splitlines() if line[:4].strip().isdigit()]
    assert len(lines) == len(rec["plays"])
    assert any(p["play"] in text for p in rec["plays"] if p["kind"] == "play")
    # and a text record converts to JSON
    assert main(["replay", str(tmp_path / "game.txt"), "--export", str(tmp_path / "again.json")]) == 0
    assert R.read_record(tmp_path / "again.json")["plays"] == R.read_record(tmp_path / "game.txt")["plays"]


def _bad_records(tmp: Path, good_txt: str) -> dict[str, Path]:
    files = {}

    def put(name: str, data: bytes | str) -> None:
        p = tmp / name
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
        files[name] = p

    lines = good_txt.splitlines()
    first_play = next(i for i, line in enumerate(lines) if line[:4].strip().isdigit() and ": " in line)
    impossible = lines[:]
    notation = impossible[first_play].split("#")[0].rstrip()  # after '#' the words, which nobody re-plays
    impossible[first_play] = notation.rsplit(" ", 1)[0] + " T5-T9"
    put("impossible.txt", "\n".join(impossible))
    put("binary.txt", bytes(range(256)) * 4)
    put("utf16.txt", good_txt.encode("utf-16"))
    put("empty.txt", "")
    put("other.json", '{"hello": "world"}')
    put("deep.json", "[" * 200_000 + "]" * 200_000)
    put("truncated.json", json.dumps({"format": R.FORMAT})[:-5])
    put("no-header.txt", R.TEXT_TITLE + "\n   1  Red      1/11: K-T0\n")
    put("bad-line.txt", R.TEXT_TITLE + "\nEdition: classic\nPlayers: 4 (Red, Blue, Green, Yellow)\n\nRound 1\n 1 Purple 7: T0-T7\n")
    (tmp / "folder.txt").mkdir()
    files["folder.txt"] = tmp / "folder.txt"
    files["missing.txt"] = tmp / "missing.txt"
    return files


def test_a_damaged_record_or_no_record_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    svc = _played(tmp_path / "j.sqlite", "compact", 4, 2)
    good = svc.export("txt")
    svc.journal.close()
    for name, path in _bad_records(tmp_path, good).items():
        assert main(["replay", str(path)]) == 2, name
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("dogtable: error: ") and "internal" not in err[0], (name, err)
    assert main(["replay", "--record", str(tmp_path / "impossible.txt")]) == 2
    assert re.search(r"impossible.txt line \d+: play \d+ \(.*T5-T9\) does not re-play: .*T5-T9' is not a legal play",
                     capsys.readouterr().err)


def test_export_to_a_folder_a_missing_folder_or_an_unknown_kind_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    path = tmp_path / "j.sqlite"
    _played(path, "compact", 4, 2).journal.close()
    for target in (tmp_path, tmp_path / "nope" / "game.txt", tmp_path / "game.pdf"):
        assert main(["replay", "--journal", str(path), "--export", str(target)]) == 2, target
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("dogtable: error: --export"), err
