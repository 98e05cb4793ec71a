"""The `vppcfg` command line: one sub-command per module in vppcfg.commands.

Each command module exposes ``register(subparsers)``, which adds its parser and
sets ``func`` to a callable taking the parsed arguments and returning the exit
code. Exit codes: vppcfg.exits (the table: docs/user-guide.md, "Exit codes").
"""

from __future__ import annotations

import argparse
import importlib
import sys

from vppcfg import __version__
from vppcfg.exits import guarded

COMMAND_MODULES = ("check", "dump", "plan", "apply", "schema")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vppcfg", description="Declarative configuration for the VPP dataplane."
    )
    parser.add_argument("--version", action="version", version=f"vppcfg {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"vppcfg.commands.{name}")
        except ModuleNotFoundError as err:  # a command not built yet
            if err.name != f"vppcfg.commands.{name}":
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    # Ctrl-C, a stray OSError or a bug: one line and a documented code (vppcfg.exits)
    return guarded("vppcfg", lambda: args.func(args))


if __name__ == "__main__":
    sys.exit(main())
