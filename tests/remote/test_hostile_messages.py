"""A small seeded run of scripts/remote_hostile.py: hostile messages crash nothing, change no game."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("remote_hostile", Path(__file__).parents[2] / "scripts" / "remote_hostile.py")
hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hostile)


def test_hostile_messages_change_nothing(broker, tmp_path):
    out = hostile.run(3000, seed=7, folder=tmp_path, broker=broker, quiet=True, through=500)
    assert out["via_broker"]["sent"] + out["via_broker"]["skipped"] == 500 and out["via_broker"]["sent"] > 400, out
    assert out["raised"] == 0, out
    assert out["logged_failures"] == 0, out["first_failure"]
    assert out["changed"] is False, out
