"""Optional: compile the move generator's hot modules with mypyc (2 to 3 times faster).

    pip install mypy                              # mypyc comes with it; needs a C compiler
    python scripts/build_accelerator.py           # build next to the sources
    python scripts/build_accelerator.py --clean   # remove the build: pure Python again

Pure Python stays the default and the fallback: nothing in `pip install -e .` builds or needs
this, and without the built files the engine runs the `.py` sources as always. Once built,
Python loads `engine/{table,moves,position,locations,notation}.*.so` in place of the `.py` files of the same
name (only for the Python version that built them). The build records the sources' hashes in
`engine/accelerated.json`; the engine tests fail on a build older than its sources (rebuild or
clean after editing those files). `scripts/bench_engine.py` prints which one it ran.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# locations and notation with them: compiled code reads their constants and calls their
# functions directly, where it would go through a module dictionary for a pure-Python module
MODULES = ("engine/table.py", "engine/moves.py", "engine/position.py", "engine/locations.py", "engine/notation.py")
GROUP = "engine.accelerated"  # the shared runtime lands inside the package: engine/accelerated__mypyc.*.so
RECORD = ROOT / "engine" / "accelerated.json"


def source_hashes() -> dict[str, str]:
    return {m: hashlib.sha256((ROOT / m).read_bytes()).hexdigest() for m in MODULES}


def built_files() -> list[Path]:
    engine = ROOT / "engine"
    names = [Path(m).stem for m in MODULES] + [GROUP.split(".")[-1] + "__mypyc"]
    return [f for name in names for f in engine.glob(f"{name}.*.so")]


def clean() -> None:
    for f in built_files() + [RECORD]:
        if f.exists():
            f.unlink()
            print(f"removed {f.relative_to(ROOT)}")


def build() -> None:
    try:
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError:
        sys.exit("mypyc is not installed: run `pip install mypy` first (pure Python keeps working meanwhile)")
    clean()
    os.chdir(ROOT)
    with tempfile.TemporaryDirectory(prefix="dogtable-mypyc-") as tmp:
        setup(
            name="dogtable-accelerated",
            # the rest of the package is read for its types only; its own checks are not this build's
            ext_modules=mypycify(["--follow-imports=silent", *MODULES], group_name=GROUP, target_dir=tmp),
            script_args=["--quiet", "build_ext", "--inplace", "--build-temp", tmp],
        )
    shutil.rmtree(ROOT / "build", ignore_errors=True)  # setuptools' leftovers, not needed at run time
    RECORD.write_text(json.dumps({"python": sys.version.split()[0], "sources": source_hashes()}, indent=1) + "\n")
    print(f"built {', '.join(str(f.relative_to(ROOT)) for f in built_files())}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clean", action="store_true", help="remove the compiled modules (back to pure Python)")
    args = ap.parse_args()
    clean() if args.clean else build()


if __name__ == "__main__":
    main()
