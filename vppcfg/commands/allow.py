"""Options shared by check, plan and apply: `--allow RULE` (a language refusal
made a warning) and `--strict` (any warning refuses), and how plan and apply
show the config's warnings (stderr, once, before the plan)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from vppcfg.config import verdicts


def add_allow_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow", action="append", default=[], type=_rule, metavar="RULE",
        help="accept a state the vppcfg language refuses, as a warning (repeatable; "
        "`vppcfg check --list-rules` lists the rules; a file can say `vppcfg: {allow: [...]}`)",
    )


def add_strict_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--strict", action="store_true",
        help="refuse the config when it has warnings (exit 1, nothing changed)",
    )


def _rule(text: str) -> str:
    if text not in verdicts.RULES:
        raise argparse.ArgumentTypeError(
            f"no rule {text!r}; `vppcfg check --list-rules` lists them"
        )
    return text


def rules_epilog() -> str:
    return "rules that --allow RULE (or `vppcfg: {allow: [RULE]}`) turns into warnings:\n" + (
        verdicts.listing()
    )


def show_warnings(warnings: list[Any]) -> None:
    """Each warning on stderr, as `check` prints it."""
    for problem in warnings:
        print(replace(problem, message=f"warning: {problem.message}"), file=sys.stderr)


def strict_refusal(args: argparse.Namespace, warnings: list[Any], prog: str) -> bool:
    """With --strict, any warning refuses the config: say so, return True."""
    if not getattr(args, "strict", False) or not warnings:
        return False
    print(f"{prog}: --strict: {len(warnings)} warning(s) refuse {args.config}; "
          "nothing was changed", file=sys.stderr)
    return True
