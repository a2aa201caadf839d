"""`dogtable config check|show|paths`: the configuration files and what they add up to."""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from companion.config import DEFAULT_SOURCE, ConfigError, load_config, search_paths
from companion.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("config", help="check or show the configuration (devices, pins, camera)")
    sub = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="validate the configuration; name file, key and problem for each mistake")
    check.add_argument("--file", action="append", type=Path, metavar="PATH",
                       help="read this file instead of /etc and ~/.config (repeatable; later wins)")
    check.set_defaults(func=_check)
    show = sub.add_parser("show", help="print the merged configuration as JSON")
    show.add_argument("--file", action="append", type=Path, metavar="PATH")
    show.set_defaults(func=_show)
    paths = sub.add_parser("paths", help="list the files read, in order")
    paths.set_defaults(func=_paths)


def _load(args: argparse.Namespace):
    try:
        return load_config(args.file), []
    except ConfigError as exc:
        return None, exc.problems


def _check(args: argparse.Namespace) -> int:
    config, problems = _load(args)
    if len(problems) == 1:
        raise UserError(str(problems[0]))
    if problems:
        for p in problems:
            print(f"{p}", file=sys.stderr)
        raise UserError(f"{len(problems)} problem(s) in the configuration (listed above); fix them and check again")
    print("configuration OK; files read: " + ", ".join(config.files))
    return 0


def _show(args: argparse.Namespace) -> int:
    config, problems = _load(args)
    if problems:
        raise ConfigError(problems)
    out = {name: dataclasses.asdict(value) if dataclasses.is_dataclass(value) else value
           for name, value in config.sections.items()}
    print(json.dumps(out, indent=2))
    return 0


def _paths(args: argparse.Namespace) -> int:
    print(f"{DEFAULT_SOURCE} (defaults, packaged)")
    for p in search_paths():
        print(f"{p} ({'present' if p.exists() else 'absent'})")
    return 0
