"""The Linux side of lcp pairs: each pair's host netdev has the admin state,
MTU and addresses of the VPP interface it pairs.

linux-cp makes the netdev with the interface's state and (a tap) its L3 MTU
or (a sub's VLAN) its Linux parent's MTU, and no addresses; only with
lcp-sync does it carry later changes (docs/user-guide.md, "The Linux side").
So these nodes come after everything VPP does to the same interface: what
linux-cp carried is then already right (the call changes nothing), and what
it could not carry is made right here, through netlink in the pair's netns
(vppcfg.linux), never through VPP.

Nodes exist only while the command reads the Linux side and owns it
(NodeContext.linux, the live LinuxSide): otherwise the plan is VPP's alone.
A desired node's values are the file's; a live one's are netlink's.
"""

from __future__ import annotations

import errno
from collections.abc import Iterable, Mapping
from typing import Any

from vppcfg.linux import LinuxError
from vppcfg.model import Dataplane, HostLink, Interface, LinuxSide
from vppcfg.objects.base import Descriptor, Node, NodeContext, RenderContext, comment_text, ikey
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext

SYNC_ALL = "lcp lcp-sync on"  # VPP CLI: linux-cp syncs every pair's state, MTU and addresses


def expected_state(itf: Interface, parent: Interface | None) -> str:
    """Linux refuses a VLAN up under a parent that is down (linux-cp forces it
    down too): a sub is up in Linux only with its parent."""
    up = itf.state == "up" and (parent is None or parent.state == "up")
    return "up" if up else "down"


def expected_mtu(itf: Interface, parent: Interface | None) -> int:
    """Linux clamps a VLAN's MTU to its parent's (as linux-cp's sync does)."""
    return min(itf.mtu, parent.mtu) if parent is not None else itf.mtu


def _host_netns(side: LinuxSide, itf: Interface) -> str:
    """Where the pair's netdev is: an existing pair's own netns (VPP keeps it
    there), else where VPP puts a new one (vppcfg names no netns)."""
    host = side.hosts.get(itf.name)
    if host is not None and host.name == itf.lcp:
        return host.netns
    return side.settings.default_netns


def _owned(ctx: NodeContext) -> LinuxSide | None:
    side = ctx.linux
    return side if side is not None and side.managed else None


def _link_value(name: str, host: str, netns: str, state: str, mtu: int) -> dict[str, Any]:
    return {"name": name, "host": host, "netns": netns, "state": state, "mtu": mtu}


def _wanted(dp: Dataplane, side: LinuxSide) -> Iterable[tuple[Interface, HostLink]]:
    """The host netdev each paired interface should have: from a live
    dataplane (a rollback's target) as it was, else from the file."""
    interfaces = dp.interfaces
    if dp.linux is not None:  # a live dataplane: its netdevs as they were
        for name, host in dp.linux.hosts.items():
            if name in interfaces and interfaces[name].lcp == host.name:
                yield interfaces[name], host
        return
    for itf in interfaces.values():
        if not itf.lcp:
            continue
        parent = interfaces.get(itf.parent) if itf.parent else None
        addresses = _addresses(itf, interfaces, side)
        yield itf, HostLink(itf.lcp, _host_netns(side, itf), expected_state(itf, parent),
                            expected_mtu(itf, parent), addresses)


def _paired(dp: Dataplane, ctx: NodeContext) -> Iterable[tuple[str, Interface, HostLink]]:
    """(node key, interface, its netdev) of each pair, when vppcfg owns the
    Linux side (else none: the plan is VPP's alone)."""
    side = _owned(ctx)
    if side is not None:
        for itf, host in _wanted(dp, side):
            yield ikey(itf.name), itf, host


def _addresses(itf: Interface, interfaces: Mapping[str, Interface],
               side: LinuxSide) -> tuple[str, ...]:
    """The netdev's addresses: the interface's own, or for an unnumbered one
    its lender's, as linux-cp shows it (lcp-sync-unnumbered, on by default);
    none when linux-cp is told not to."""
    if not itf.unnumbered:
        return itf.addresses
    lender = interfaces.get(itf.unnumbered)
    return lender.addresses if lender is not None and side.settings.sync_unnumbered else ()


