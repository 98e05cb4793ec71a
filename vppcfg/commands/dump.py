"""`vppcfg dump`: print the live VPP as a config file.

The output is a config that `vppcfg check` accepts and that plans to nothing
against the same VPP. Objects vppcfg did not create (foreign) are left out of
the config proper, because naming them in a config would hand them to
vppcfg; they follow as a commented-out block, ready to adopt by uncommenting.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from typing import Any

from vppcfg.commands.common import (
    add_linux_options,
    add_output_options,
    add_timeout_option,
    add_vpp_options,
    open_vpp,
    write_output,
)
from vppcfg.model import Dataplane, FrozenDict

FOREIGN_HEADER = (
    "Present in VPP but not created by vppcfg: vppcfg leaves these alone.\n"
    "Uncomment (and apply) to let vppcfg manage them."
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "dump", help="print the live VPP dataplane as a config file",
        description="Read the running VPP and print it as a vppcfg config.",
    )
    add_vpp_options(parser)
    add_linux_options(parser)
    parser.add_argument("--format", choices=("yaml", "json"), default="yaml",
                        help="a config file in YAML (default), or the same as JSON")
    add_output_options(parser)
    add_timeout_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from vppcfg.linux import LinuxError
    from vppcfg.vpp import VppError

    try:
        with open_vpp(args) as conn:
            live = conn.dump()
            _say_unread(conn)
    except (VppError, LinuxError) as err:
        print(f"vppcfg dump: {err}", file=sys.stderr)
        return 2
    text = render(live, args.format)
    return write_output(text, args.output, "vppcfg dump", args.force)


def linux_header(live: Dataplane) -> list[str]:
    """What the dump says of the Linux side: linux-cp's settings, and each
    pair whose Linux side differs from its VPP interface (the file written
    from this dump would have vppcfg make it right)."""
    from dataclasses import replace

    from vppcfg.commands.linuxside import linux_steps

    if live.linux is None:
        return []
    lines = [f"linux-cp: {live.linux.settings.words()}"]
    steps = linux_steps(replace(live, linux=None), live)
    if steps:
        lines.append(f"Linux side differs from VPP's in {len(steps)} place(s):")
        lines += [f"  {step}" for step in steps]
    return lines


def _say_unread(conn: Any) -> None:
    """Name on stderr what the dump could not read from this VPP, and why:
    such a section is left out of the output, not reported as empty."""
    from vppcfg.vpp.preflight import unread

    for obj, finding in unread(conn.offer()):
        print(f"vppcfg dump: not read: {obj}: {finding.headline()}", file=sys.stderr)


def render(live: Dataplane, fmt: str = "yaml") -> str:
    """The live model as config text: owned objects, then foreign ones commented out."""
    from vppcfg import config

    owned, foreign = split_foreign(live)
    header = linux_header(live)
    if fmt == "json":
        data = config.to_dict(owned)
        data["_foreign"] = sorted(live.foreign)
        if header:
            data["_linux"] = header
        return json.dumps(data, indent=2) + "\n"
    text = config.to_yaml(owned, annotate_foreign=True)
    text = "".join(f"# {line}\n" for line in header) + text
    if foreign is None:
        return text
    block = config.to_yaml(foreign, allow_section=False)  # the allow list is said once, above
    comment = "".join(f"# {line}\n" for line in FOREIGN_HEADER.splitlines())
    comment += "".join(f"#   {line}\n" if line else "#\n" for line in block.splitlines())
    return text + "\n" + comment


# Fields of an Interface that name another interface.
_INTERFACE_REFS = ("parent", "unnumbered", "l2xc")


def split_foreign(live: Dataplane) -> tuple[Dataplane, Dataplane | None]:
    """(the model without foreign objects, a model of only the foreign ones).

    A foreign object that an owned one refers to (a BVI, a parent, ...) stays in
    the owned part, so the config stays self-consistent.
    """
    if not live.foreign:
        return live, None
    dropped = {k for k in live.foreign if not _referenced(live, k)}
    owned = _filter(live, lambda key: key not in dropped)
    if not dropped:
        return owned, None
    foreign = _filter(live, lambda key: key in dropped)
    # The commented block shows only the foreign objects (default sflow: not repeated).
    foreign = replace(foreign, sflow=type(live.sflow)(), foreign=frozenset())
    # Foreign objects kept for consistency stay marked, for the annotation.
    return replace(owned, foreign=live.foreign - frozenset(dropped)), foreign


def _referenced(live: Dataplane, key: str) -> bool:
    collection, _, name = key.partition("/")
    if collection not in ("interfaces", "bonds", "taps", "vxlan_tunnels"):
        return _acl_referenced(live, name) if collection == "acls" else False
    for other_key, itf in live.interfaces.items():
        if f"interfaces/{other_key}" in live.foreign:
            continue
        if name in (getattr(itf, f) for f in _INTERFACE_REFS):
            return True
    for bd_name, bd in live.bridge_domains.items():
        if f"bridge_domains/{bd_name}" not in live.foreign and (bd.bvi == name or
                                                               name in bd.members):
            return True
    return any(
        name in bond.members
        for bond_name, bond in live.bonds.items()
        if f"bonds/{bond_name}" not in live.foreign
    )


def _acl_referenced(live: Dataplane, name: str) -> bool:
    return any(
        name in itf.acls.input or name in itf.acls.output
        for key, itf in live.interfaces.items()
        if f"interfaces/{key}" not in live.foreign
    )


def _filter(live: Dataplane, keep: Any) -> Dataplane:
    def part(collection: str) -> FrozenDict:
        items = getattr(live, collection).items()
        return FrozenDict((k, v) for k, v in items if keep(f"{collection}/{k}"))

    return replace(
        live,
        interfaces=part("interfaces"),
        bonds=part("bonds"),
        taps=part("taps"),
        vxlan_tunnels=part("vxlan_tunnels"),
        bridge_domains=part("bridge_domains"),
        acls=part("acls"),
    )
