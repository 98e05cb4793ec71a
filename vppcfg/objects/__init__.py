"""Object types: one descriptor per VPP object (see base.Descriptor), and the
two entry points the commands use: render_cli (plan) and execute (apply)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from vppcfg.objects import (
    acl,
    address,
    bond,
    bridge,
    interface,
    l2xc,
    lcp,
    linux,
    mpls,
    sflow,
    tap,
    vxlan,
)
from vppcfg.objects.base import Descriptor, RenderContext, RenderError, comment_text
from vppcfg.ops import CreateRun, Operation, VppContext

# Registry order is only the tie-break among operations that are ready at the
# same time (it groups the output; deletes go in its reverse); correctness
# comes from dependencies. State comes before lcp and addresses: linux-cp copies
# the state to a pair's Linux side only when it makes the pair, and VPP adds
# addresses to an up interface in half the time (docs/planner.md).
DESCRIPTORS: tuple[Descriptor, ...] = (
    interface.Phy(),
    interface.Loopback(),
    bond.Bond(),
    bond.BondInterface(),
    vxlan.Vxlan(),
    vxlan.VxlanInterface(),
    tap.Tap(),
    tap.TapInterface(),
    interface.SubInterface(),
    bond.BondMember(),
    interface.Mac(),
    interface.Mtu(),
    interface.State(),
    bridge.BridgeDomain(),
    bridge.BridgeBvi(),
    bridge.BridgeMember(),
    l2xc.L2xc(),
    lcp.Lcp(),
    address.Address(),
    address.Unnumbered(),
    mpls.Mpls(),
    sflow.SflowGlobal(),
    sflow.SflowInterface(),
    acl.Acl(),
    acl.InterfaceAcls(),
    # last: the Linux side follows everything VPP does (linux-cp acts on it)
    linux.HostInterface(),
    linux.HostAddress(),
)
_BY_OBJ = {desc.obj: desc for desc in DESCRIPTORS}

__all__ = ["DESCRIPTORS", "RenderError", "descriptor", "execute", "render_cli",
           "render_cli_chunks"]


def descriptor(obj: str) -> Descriptor:
    try:
        return _BY_OBJ[obj]
    except KeyError:
        raise ValueError(f"unknown object type {obj!r}") from None


def render_op(op: Operation, rc: RenderContext | None = None) -> list[str]:
    """The VPP CLI lines of one operation."""
    return descriptor(op.obj).render(op, rc if rc is not None else RenderContext())


def render_cli(ops: Iterable[Operation], acl_indexes: Mapping[str, int] | None = None,
               deferred: list[str] | None = None, linux_sync: bool = False) -> str:
    """The plan as VPP CLI: one command per line, grouped under comments.

    ``acl_indexes`` maps the names of ACLs already in VPP to their index (the
    CLI addresses ACLs by index); a binding of a new ACL whose index cannot be
    known is left to the next plan (see RenderContext) and its key added to
    ``deferred``.
    """
    return "".join(render_cli_chunks(ops, acl_indexes, deferred, linux_sync=linux_sync))


CHUNK_LINES = 4096  # lines per piece of render_cli_chunks' text


def render_cli_chunks(ops: Iterable[Operation | CreateRun],
                      acl_indexes: Mapping[str, int] | None = None,
                      deferred: list[str] | None = None,
                      counts: dict[str, int] | None = None,
                      linux_sync: bool = False) -> list[str]:
    """render_cli's text in pieces of about CHUNK_LINES lines, which join to it:
    a large plan's lines are joined as they come instead of all held at once,
    and ``ops`` may be a stream (each operation is let go once rendered),
    with runs of creates (planner.plan_runs).
    ``counts`` (by action) gets the number of operations rendered.
    ``linux_sync``: linux-cp runs with lcp-sync (see objects.linux)."""
    rc = RenderContext(dict(acl_indexes or {}), linux_sync)
    chunks: list[str] = []
    lines: list[str] = []
    action = obj = ""  # the group of operations being written
    desc: Descriptor  # the group's (set by its first)
    seen = 0  # operations of the group (counted once per group)
    for op in ops:
        if op.obj != obj or op.action != action:
            if counts is not None and seen:
                counts[action] += seen
            seen = 0
            action, obj = op.action, op.obj
            desc = descriptor(obj)  # the same for the whole group
            render = desc.render
            lines.append(f"comment {{ {action} {obj} }}")
        if type(op) is CreateRun:
            seen += len(op.sources)
            lines += desc.created_run(op.sources)
        else:
            seen += 1
            if op.reason and action == "delete":  # a recreate's create repeats it
                lines.append(f"comment {{ {comment_text(op.key + ': ' + op.reason)} }}")
            lines += render(op, rc)
        if len(lines) >= CHUNK_LINES:
            chunks.append("\n".join(lines) + "\n")
            lines = []
    if rc.trailer:
        lines += ["comment { linux-cp: sync every pair's Linux side }", *rc.trailer]
    if lines:
        chunks.append("\n".join(lines) + "\n")
    if counts is not None and seen:
        counts[action] += seen
    if deferred is not None:
        deferred.extend(rc.deferred)
    return chunks


def execute(op: Operation, ctx: VppContext) -> None:
    """Carry out one operation through the VPP binary API."""
    descriptor(op.obj).execute(op, ctx)
