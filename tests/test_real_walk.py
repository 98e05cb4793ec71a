"""Convergence on the real VPP: a seeded random walk through the whole language.

For every step of the walk (tests/walk.py) the same config goes three ways:
1. `apply` through the binary API on a real VPP: it must succeed, plan to
   nothing afterwards, and its `dump` must pass `check` and plan to nothing;
2. the plan's CLI text through `vppctl exec` on a second real VPP (same
   history): no CLI error, the plan is empty afterwards, and the full state it
   reports (tests.walk.snapshot: every field of every reply vppcfg reads, MACs,
   lcp host taps and tag-rewrite included) equals the first VPP's;
3. `apply` on the simulator with the same PHYs (differential): the same
   outcome, the same dump and the same full state as the real VPP.
Taps go into Linux namespaces of their own and onto a Linux bridge; each VPP
has its own namespaces (names are global), renamed alike for the comparison.

Each seed starts fresh VPPs and a fresh simulator with one of linux-cp's three
settings, drawn from the seed (seed % 3: VPP's defaults, lcp-sync, or lcp-sync +
lcp-auto-subint + a default netns, as production routers run it; the test id
names it). The API applies on the real VPP and on the simulator manage the Linux
side of the lcp pairs (`--linux-side manage`), and after every step each pair's
host netdev (admin state, MTU, addresses, IPv6 link-local aside) is the same in
the real VPP's Linux (netlink, in the pair's netns: VPP's own when none is set)
and in the simulator's (its Linux socket), and is what the file says (an
unnumbered pair's addresses aside: linux-cp copies its lender's). The CLI VPP
runs the same setting; with lcp-sync its plan reads the Linux side too, so the
CLI text ends with `lcp lcp-sync on`, which must run and give every pair the
API VPP's state and MTU (addresses: see lender_address); without lcp-sync the
CLI path stays VPP-only (a CLI cannot reach Linux).

It runs on each real VPP release (VPPCFG_REAL_VPP). A failure names the seed
and step; rerun one seed with VPPCFG_WALK_SEEDS=7 (and VPPCFG_WALK_STEPS=N): a
seed starts on fresh VPPs, so that reproduces it exactly.
CI runs 4 seeds x 50 steps; `make test-walk-nightly` runs more
(VPPCFG_WALK_SEEDS=1-40 style ranges are accepted).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import ExitStack, closing
from dataclasses import replace
from typing import Any

import pytest

from tests.apply_models import run_cli_plan
from tests.real import Netns
from tests.walk import MacNames, Step, snapshot, snapshot_differences, walk
from vppcfg import config
from vppcfg.apply import apply_config, format_outcome
from vppcfg.commands.dump import render
from vppcfg.linux import LinuxAccess, open_access
from vppcfg.linux.netlink import Netlink
from vppcfg.linux.simsocket import SimSocket
from vppcfg.model import Dataplane
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection

pytestmark = pytest.mark.real


def seeds(spec: str) -> list[int]:
    """"1,2,3" or "1-40" (or both: "1-10,99")."""
    out: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        out += range(int(first), int(last or first) + 1)
    return out


SEEDS = seeds(os.environ.get("VPPCFG_WALK_SEEDS", "1,2,3,4"))
STEPS = int(os.environ.get("VPPCFG_WALK_STEPS", "50"))
TAP_BRIDGE = "tbr0"


def where(seed: int, step: Step) -> str:
    return f"seed {seed} step {step.n} (rerun: VPPCFG_WALK_SEEDS={seed})\n--- config:\n{step.text}"


def check_dump(live: Dataplane, label: str) -> None:
    """The dump is a valid config that plans to nothing against its VPP."""
    text = render(live)
    try:
        dumped = config.loads(text, filename="dump.yaml")
    except config.ConfigError as err:
        raise AssertionError(f"{label}\ndump refused by check:\n{err}\n--- dump:\n{text}") from err
    assert plan(dumped, live) == [], f"{label}\ndump does not plan to nothing:\n{text}"


def lender_address(op: Any) -> bool:
    """A Linux address the printed CLI cannot remove: `lcp lcp-sync on` adds a
    pair's addresses but removes none (vppcfg plan warns so), e.g. a lender's
    that linux-cp copied while the interface was unnumbered. Only netlink
    removes it (`vppcfg apply`, or a later plan's)."""
    return bool(op.obj == "linux-address" and op.action == "delete")


def cli_apply(vpp: Any, conn: Any, desired: Dataplane, label: str) -> None:
    """The plan's CLI text through `vppctl exec` (twice when it creates ACLs)."""
    try:
        run_cli_plan(conn, desired, vpp.exec_text, lender_address)
    except (AssertionError, RuntimeError) as err:
        raise AssertionError(f"{err}\n{label}") from err


def comparable(dp: Dataplane) -> Any:
    """What two VPPs given the same changes must agree on (MACs VPP draws may not)."""
    itfs = {k: replace(v, mac=None) for k, v in dp.interfaces.items()
            if not k.startswith("tap4")}
    bonds = {k: replace(v, mac=None) for k, v in dp.bonds.items()}
    taps = {k: replace(v, host=replace(v.host, mac=None)) for k, v in dp.taps.items()}
    return (itfs, bonds, dict(dp.bridge_domains), dict(dp.vxlan_tunnels), taps,
            dict(dp.acls), dp.sflow)


def differences(sim: Any, real: Any) -> str:
    """Field by field, what the simulator has (-) and the real VPP has (+)."""
    out = []
    for part_sim, part_real in zip(sim, real, strict=True):
        if not isinstance(part_sim, dict):
            if part_sim != part_real:
                out.append(f"- {part_sim}\n+ {part_real}")
            continue
        for key in sorted(part_sim.keys() | part_real.keys()):
            a, b = part_sim.get(key), part_real.get(key)
            if a == b:
                continue
            if a is None or b is None or not hasattr(a, "__dataclass_fields__"):
                out.append(f"{key}: sim {a} real {b}")
                continue
            fields = [f for f in a.__dataclass_fields__ if getattr(a, f) != getattr(b, f)]
            out.extend(f"{key}.{f}: sim {getattr(a, f)!r} real {getattr(b, f)!r}"
                       for f in fields)
    return "\n".join(out)


def tap_namespaces(stack: ExitStack, vpp: Any) -> list[str]:
    """Two namespaces for this VPP's taps, and Linux bridge tbr0 wherever a tap's
    host side can land (in them and in the VPP's own namespace)."""
    made = []
    for n in range(2):
        made.append(Netns(f"{vpp.netns.name}-t{n}"))
        stack.callback(made[-1].close)
    for ns in (vpp.netns, *made):
        ns.run(["ip", "link", "add", TAP_BRIDGE, "type", "bridge"])
    return [ns.name for ns in made]


# linux-cp's settings a seed draws (seed % 3): VPP's defaults, lcp-sync, and
# production's (the netns is made per run: names are global)
LINUX_CP = ("", "lcp-sync", "lcp-sync lcp-auto-subint default netns {netns}")
LINUX_CP_NAMES = ("defaults", "lcp-sync", "production")


def linux_cp_of(seed: int) -> int:
    """The linux-cp setting a seed runs with (an index into LINUX_CP)."""
    return seed % len(LINUX_CP)


class VppNetnsNetlink(Netlink):
    """netlink from the root netns, where pairs without a netns are in the real
    VPP's own netns (``own``): "" is read and written there."""

    def __init__(self, own: str) -> None:
        super().__init__()
        self.own = own

    def _socket(self, netns: str) -> Any:
        return super()._socket(netns or self.own)

    def _reader(self, netns: str) -> Any:  # the dumps' socket
        return super()._reader(netns or self.own)


def real_linux(vpp: Any, managed: bool = True) -> LinuxAccess:
    """The Linux side of a real VPP run in its own netns, as vppcfg reaches it."""
    own = vpp.netns.name
    return LinuxAccess(lambda: VppNetnsNetlink(own), managed)


@pytest.fixture
def sim_like(vpp_sim_factory: Any) -> Iterator[Any]:
    """A simulator whose PHYs carry the real VPP's names and MACs, with the same
    Linux namespaces and bridge, linux-cp's settings and a Linux socket."""
    from vppcfg.sim.dataplane import SimDataplane
    from vppcfg.sim.inventory import Phy
    from vppcfg.sim.linux_server import LinuxServer
    from vppcfg.sim.plugins._util import linux

    servers: list[Any] = []

    def make(live: Dataplane, namespaces: list[str], linux_cp: str) -> Any:
        phys = [Phy(name, itf.mac or "02:00:00:00:00:01", 9000, "af-packet")
                for name, itf in live.interfaces.items() if name.startswith("host-")]
        # vpp-real's shim gives lcp on sub-interfaces a Linux device, as a
        # kernel with 802.1q would: the simulator's default
        model = SimDataplane(phys, linux_cp=linux_cp)
        host = linux(model.state)
        for ns in ("", *namespaces):
            host.add_namespace(ns)
            host.add_bridge(TAP_BRIDGE, ns)
        handle = vpp_sim_factory(handler=model)
        servers.append(LinuxServer(host, handle.socket + ".linux", handle.server.lock).start())
        return handle
    yield make
    for server in servers:
        server.stop()


# A pair's host netdev as compared: (state, MTU, addresses without IPv6 link-local)
Host = tuple[str, int, tuple[str, ...]]


def expected_hosts(desired: Dataplane) -> dict[str, tuple[str, int, tuple[str, ...] | None]]:
    """Each lcp host netdev as the file says (Linux's rules: a VLAN is up only
    with its parent and no larger than it). An unnumbered interface's addresses
    (None) are not the file's to say: linux-cp gives it its lender's."""
    wanted: dict[str, tuple[str, int, tuple[str, ...] | None]] = {}
    for itf in desired.interfaces.values():
        if not itf.lcp:
            continue
        parent = desired.interfaces[itf.parent] if itf.parent else None
        up = itf.state == "up" and (parent is None or parent.state == "up")
        mtu = min(itf.mtu, parent.mtu) if parent is not None else itf.mtu
        addresses = None if itf.unnumbered else tuple(sorted(itf.addresses))
        wanted[itf.lcp] = ("up" if up else "down", mtu, addresses)
    return wanted


def linux_hosts(backend: Any, netns: str, names: set[str]) -> dict[str, Host]:
    """The netdevs ``names`` of ``netns`` as ``backend`` (a LinuxBackend) reads them."""
    return {link.name: (link.state, link.mtu, tuple(sorted(link.addresses)))
            for link in backend.links(netns) if link.name in names}


def same_linux(real: dict[str, Host], sim: dict[str, Host],
               wanted: dict[str, tuple[str, int, tuple[str, ...] | None]], label: str) -> None:
    """The real VPP's Linux side and the simulator's are the same, and the file's."""
    diff = [f"{name}: sim {sim.get(name)} real {real.get(name)}"
            for name in sorted(real.keys() | sim.keys() | wanted.keys())
            if sim.get(name) != real.get(name)]
    assert not diff, "the Linux sides of simulator and real VPP differ:\n" + "\n".join(diff) \
        + f"\n{label}"
    wrong = [f"{name}: file {want} Linux {real.get(name)}" for name, want in sorted(wanted.items())
             if name not in real or real[name][:2] != want[:2]
             or (want[2] is not None and real[name][2] != want[2])]
    assert not wrong, "the Linux side is not the file's:\n" + "\n".join(wrong) + f"\n{label}"


# `lcp lcp-sync on` (which ends the CLI text with lcp-sync) writes each pair's
# synced MTU back to its host tap in VPP; the API path reaches Linux through
# netlink instead and leaves the tap's as it was. Neither is vppcfg's to say.
HOST_TAP_MTU = re.compile(r"^interfaces\.lcp-host-[^:]*\.mtu: ")


def same_state(a: dict[str, Any], b: dict[str, Any], labels: tuple[str, str],
               label: str, host_tap_mtu: bool = True) -> None:
    diff = [line for line in snapshot_differences(a, b, labels)
            if host_tap_mtu or not HOST_TAP_MTU.match(line)]
    assert not diff, f"{labels[0]} and {labels[1]} differ:\n" + "\n".join(diff) + f"\n{label}"


PHYS = ["host-ge0", "host-ge1", "host-hu0", "host-hu1"]


@pytest.mark.parametrize("seed", SEEDS,
                         ids=lambda seed: f"seed{seed}-{LINUX_CP_NAMES[linux_cp_of(seed)]}")
def test_random_walk_converges_on_real_vpp(vpp_real_factory: Any, sim_like: Any,
                                           monkeypatch: Any, seed: int) -> None:
    with ExitStack() as stack:
        setting = linux_cp_of(seed)
        # each VPP's default netns, made here (one the runner made inside VPP's
        # netns would not be seen from outside it)
        lcp_ns = [stack.enter_context(closing(Netns())).name for _ in range(2)] \
            if "netns" in LINUX_CP[setting] else ["", ""]
        monkeypatch.setenv("VPP_REAL_LINUX_CP", LINUX_CP[setting].format(netns=lcp_ns[0]))
        api_vpp = vpp_real_factory()
        monkeypatch.setenv("VPP_REAL_LINUX_CP", LINUX_CP[setting].format(netns=lcp_ns[1]))
        cli_vpp = vpp_real_factory()
        assert api_vpp.phy_names == PHYS
        api_ns, cli_ns = tap_namespaces(stack, api_vpp), tap_namespaces(stack, cli_vpp)
        # the CLI VPP's names, compared as the API VPP's
        as_api = dict(zip([*cli_ns, lcp_ns[1]], [*api_ns, lcp_ns[0]], strict=True))
        real = stack.enter_context(VppConnection.open(api_vpp.socket, api_vpp.api_dir))
        cli = stack.enter_context(VppConnection.open(cli_vpp.socket, cli_vpp.api_dir))
        sim_vpp = sim_like(real.dump(), api_ns, LINUX_CP[setting].format(netns=lcp_ns[0]))
        sim = stack.enter_context(VppConnection.open(sim_vpp.socket, sim_vpp.api_dir))
        real.linux = real_linux(api_vpp)
        sim.linux = open_access(sim_vpp.socket, None, managed=True)
        lcp_sync = "lcp-sync" in LINUX_CP[setting]
        if lcp_sync:  # the CLI text ends with `lcp lcp-sync on`, which makes Linux right
            cli.linux = real_linux(cli_vpp)
        for access in (real.linux, sim.linux, cli.linux):
            if access is not None:
                stack.callback(access.close)
        # the comparison reads through connections of its own
        real_reader = stack.enter_context(closing(VppNetnsNetlink(api_vpp.netns.name)))
        cli_reader = stack.enter_context(closing(VppNetnsNetlink(cli_vpp.netns.name)))
        sim_reader = stack.enter_context(closing(SimSocket(sim_vpp.socket + ".linux")))
        macs = {"api": MacNames.of_phys(real), "cli": MacNames.of_phys(cli),
                "sim": MacNames.of_phys(sim)}
        stats: dict[str, Any] = {}
        for step in walk(seed, PHYS, STEPS, stats, api_ns):
            label = where(seed, step)
            for names in macs.values():
                names.learn(step.desired)
            outcome = apply_config(real, step.desired)
            assert outcome.ok, f"{format_outcome(outcome)}\n{label}"
            live = real.dump()
            assert plan(step.desired, live) == [], label
            check_dump(live, label)
            api_state = snapshot(real, macs["api"])
            text = step.text
            for mine, theirs in zip(api_ns, cli_ns, strict=True):
                text = text.replace(mine, theirs)
            cli_apply(cli_vpp, cli, config.loads(text), label)
            same_state(api_state, snapshot(cli, macs["cli"], as_api), ("api", "cli"), label,
                       host_tap_mtu=not lcp_sync)
            sim_outcome = apply_config(sim, step.desired)
            assert sim_outcome.ok, f"simulator: {format_outcome(sim_outcome)}\n{label}"
            diff = differences(comparable(sim.dump()), comparable(live))
            assert not diff, f"simulator and real VPP differ:\n{diff}\n{label}"
            same_state(snapshot(sim, macs["sim"]), api_state, ("sim", "real"), label)
            wanted = expected_hosts(step.desired)
            real_hosts = linux_hosts(real_reader, lcp_ns[0], set(wanted))
            same_linux(real_hosts, linux_hosts(sim_reader, lcp_ns[0], set(wanted)), wanted,
                       label)
            if lcp_sync:  # state and MTU (addresses: see lender_address)
                cli_hosts = linux_hosts(cli_reader, lcp_ns[1], set(wanted))
                mine = {name: host[:2] for name, host in cli_hosts.items()}
                theirs = {name: host[:2] for name, host in real_hosts.items()}
                assert mine == theirs, \
                    f"the CLI VPP's Linux side:\n- {mine}\n+ {theirs}\n{label}"
        assert stats["valid"] == STEPS
