"""`vppcfg schema`: print the config language as a JSON Schema (draft 2020-12).

Editors with yaml-language-server validate and complete vppcfg files with it;
it is generated from the same yamale schema that `vppcfg check` uses.
"""

from __future__ import annotations

import argparse
import json

from vppcfg.commands.common import add_output_options, write_output


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "schema", help="print a JSON Schema of the config language (for editors)",
        description="Print the structure of vppcfg config files as a JSON Schema "
        "(draft 2020-12). Semantic rules are left to `vppcfg check`.",
    )
    add_output_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from vppcfg.config.jsonschema import build

    text = json.dumps(build(), indent=2) + "\n"
    return write_output(text, args.output, "vppcfg schema", args.force)
