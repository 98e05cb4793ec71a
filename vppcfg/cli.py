"""The `vppcfg` command line: one sub-command per module in vppcfg.commands.

Each command module exposes ``register(subparsers)``, which adds its parser and
sets ``func`` to a callable taking the parsed arguments and returning the exit
code. Exit codes: 0 success, 1 the input is invalid or the operation failed,
2 usage or I/O error.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from vppcfg import __version__

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
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("vppcfg: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
