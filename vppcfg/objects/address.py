"""IP addresses and unnumbered interfaces."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vppcfg.model import Dataplane
from vppcfg.objects.base import (
    Claim,
    Columns,
    Descriptor,
    Node,
    NodeContext,
    RenderContext,
    fd,
    ikey,
    token,
    tokens,
)
from vppcfg.objects.needs import EVERY_INTERFACE, Dump, Uses
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext
from vppcfg.vpp_numbers import ADDRESS_IN_USE, IP6_ADDRESS_IN_USE


def _addresses_set(names: Sequence[str], prefixes: Sequence[str], verb: str = "") -> list[str]:
    """The commands that give each interface names[i] the address prefixes[i]
    (verb "del ": that take it away)."""
    return [f"set interface ip address {verb}{name} {prefix}"
            for name, prefix in zip(tokens(names), tokens(prefixes), strict=True)]


class Address(Descriptor):
    obj = "address"
    api_modules = ("ip",)
    hints = tuple(("sw_interface_add_del_address", rv,
                   "another interface has this address or subnet")
                  for rv in (ADDRESS_IN_USE, IP6_ADDRESS_IN_USE))
    uses = (Uses(("sw_interface_add_del_address",)),)
    reads = (Uses(("ip_address_dump",)),)

    def follow_up(self, raw: RawDump, reading: Reading) -> list[tuple[str, dict[str, Any]]]:
        """v4 and v6 addresses per interface (VPP has no "all interfaces" form);
        the interface reader (objects.interface) puts them on each interface."""
        return [("ip_address_dump", {"sw_if_index": index, "is_ipv6": v6})
                for index in reading.names if index not in reading.hidden
                for v6 in (False, True)]

    def take(self, raw: RawDump, requests: list[tuple[str, dict[str, Any]]],
             results: list[Any]) -> None:
        out = raw.by_index("addresses")
        for (_, args), details in zip(requests, results, strict=True):
            if details:
                out.setdefault(args["sw_if_index"], []).extend(str(d.prefix) for d in details)

    def columns(self, dp: Dataplane, ctx: NodeContext) -> Columns:
        # the most numerous node of a large config
        held = list(ctx.having("addresses"))
        owners = [key for key, itf in held for _ in itf.addresses]
        keys = [f"{key}/address/{prefix}" for key, itf in held for prefix in itf.addresses]
        sources = [(itf.name, prefix) for _, itf in held for prefix in itf.addresses]
        return Columns(keys, sources, (owners,), owners)

    def value(self, source: tuple[str, str]) -> dict[str, Any]:
        name, prefix = source
        return {"name": name, "prefix": prefix}

    def claims(self, node: Node) -> tuple[Claim, ...]:
        # One address, one subnet per VPP: a move frees them first.
        net = ipaddress.ip_interface(node.value["prefix"])
        return (Claim(f"ip:{net.ip}"), Claim(f"net:{net.network}"),
                Claim(f"role:{node.value['name']}", "l3"))

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        if op.action == "delete":
            return _addresses_set((op.params["name"],), (op.params["prefix"],), "del ")
        return self.created_lines(op.params)

    def created_lines(self, params: Mapping[str, Any]) -> list[str]:
        return _addresses_set((params["name"],), (params["prefix"],))

    def created_run(self, sources: list[tuple[str, str]]) -> list[str]:
        if not sources:
            return []
        names, prefixes = zip(*sources, strict=True)
        return _addresses_set(names, prefixes)

    def execute(self, op: Operation, ctx: VppContext) -> None:
        ctx.call("sw_interface_add_del_address", sw_if_index=ctx.sw_if_index(op.params["name"]),
                 is_add=op.action == "create", del_all=False, prefix=op.params["prefix"])


class Unnumbered(Descriptor):
    obj = "unnumbered"
    api_modules = ("ip",)
    uses = (Uses(("sw_interface_set_unnumbered",)),)
    reads = (Dump("unnumbered", ("ip_unnumbered_dump",), args=EVERY_INTERFACE),)

    def read(self, raw: RawDump, reading: Reading) -> None:
        for u in raw.rows("unnumbered"):
            source = reading.names.get(u["ip_sw_if_index"])
            if source is not None:
                reading.set(u["sw_if_index"], unnumbered=source)

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, itf in ctx.having("unnumbered"):
            yield Node(f"{key}/unnumbered", self.obj, fd(name=itf.name, use=itf.unnumbered),
                       deps=(key, ikey(itf.unnumbered)), owner=key)

    def claims(self, node: Node) -> tuple[Claim, ...]:
        return (Claim(f"role:{node.value['name']}", "l3"),)

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        name = token(op.params["name"])
        if op.action == "delete":
            return [f"set interface unnumbered del {name}"]
        return [f"set interface unnumbered {name} use {token(op.params['use'])}"]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        p = op.params
        target = ctx.sw_if_index(p["name"])
        if op.action == "update":
            previous = p["previous"].get("use", p["use"])
            ctx.call("sw_interface_set_unnumbered", sw_if_index=ctx.sw_if_index(previous),
                     unnumbered_sw_if_index=target, is_add=False)
        ctx.call("sw_interface_set_unnumbered", sw_if_index=ctx.sw_if_index(p["use"]),
                 unnumbered_sw_if_index=target, is_add=op.action != "delete")
