"""Taps: VPP has no setter for the Linux side, so any change recreates the tap."""

from __future__ import annotations

from collections.abc import Iterable

from vppcfg.model import Dataplane, FrozenDict, InterfaceKind, TapHost
from vppcfg.model import Tap as TapModel
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
from vppcfg.objects.interface import tag_cli, tag_created
from vppcfg.objects.needs import CREATE, DELETE, EVERY_INTERFACE, TAG, TAP, Dump, Uses, pick
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext
from vppcfg.vpp_numbers import OWNER_TAG, ZERO_MAC

# newest first: the executor sends the first one this VPP offers
CREATE_TAP = Uses(("tap_create_v3", "tap_create_v2"), TAP, CREATE)

class Tap(Descriptor):
    obj = "tap"
    api_modules = ("tapv2",)
    uses = (CREATE_TAP, TAG,
            Uses(("tap_delete_v2",), TAP, DELETE))
    reads = (Dump("taps", ("sw_interface_tap_v2_dump",), TAP, args=EVERY_INTERFACE),)
    optional = ("host_mac",)  # VPP picks one when the config does not

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for tap in dp.taps.values():
            host = tap.host
            value = fd(name=tap.name, instance=tap.instance, host_name=host.name,
                       host_mac=host.mac.lower() if host.mac else None, host_mtu=host.mtu,
                       host_bridge=host.bridge, host_namespace=host.namespace,
                       rx_ring_size=tap.rx_ring_size, tx_ring_size=tap.tx_ring_size)
            yield Node(f"taps/{tap.name}", self.obj, value, owner=ikey(tap.name))

    def recreate_reason(self, old: Node, new: Node) -> str | None:
        fields = sorted(k for k, v in new.value.items() if old.value.get(k) != v)
        return f"{', '.join(fields)} changed: tap has no setter, it is recreated"

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        p = op.params
        if op.action == "delete":
            return [f"delete tap {token(p['name'])}"]
        words = [f"create tap id {int(p['instance'])} host-if-name {token(p['host_name'])}"]
        if p["host_namespace"]:
            words.append(f"host-ns {token(p['host_namespace'])}")
        if p["host_bridge"]:
            words.append(f"host-bridge {token(p['host_bridge'])}")
        if p["host_mac"]:
            words.append(f"host-mac-addr {token(p['host_mac'])}")
        words.append(f"host-mtu-size {int(p['host_mtu'])}")
        words.append(f"rx-ring-size {int(p['rx_ring_size'])} tx-ring-size {int(p['tx_ring_size'])}")
        return [" ".join(words), tag_cli(p["name"])]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        p = op.params
        if op.action == "delete":
            ctx.call("tap_delete_v2", sw_if_index=ctx.sw_if_index(p["name"]))
            ctx.forget(p["name"])
            return
        args = dict(
            id=p["instance"], use_random_mac=True, num_rx_queues=1,
            tx_ring_sz=p["tx_ring_size"], rx_ring_sz=p["rx_ring_size"],
            host_mtu_set=True, host_mtu_size=p["host_mtu"],
            host_mac_addr_set=bool(p["host_mac"]),
            host_mac_addr=p["host_mac"] or ZERO_MAC,
            host_if_name_set=True, host_if_name=p["host_name"],
            host_namespace_set=bool(p["host_namespace"]), host_namespace=p["host_namespace"] or "",
            host_bridge_set=bool(p["host_bridge"]), host_bridge=p["host_bridge"] or "",
            tap_flags=0, tag=OWNER_TAG,
        )
        if pick(ctx, CREATE_TAP) == "tap_create_v3":
            reply = ctx.call("tap_create_v3", num_tx_queues=1, **args)
        else:
            reply = ctx.call("tap_create_v2", **args)
        tag_created(ctx, p["name"], field_of(reply, "sw_if_index"))


    def mark(self, raw: RawDump, reading: Reading) -> None:
        reading.mark(raw.rows("taps"), InterfaceKind.TAP)

    def read(self, raw: RawDump, reading: Reading) -> None:
        taps: dict[str, TapModel] = {}
        for t, itf in reading.modelled(raw.rows("taps")):
            if itf.kind is not InterfaceKind.TAP:
                continue
            host = TapHost(
                name=t["host_if_name"],
                mac=None if t["host_mac_addr"] == ZERO_MAC else t["host_mac_addr"],
                mtu=t["host_mtu_size"] or 1500,  # 0: not set, Linux default
                bridge=t["host_bridge"] or None,
                namespace=t["host_namespace"] or None,
            )
            taps[itf.name] = TapModel(name=itf.name, instance=t["id"], host=host,
                                      rx_ring_size=t["rx_ring_sz"], tx_ring_size=t["tx_ring_sz"])
            if reading.foreign_interface(itf.name):
                reading.foreign.add(f"taps/{itf.name}")
        reading.sections["taps"] = FrozenDict(sorted(taps.items()))

class TapInterface(Descriptor):
    obj = "tap-interface"
    virtual = True

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for tap in dp.taps.values():
            key = ikey(tap.name)
            yield Node(key, self.obj, fd(kind="tap"), deps=(f"taps/{tap.name}",), owner=key)
