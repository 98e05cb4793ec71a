"""MPLS input on an interface (needs the default MPLS table, created on demand)."""

from __future__ import annotations

from collections.abc import Iterable

from vppcfg.model import Dataplane
from vppcfg.objects.base import Descriptor, Node, NodeContext, RenderContext, fd, token
from vppcfg.objects.needs import CREATE, EVERY_INTERFACE, Dump, Uses
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext
from vppcfg.vpp_numbers import NO_SUCH_FIB


class Mpls(Descriptor):
    obj = "mpls"
    api_modules = ("mpls",)
    uses = (Uses(("mpls_table_add_del",), actions=CREATE),
            Uses(("sw_interface_set_mpls_enable",)))
    reads = (Dump("mpls", ("mpls_interface_dump",), args=EVERY_INTERFACE),)
    pipelined = False  # execute() retries after NO_SUCH_FIB

    def read(self, raw: RawDump, reading: Reading) -> None:
        for m in raw.rows("mpls"):
            reading.set(m["sw_if_index"], mpls=True)

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, itf in ctx.having("mpls"):
            # linux-cp copies MPLS to the pair's host tap; deleting the pair while
            # MPLS is on leaves it enabled on the tap's freed index, which the
            # next interface to get that index inherits. So MPLS goes off first.
            deps = (key, f"{key}/lcp") if itf.lcp else (key,)
            yield Node(f"{key}/mpls", self.obj, fd(name=itf.name), deps=deps, owner=key)

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        name = token(op.params["name"])
        if op.action == "delete":
            return [f"set interface mpls {name} disable"]
        return [*rc.once("mpls table add 0"), f"set interface mpls {name} enable"]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        index = ctx.sw_if_index(op.params["name"])
        enable = op.action == "create"
        try:
            ctx.call("sw_interface_set_mpls_enable", sw_if_index=index, enable=enable)
        except Exception as err:  # VPP refuses until the default MPLS table exists
            if not enable or getattr(err, "retval", None) != NO_SUCH_FIB:
                raise
            ctx.call("mpls_table_add_del", mt_is_add=True,
                     mt_table={"mt_table_id": 0, "mt_name": ""})
            ctx.call("sw_interface_set_mpls_enable", sw_if_index=index, enable=True)
