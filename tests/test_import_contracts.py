"""The house's import directions (pyproject.toml [tool.importlinter], after DESIGN.md), checked
by import-linter on the code as it stands: rooms in layers, the simulated table outside the
service, and no import loop between the modules of any package."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_import_contract_is_kept() -> None:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe, "import-linter is missing: pip install -e '.[dev]'"
    done = subprocess.run([exe, "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Contracts: 5 kept, 0 broken." in done.stdout
