"""Options shared by the commands that talk to VPP."""

from __future__ import annotations

import argparse

DEFAULT_API_SOCKET = "/run/vpp/api.sock"
DEFAULT_JSON_DIR = "/usr/share/vpp/api"


def add_vpp_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--vpp-api-socket",
        default=DEFAULT_API_SOCKET,
        metavar="PATH",
        help=f"VPP binary API socket (default {DEFAULT_API_SOCKET})",
    )
    parser.add_argument(
        "--vpp-json-dir",
        default=DEFAULT_JSON_DIR,
        metavar="DIR",
        help=f"VPP API definitions (*.api.json) (default {DEFAULT_JSON_DIR})",
    )
