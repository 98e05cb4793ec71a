"""sFlow: the global sampler settings and per-PHY enablement."""

from __future__ import annotations

from collections.abc import Iterable

from vppcfg.model import Dataplane
from vppcfg.objects.base import (
    Descriptor,
    Node,
    NodeContext,
    RenderContext,
    fd,
    token,
)
from vppcfg.objects.needs import SFLOW, Uses
from vppcfg.ops import Operation, VppContext

SETTERS = {
    "sampling_rate": ("sflow_sampling_rate_set", "sampling_N", "sampling-rate"),
    "polling_interval": ("sflow_polling_interval_set", "polling_S", "polling-interval"),
    "header_bytes": ("sflow_header_bytes_set", "header_B", "header-bytes"),
}


class SflowGlobal(Descriptor):
    """Always present on both sides: only ever updated."""

    obj = "sflow"
    uses = tuple(Uses((setter[0],), SFLOW) for setter in SETTERS.values())
    reads = (Uses(("sflow_sampling_rate_get",), SFLOW),
             Uses(("sflow_polling_interval_get",), SFLOW),
             Uses(("sflow_header_bytes_get",), SFLOW))

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
    uses = (Uses(("sflow_enable_disable",), SFLOW),)
    reads = (Uses(("sflow_interface_dump",), SFLOW),)

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, itf in ctx.keyed:
            if itf.sflow:
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
