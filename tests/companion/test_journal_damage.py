"""The journal after kill -9 and 22 kinds of damage: each named in one line, nothing lost silently.

A small seeded run of scripts/journal_crash.py (the full run: 100 kills, printed figures).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "journal_crash.py"
_spec = importlib.util.spec_from_file_location("journal_crash", SCRIPT)
crash = importlib.util.module_from_spec(_spec)
sys.modules["journal_crash"] = crash
_spec.loader.exec_module(crash)


@pytest.mark.parametrize("name", list(crash.DAMAGES))
def test_each_damage_is_named_in_one_line_and_the_game_comes_back(name: str, tmp_path: Path) -> None:
    r = crash.damage_one(name, tmp_path, seed=5, events=60)
    assert r["written"] == 60
    assert r["lost_silently"] == 0, r
    if name == "read-only file":
        if os.geteuid() == 0:  # root writes a read-only file anyway: the journal simply works
            assert r["notice"] is None and r["error"] is None and r["restored"] == 60
        else:
            assert "read-only" in r["error"] and "\n" not in r["error"]
        return
    said = r["notice"]
    assert said and "\n" not in said, r
    assert "moved aside to" in said or "nothing to move aside" in said
    assert r["aside"] or name == "database deleted, -wal left"  # the damaged file is kept, never deleted
    if name == "bad row and no copy":  # no copy to restore from: the loss is counted
        assert r["restored"] == 30 and "30 event(s) the damaged file shows could not be restored" in said
    elif name == "damaged -wal frame, no copy":  # SQLite would stop there silently: the later commits are counted
        lost = 60 - r["restored"]
        assert 0 < lost < 60 and "the -wal file is damaged at frame" in said and f"; {lost} event(s) lost" in said
    else:
        assert r["restored"] == 60 and "0 event(s) lost" in said
    assert r["resumed_at"] == r["restored"]  # and the service goes on with that game
    # the page gets the same facts in numbers (it words them in the reader's language)
    rep = r["repaired"]
    assert rep["events"] == r["restored"] and rep["games"] == (1 if r["restored"] else rep["games"])
    assert rep["lost"] == (60 - r["restored"] if not rep["more_may_be_lost"] else rep["lost"])
    assert (rep["kept_as"] is None) == ("nothing to move aside" in said)
    assert rep["kept_as"] is None or f"moved aside to {rep['kept_as']}" in said


def test_kill_9_at_random_acknowledged_events_loses_nothing_and_reports_no_damage(tmp_path: Path) -> None:
    out = crash.kills(4, seed=7, folder=tmp_path, progress=False)
    assert out["kills"] == 4
    assert out["lost_silently"] == 0 and out["notices"] == 0, out
