"""`dogtable` command line: one dispatcher, each room's commands in `companion/commands/`.

Every command module exposes `register(subparsers)`, adding its parsers with
`set_defaults(func=handler)` where `handler(args) -> int`. Modules import heavy libraries
(OpenCV, pyserial) inside their handlers, so that `dogtable moves` starts quickly.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import sys

from companion.errors import UserError
from companion.settings import default_state_dir

# Order here is the order in `dogtable --help`.
COMMAND_MODULES = (
    "companion.commands.engine",
    "companion.commands.config",
    "companion.commands.hw",
    "companion.commands.bridge",
    "companion.commands.vision",
    "companion.commands.service",
    "companion.commands.remote_sim",  # after service: it adds --remote to `sim`
    "companion.commands.doctor",
    "companion.commands.club",
)

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line that says where to look (exit 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dogtable",
        description="Table companion for the DOG board games: rules engine, referee, camera and LEDs.",
    )
    parser.add_argument("--debug", action="store_true", help="show full tracebacks and debug logs")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # that room has no commands yet
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"dogtable: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("dogtable: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug, not the user's fault: one line, details in a file and with --debug
        if args.debug:
            raise
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        where = _save_traceback()
        print(
            f"dogtable: internal error: {type(exc).__name__}: {first} "
            f"({'details in ' + where + '; ' if where else ''}run again with --debug to see them, "
            "and please report it)",
            file=sys.stderr,
        )
        return 1


def _save_traceback() -> str | None:
    """The traceback of the error being handled, in the state folder, for a bug report."""
    import traceback

    path = default_state_dir() / "last-error.txt"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(" ".join(sys.argv) + "\n" + traceback.format_exc())
    except OSError:
        return None
    return str(path)


if __name__ == "__main__":
    sys.exit(main())
