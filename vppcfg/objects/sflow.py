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
    field_of,
    ikey,
    token,
)
from vppcfg.ops import Operation, VppContext

SETTERS = {
    "sampling_rate": ("sflow_sampling_rate_set", "sampling_N", "sampling-rate"),
    "polling_interval": ("sflow_polling_interval_set", "polling_S", "polling-interval"),
    "header_bytes": ("sflow_header_bytes_set", "header_B", "header-bytes"),
}


class SflowGlobal(Descriptor):
    """Always present on both sides: only ever updated."""

    obj = "sflow"

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

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for itf in ctx.interfaces():
            if itf.sflow:
                key = ikey(itf.name)
                yield Node(f"{key}/sflow", self.obj, fd(name=itf.name), deps=(key, "sflow"),
                           owner=key, holder=key)

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        off = " disable" if op.action == "delete" else ""
        return [f"sflow enable-disable {token(op.params['name'])}{off}"]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        hw_if_index = _hw_if_index(ctx, op.params["name"])
        ctx.call("sflow_enable_disable", enable_disable=op.action == "create",
                 hw_if_index=hw_if_index)


def _hw_if_index(ctx: VppContext, name: str) -> int:
    """sflow is keyed by hw_if_index: ask the context, else the interface dump."""
    lookup = getattr(ctx, "hw_if_index", None)
    if lookup is not None:
        return int(lookup(name))
    details = ctx.call("sw_interface_dump", sw_if_index=ctx.sw_if_index(name),
                       name_filter_valid=False, name_filter="")
    return int(field_of(next(iter(details)), "hw_if_index"))
