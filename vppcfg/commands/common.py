"""Options shared by the commands: those that talk to VPP, and how a config
file is named (`-c FILE`, a positional FILE, or `-` for stdin)."""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from vppcfg import numbers

STDIN = "-"  # as a config file name: read the config from stdin
STDIN_NAME = "<stdin>"  # what its problems are reported against
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


def add_linux_options(parser: argparse.ArgumentParser) -> None:
    """How the Linux side of the lcp pairs is reached, and who owns it."""
    parser.add_argument(
        "--linux-socket", metavar="PATH", default=os.environ.get("VPPCFG_LINUX_SOCKET"),
        help="reach the Linux side through the simulator's socket at PATH (default "
             "$VPPCFG_LINUX_SOCKET, else vppcfg-sim's beside the API socket, else netlink)",
    )
    parser.add_argument(
        "--linux-side", choices=LINUX_SIDE, default=None,
        help="the lcp pairs' Linux side (state, MTU, addresses in each pair's netns): off "
             "(VPP's half only, as vppcfg 1.x), manage (plan, apply and verify it too), "
             "report (another tool owns it: print its differences); default "
             "$VPPCFG_LINUX_SIDE, else the file's `vppcfg: {linux-side: ...}`, else off",
    )


LINUX_SIDE = ("off", "manage", "report")


def linux_side(args: argparse.Namespace) -> str:
    """What the command does with the Linux side: the option, else
    $VPPCFG_LINUX_SIDE, else the config file's setting, else off."""
    for choice in (getattr(args, "linux_side", None), os.environ.get("VPPCFG_LINUX_SIDE"),
                   getattr(args, "file_linux_side", None)):
        if choice:
            if choice not in LINUX_SIDE:
                from vppcfg.linux import LinuxError

                raise LinuxError(errno.EINVAL, f"$VPPCFG_LINUX_SIDE: {choice!r} is not one of "
                                 f"{', '.join(LINUX_SIDE)}")
            return str(choice)
    return "off"


@contextmanager
def open_vpp(args: argparse.Namespace) -> Iterator[Any]:
    """A connection to VPP (vppcfg.vpp.VppConnection) that reads and writes
    the Linux side of its lcp pairs as the options say."""
    from vppcfg.linux import open_access
    from vppcfg.vpp import VppConnection

    with VppConnection.open(args.vpp_api_socket, args.vpp_json_dir, args.timeout) as conn:
        side = linux_side(args)
        if side == "off":
            yield conn
            return
        conn.linux = open_access(args.vpp_api_socket, getattr(args, "linux_socket", None),
                                 side == "manage")
        try:
            yield conn
        finally:
            conn.linux.close()


def add_timeout_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--timeout", type=numbers.seconds(), default=5.0, metavar="SECONDS",
        help="how long to wait for VPP to answer before giving it up (default 5); with tens "
             "of thousands of interfaces VPP can be busy for longer within one apply",
    )


def write_output(text: str | list[str], path: str | None, prog: str,
                 force: bool = False) -> int:
    """Write a command's result (the text, or pieces of it) to PATH, or stdout
    without one; the exit code. PATH is replaced whole or not at all (see
    vppcfg.safefile.write_atomic): a failed write leaves the old file intact."""
    from vppcfg.safefile import UnsafePath, write_atomic

    pieces = [text] if isinstance(text, str) else text
    if not path:
        sys.stdout.writelines(pieces)
        return 0
    try:
        write_atomic(path, pieces, force=force)
    except UnsafePath as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"{prog}: cannot write {path}: {err.strerror}", file=sys.stderr)
        return 2
    return 0


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """-o FILE and --force, for the commands that write a result."""
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE instead of stdout (replaced whole, or not at all)")
    parser.add_argument("--force", action="store_true",
                        help="with -o: replace FILE even when another user owns it")


JSON_CHUNK = 4096  # items of a per-line list per piece of json_pieces' text


def json_pieces(doc: dict[str, Any], per_line: Collection[str] = (),
                default: Callable[[Any], Any] | None = None) -> list[str]:
    """`doc` as JSON text, in pieces that join to it: laid out as
    json.dumps(doc, indent=2) lays it out, but for the lists under a key in
    `per_line` (at any depth; a list, tuple or iterator), which
    have an item per line, written by the json module's C encoder. They are a
    plan's or an apply's operations: pretty-printed, 500,000 of them took
    seconds of CPU and gigabytes of memory. `default` as json.dumps has it."""
    pieces: list[str] = []
    _json_value(doc, "", per_line, json.JSONEncoder(default=default).encode, pieces)
    pieces.append("\n")
    return pieces


def _json_value(value: Any, indent: str, per_line: Collection[str],
                encode: Callable[[Any], str], pieces: list[str]) -> None:
    if not isinstance(value, dict) or not value:
        pieces.append(json.dumps(value, indent=2).replace("\n", "\n" + indent))
        return
    inner = indent + "  "
    pieces.append("{")
    for i, (key, item) in enumerate(value.items()):
        name = key if isinstance(key, str) else json.dumps(key)  # as json.dumps names it
        pieces.append(f"{',' if i else ''}\n{inner}{json.dumps(name)}: ")
        if key in per_line and isinstance(item, list | tuple | Iterator):
            _json_lines(item, inner, encode, pieces)
        else:
            _json_value(item, inner, per_line, encode, pieces)
    pieces.append(f"\n{indent}}}")


def _json_lines(items: Iterable[Any], indent: str, encode: Callable[[Any], str],
                pieces: list[str]) -> None:
    """A list with an item per line, JSON_CHUNK items a piece."""
    inner, lines, started = ",\n" + indent + "  ", [], False
    for item in items:
        lines.append(encode(item))
        if len(lines) == JSON_CHUNK:
            pieces.append(("," if started else "[") + inner[1:] + inner.join(lines))
            lines, started = [], True
    if lines:
        pieces.append(("," if started else "[") + inner[1:] + inner.join(lines))
        started = True
    pieces.append(f"\n{indent}]" if started else "[]")


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    """The one config file of plan and apply: `-c FILE`, or FILE; `-` is stdin."""
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="the config file (`-`: read it from stdin)")
    parser.add_argument("-c", "--config", metavar="FILE", action=_Once,
                        help="the config file, as FILE (`-`: stdin)")


class _Once(argparse.Action):
    """-c given twice: argparse would keep the last one, silently planning B of
    `-c A -c B`; one config file is the whole desired state, so refuse."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if getattr(namespace, self.dest, None) is not None:
            raise argparse.ArgumentError(self, "give one config file, not two")
        setattr(namespace, self.dest, values)


def config_path(args: argparse.Namespace, prog: str) -> str | None:
    """The config file that -c or FILE names, or None with a usage error said."""
    given = [p for p in (args.config, args.file) if p is not None]
    if len(given) != 1:
        why = "give a config file" if not given else "give one config file, not two"
        print(f"{prog}: error: {why} (-c FILE, FILE, or - for stdin)", file=sys.stderr)
        return None
    return given[0]


def read_config(path: str) -> tuple[str, str]:
    """(name, text) of a config file, or of stdin for `-`; problems reading it
    raise vppcfg.config.ConfigIOError, naming the file."""
    from vppcfg.config import loader

    if path != STDIN:
        return path, loader.read_text(path)
    return STDIN_NAME, loader.read_stream(sys.stdin.buffer, STDIN_NAME)
