"""`vppcfg check`: validate config files without touching VPP.

Exit codes: 0 every file is valid, 1 a file is invalid, 2 usage or I/O error
(missing file, a directory, not UTF-8, too big). The language's refusals of
states VPP accepts (vppcfg.config.verdicts) are errors unless allowed (--allow
RULE, or the file's `vppcfg: {allow: [...]}`); allowed ones, and other likely
mistakes, are warnings: printed, the file stays valid (unless --strict).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from vppcfg import config, exits
from vppcfg.commands.allow import add_allow_option, add_strict_option, rules_epilog
from vppcfg.commands.common import read_config
from vppcfg.config import verdicts
from vppcfg.gcpause import gc_paused


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        help="validate config files",
        description="Check vppcfg config files: YAML, structure and semantic rules. "
        "Every problem is reported as file:line:column: object.path: message.",
        epilog=rules_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="config file(s) to check (`-`: read one from stdin)")
    parser.add_argument(
        "-c", "--config", action="append", default=[], metavar="FILE",
        help="config file to check (repeatable; `-`: stdin)"
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default text)"
    )
    add_allow_option(parser)
    add_strict_option(parser)
    parser.add_argument("--list-rules", action="store_true",
                        help="list the rule names --allow takes, and exit")
    parser.set_defaults(func=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    if args.list_rules:
        print(verdicts.listing())
        return 0
    files = [*args.config, *args.files]
    if not files:
        args.parser.print_usage(sys.stderr)
        print("vppcfg check: error: give a config file (-c FILE or FILE)", file=sys.stderr)
        return exits.USAGE
    if files.count("-") > 1:  # stdin holds one file: a second read would see it empty
        args.parser.print_usage(sys.stderr)
        print("vppcfg check: error: `-` (stdin) given more than once", file=sys.stderr)
        return exits.USAGE
    # Each file's model is let go of before the collector runs again: its first
    # pass would otherwise visit them all (50 ms at 100,000 objects).
    with gc_paused():
        results = [_check(path, args.allow, args.strict) for path in files]
    if args.format == "json":
        print(json.dumps(results if len(results) > 1 else results[0], indent=2))
    else:
        for result in results:
            _print_text(result)
    return max(result["exit_code"] for result in results)


def _check(path: str, allow: list[str], strict: bool) -> dict[str, Any]:
    try:
        path, text = read_config(path)  # `-`: stdin, reported as <stdin>
        dp, warnings = config.check_text(text, path, allow)
    except config.ConfigIOError as err:
        return _result(path, 2, err.problems)
    except config.ConfigError as err:
        return _result(path, 1, err.problems)
    if strict and warnings:  # --strict: the warnings are the problems
        return _result(path, 1, warnings)
    summary = {
        "interfaces": len(dp.interfaces),
        "bridge_domains": len(dp.bridge_domains),
        "acls": len(dp.acls),
    }
    return {**_result(path, 0, [], warnings), "summary": summary}


def _result(
    path: str, code: int, problems: list[config.Problem], warnings: list[config.Problem] = ()
) -> dict[str, Any]:
    return {
        "file": path,
        "valid": code == 0,
        "exit_code": code,
        "problems": [p.as_dict() for p in problems],
        "warnings": [p.as_dict() for p in warnings],
    }


def _print_text(result: dict[str, Any]) -> None:
    for warning in result["warnings"]:
        problem = config.Problem(**warning)
        print(str(config.Problem(**{**warning, "message": f"warning: {problem.message}"})),
              file=sys.stderr)
    if result["valid"]:
        counts = ", ".join(_count(n, k) for k, n in result["summary"].items())
        print(f"{result['file']}: valid ({counts})")
        return
    for problem in result["problems"]:
        print(str(config.Problem(**problem)), file=sys.stderr)
    if result["exit_code"] == 1:  # an I/O problem already said it all in one line
        count = len(result["problems"])
        print(f"{result['file']}: invalid, {_count(count, 'problems')}", file=sys.stderr)


def _count(n: int, plural: str) -> str:
    noun = plural.replace("_", " ")
    return f"{n} {noun[:-1] if n == 1 else noun}"
