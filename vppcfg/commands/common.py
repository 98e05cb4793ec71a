"""Options shared by the commands that talk to VPP."""

from __future__ import annotations

import argparse
import os
import sys

DEFAULT_API_SOCKET = "/run/vpp/api.sock"
DEFAULT_JSON_DIR = "/usr/share/vpp/api"


def add_vpp_options(parser: argparse.ArgumentParser) -> None:
    # The environment can set both once per shell (handy with the simulator).
    parser.add_argument(
        "--vpp-api-socket",
        default=os.environ.get("VPPCFG_API_SOCKET", DEFAULT_API_SOCKET),
        metavar="PATH",
        help=f"VPP binary API socket (default $VPPCFG_API_SOCKET or {DEFAULT_API_SOCKET})",
    )
    parser.add_argument(
        "--vpp-json-dir",
        default=os.environ.get("VPPCFG_JSON_DIR", DEFAULT_JSON_DIR),
        metavar="DIR",
        help=f"VPP API definitions, *.api.json (default $VPPCFG_JSON_DIR or {DEFAULT_JSON_DIR})",
    )


def write_output(text: str, path: str | None, prog: str) -> int:
    """Write a command's result to PATH, or stdout without one; the exit code."""
    if not path:
        sys.stdout.write(text)
        return 0
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as err:
        print(f"{prog}: cannot write {path}: {err.strerror}", file=sys.stderr)
        return 2
    return 0