class HostInterface(Descriptor):
    """A pair's host netdev: admin state and MTU."""

    obj = "linux"
    pipelined = False  # after VPP's calls are answered: linux-cp acts on them

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, itf, host in _paired(dp, ctx):
            deps = [f"{key}/lcp", f"{key}/mtu", f"{key}/state"]
            if itf.parent and dp.interfaces[itf.parent].lcp:
                deps.append(f"{ikey(itf.parent)}/linux")  # Linux: parent before VLAN
            yield Node(f"{key}/linux", self.obj,
                       _link_value(itf.name, host.name, host.netns, host.state, host.mtu),
                       tuple(deps), key, f"{key}/lcp")

    def read(self, raw: RawDump, reading: Reading) -> None:
        if "linux" in raw:  # read by vppcfg.linux.collect_linux
            reading.sections["linux"] = raw["linux"]

    def noop(self, op: Operation) -> bool:
        # the netdev goes with its pair (the lcp delete): nothing else removes it
        return op.action == "delete"

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        p = op.params
        return [_comment(p, f"{p['host']} mtu {p['mtu']} {p['state']}"), *_resync(rc)]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        if op.action == "delete":
            return
        p = op.params
        backend = _backend(ctx)
        backend.set_link(p["netns"], p["host"], mtu=p["mtu"])
        backend.set_link(p["netns"], p["host"], state=p["state"])


class HostAddress(Descriptor):
    """An address of a pair's host netdev (IPv6 link-local aside: the kernel's)."""

    obj = "linux-address"
    pipelined = False

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, itf, host in _paired(dp, ctx):
            # an unnumbered interface's are its lender's: after them, and after it borrows
            owner = ikey(itf.unnumbered) if itf.unnumbered else key
            extra = (f"{key}/unnumbered",) if itf.unnumbered else ()
            for prefix in host.addresses:
                yield Node(f"{key}/linux/address/{prefix}", self.obj,
                           {"name": itf.name, "host": host.name, "netns": host.netns,
                            "address": prefix},
                           (f"{key}/linux", f"{owner}/address/{prefix}", *extra), key,
                           f"{key}/lcp")

    def recreate_reason(self, old: Node, new: Node) -> str | None:
        return "the pair's host netdev changed"

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        p = op.params
        verb = "del" if op.action == "delete" else "add"
        return [_comment(p, f"{p['host']} address {verb} {p['address']}"), *_resync(rc)]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        p = op.params
        action = "del" if op.action == "delete" else "add"
        try:
            _backend(ctx).address(p["netns"], p["host"], action, p["address"])
        except LinuxError as err:
            # lcp-sync may have made it already, or the netdev went with its pair
            done = errno.EEXIST if action == "add" else errno.EADDRNOTAVAIL
            if err.errno not in (done, errno.ENODEV) or (action == "add" and
                                                         err.errno == errno.ENODEV):
                raise


def _comment(params: Any, change: str) -> str:
    netns = params["netns"] or "(VPP's netns)"
    return f"comment {{ {comment_text(f'linux netns {netns}: {change}')} }}"


def _resync(rc: RenderContext) -> list[str]:
    """With lcp-sync, linux-cp makes every pair right when told to sync them
    all (`lcp lcp-sync on`): written once, at the end of the plan (see
    RenderContext.trailer), so that a CLI file run by VPP gets the Linux side
    right too."""
    if rc.linux_sync:
        rc.trail(SYNC_ALL)
    return []


def _backend(ctx: VppContext) -> Any:
    access = getattr(getattr(ctx, "conn", None), "linux", None)
    if access is None:
        raise LinuxError(errno.ENOTCONN, "this apply does not reach the Linux side")
    return access.backend


def is_linux_step(op: Operation) -> bool:
    """Whether an operation is a Linux-side step (a netdev's delete is none:
    it goes with its pair)."""
    return op.obj == HostAddress.obj or (op.obj == HostInterface.obj and op.action != "delete")


def describe_step(op: Operation) -> str:
    """One Linux-side step in words (for reports and warnings)."""
    p = op.params
    where = f"{p['name']} (Linux {p['host']}, netns {p['netns'] or '-'})"
    if op.obj == HostAddress.obj:
        return f"{where}: {'remove' if op.action == 'delete' else 'add'} address {p['address']}"
    return f"{where}: mtu {p['mtu']}, {p['state']}"

