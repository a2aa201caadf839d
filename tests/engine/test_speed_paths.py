"""The optional compiled engine (scripts/build_accelerator.py) never runs stale code.

Python loads a built `engine/<module>.*.so` in place of the `.py` of the same name, so a build
older than an edit would silently run the old rules. The build records the sources' hashes;
here they must still match. Without a build (the default) the `.py` sources run.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import engine.moves
import engine.position
import engine.table

ROOT = Path(__file__).resolve().parents[2]
HOT = (engine.table, engine.moves, engine.position)


def test_compiled_modules_are_built_from_the_current_sources():
    compiled = [m for m in HOT if not m.__file__.endswith(".py")]
    if not compiled:
        assert all(Path(m.__file__).parent == ROOT / "engine" for m in HOT)  # the sources themselves run
        return
    record = ROOT / "engine" / "accelerated.json"
    assert record.exists(), "compiled engine modules without engine/accelerated.json: rebuild or --clean"
    hashes = json.loads(record.read_text())["sources"]
    for m in HOT:
        name = f"engine/{m.__name__.split('.')[-1]}.py"
        now = hashlib.sha256((ROOT / name).read_bytes()).hexdigest()
        assert hashes.get(name) == now, (
            f"{name} changed since scripts/build_accelerator.py ran: rebuild, or run it with --clean")
