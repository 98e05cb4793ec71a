"""sFlow: the global sampler settings and per-PHY enablement."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from vppcfg.model import Dataplane, InterfaceKind, Sflow
from vppcfg.objects.base import (
    Descriptor,
    Node,
    NodeContext,
    RenderContext,
    fd,
    token,
)
from vppcfg.objects.needs import SFLOW, Dump, Uses
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext
from vppcfg.vpp_numbers import NONE_INDEX

# Model field -> (its setter, the setter's field, CLI word); its getter beside
SETTERS = {
    "sampling_rate": ("sflow_sampling_rate_set", "sampling_N", "sampling-rate"),
    "polling_interval": ("sflow_polling_interval_set", "polling_S", "polling-interval"),
    "header_bytes": ("sflow_header_bytes_set", "header_B", "header-bytes"),
}
GETTERS = {name: setter.replace("_set", "_get") for name, (setter, _, _) in SETTERS.items()}
HW_TABLE = "show hardware-interfaces brief"


class SflowGlobal(Descriptor):
    """Always present on both sides: only ever updated."""

    obj = "sflow"
    api_modules = ("sflow",)
    uses = tuple(Uses((setter[0],), SFLOW) for setter in SETTERS.values())
    reads = tuple(Dump(f"sflow_{name}", (getter,), SFLOW, reply=True)
                  for name, getter in GETTERS.items())

    def read(self, raw: RawDump, reading: Reading) -> None:
        got = {name: raw[f"sflow_{name}"] for name in SETTERS if f"sflow_{name}" in raw}
        reading.sections["sflow"] = Sflow(**{name: reply[SETTERS[name][1]]
                                             for name, reply in got.items()})

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        s = dp.sflow
        yield Node("sflow", self.obj, fd(sampling_rate=s.sampling_rate,
                                         polling_interval=s.polling_interval,
                                         header_bytes=s.header_bytes), owner="sflow")

    def _fields(self, op: Operation) -> list[str]:
        return [name for name in SETTERS if name in op.params.get("previous", SETTERS)]

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        return [f"sflow {SETTERS[name][2]} {int(op.params[name])}" for name in self._fields(op)]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        for name in self._fields(op):
            message, arg, _ = SETTERS[name]
            ctx.call(message, **{arg: op.params[name]})


class SflowInterface(Descriptor):
    obj = "sflow-interface"
    api_modules = ("sflow",)
    uses = (Uses(("sflow_enable_disable",), SFLOW),)
    reads = (Dump("sflow_interfaces", ("sflow_interface_dump",), SFLOW,
                  args=(("hw_if_index", NONE_INDEX),)),)

    def follow_up(self, raw: RawDump, reading: Reading) -> list[tuple[str, dict[str, Any]]]:
        """The hw -> sw index map, for enabled interfaces only (a CLI round
        trip): no API message maps the two, and VPP 26.10's
        sflow_interface_details carry only the hw_if_index."""
        return [("cli_inband", {"cmd": HW_TABLE})] if raw.rows("sflow_interfaces") else []

    def take(self, raw: RawDump, requests: list[tuple[str, dict[str, Any]]],
             results: list[Any]) -> None:
        reply = results[0]
        if getattr(reply, "retval", 0) == 0:
            sw = {d["interface_name"]: d["sw_if_index"] for d in raw.rows("interfaces")}
            raw["hw_to_sw"] = {hw: sw[name]
                               for name, hw in parse_hw_table(reply.reply, sw).items()}

    def read(self, raw: RawDump, reading: Reading) -> None:
        # without the map, a PHY's hw index is taken to be its sw index (true
        # unless interfaces were deleted and re-created)
        hw_to_sw = raw.keyed("hw_to_sw")
        for d in raw.rows("sflow_interfaces"):
            sw = hw_to_sw.get(d["hw_if_index"], d["hw_if_index"])
            itf = reading.interface(sw)
            if itf is not None and itf.kind is InterfaceKind.PHY:
                reading.set(sw, sflow=True)

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, itf in ctx.having("sflow"):
            yield Node(f"{key}/sflow", self.obj, fd(name=itf.name), deps=(key, "sflow"),
                       owner=key)

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        off = " disable" if op.action == "delete" else ""
        return [f"sflow enable-disable {token(op.params['name'])}{off}"]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        # The field is called hw_if_index, but VPP's handler reads it as a
        # sw_if_index (sflow.c); only the dump reports real hw_if_indexes.
        ctx.call("sflow_enable_disable", enable_disable=op.action == "create",
                 hw_if_index=ctx.sw_if_index(op.params["name"]))


def parse_hw_table(text: str, names: Iterable[str]) -> dict[str, int]:
    """Interface name -> hw_if_index from `show hardware-interfaces` output.

    VPP prints each interface as "%-32s%=6d%=8s..." (name, index, link), then
    indented detail lines; a name of 32 characters or more runs into the index.
    Only rows naming a known interface are taken, so the header, detail lines
    and any log noise in between are ignored.
    """
    known = set(names)
    out: dict[str, int] = {}
    for line in text.splitlines():
        if not line or line[0].isspace():
            continue
        match = _HW_ROW.match(line)
        if match is None:
            continue
        head, index = match["head"], match["index"]
        if head in known:
            out[head] = int(index)
            continue
        # glued: "<long name><index>"; the known name decides where the index starts
        glued = head + index
        for cut in range(len(glued) - 1, 0, -1):
            if glued[cut:].isdigit() and glued[:cut] in known:
                out[glued[:cut]] = int(glued[cut:])
                break
    return out


_HW_ROW = re.compile(r"^(?P<head>\S*?)\s*(?P<index>\d+)\s+(?:up|down|slave)(?:\s|$)")
