"""Helpers to replay the reference VPP traces (../shared/vpp/traces) and compare replies.

A trace line is one API call with the real VPP's answer. `Comparator` checks a
simulator's answer field by field, ignoring only what the traces' README lists
as non-deterministic: random MACs (02:fe:... not given in the scenario), lcp
vif_index (a Linux ifindex), the auto-allocated bridge-domain id (bd_id ~0),
and link_speed / link_duplex.
"""

from __future__ import annotations

import enum
import ipaddress
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vppcfg.sim.protocol import Response

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
TRACES = SHARED / "vpp" / "traces"
NONE_INDEX = 0xFFFFFFFF

IGNORED_FIELDS = frozenset({"link_speed", "link_duplex", "vif_index"})
MAC_RE = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")
RANDOM_MAC_PREFIX = "02:fe:"

# Which plugin model answers a message (by name prefix); anything else is core.
PLUGIN_PREFIXES = {
    "bond": (
        "bond_",
        "sw_bond_",
        "sw_member_",
        "sw_interface_bond_",
        "sw_interface_slave_",
        "sw_interface_lacp_",
        "sw_interface_set_bond_",
    ),
    "tap": ("tap_", "sw_interface_tap_"),
    "vxlan": ("vxlan_",),
    "lcp": ("lcp_",),
    "sflow": ("sflow_",),
    "acl": ("acl_",),
}


def plugin_of(message: str) -> str | None:
    for plugin, prefixes in PLUGIN_PREFIXES.items():
        if message.startswith(prefixes):
            return plugin
    return None


@dataclass
class TraceCall:
    index: int
    call: str
    args: dict[str, Any]
    note: str = ""
    reply: dict[str, Any] | None = None
    replies: list[dict[str, Any]] | None = None
    error: str | None = None


@dataclass
class Scenario:
    name: str
    host_veths: list[str]
    calls: list[TraceCall] = field(default_factory=list)

    def plugins_changed(self) -> set[str]:
        """Plugins whose state the scenario changes (not just dumps)."""
        from vppcfg.sim.dataplane import is_mutating

        return {
            p for c in self.calls if (p := plugin_of(c.call)) is not None and is_mutating(c.call)
        }

    def given_macs(self) -> set[str]:
        """MACs the scenario passes in its arguments: those must come back exactly."""
        found: set[str] = set()

        def walk(value: Any) -> None:
            if isinstance(value, dict):
                for v in value.values():
                    walk(v)
            elif isinstance(value, list):
                for v in value:
                    walk(v)
            elif isinstance(value, str) and MAC_RE.match(value.lower()):
                found.add(value.lower())

        for call in self.calls:
            walk(call.args)
        return found


# Linux setup the recording made beside the veths (from the traces' README).
HOST_SETUP: dict[str, dict[str, list[str]]] = {
    "06-taps": {"netns": ["vppns6"], "bridges": ["vppbr6"]},
    "08-lcp": {"netns": ["vppns8"]},
}


def prepare_host(state: Any, scenario: Scenario) -> None:
    """Give the model's Linux side what the scenario's host had (when the plugin
    helpers that model Linux exist)."""
    try:
        from vppcfg.sim.plugins._util import linux
    except ImportError:
        return
    host = linux(state)
    for veth in scenario.host_veths:  # both ends of each veth pair exist in Linux
        host.add_netdev(veth)
        host.add_netdev(veth[:-1] + "b")
    setup = HOST_SETUP.get(scenario.name, {})
    for ns in setup.get("netns", []):
        host.add_namespace(ns)
    for bridge in setup.get("bridges", []):
        host.add_bridge(bridge)


def replay_model(scenario: Scenario) -> Any:
    """A fresh simulator set up like the recording host: no PHYs (the trace makes
    its ports), the scenario's veths, namespaces and bridges, a kernel without
    802.1q (the recorded VPP could not pair sub-interfaces), linux-cp's
    lcp-sync and lcp-auto-subint on, as in its startup.conf, and its linux_nl
    plugin loaded (an MTU synced to a host tap comes back as the hardware MTU)."""
    from vppcfg.sim.dataplane import SimDataplane
    from vppcfg.sim.plugins.lcp import pairs

    model = SimDataplane([], host_interfaces=scenario.host_veths, kernel_vlan=False,
                         linux_cp="lcp-sync lcp-auto-subint")
    pairs(model.state).linux_nl = True
    prepare_host(model.state, scenario)
    return model


def traces_available() -> bool:
    return (TRACES / "index.json").is_file()


def load_scenarios() -> list[Scenario]:
    index = json.loads((TRACES / "index.json").read_text(encoding="utf-8"))
    scenarios = []
    for entry in index["scenarios"]:
        scenario = Scenario(entry["scenario"], list(entry.get("host_veths", [])))
        lines = (TRACES / entry["file"]).read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            raw = json.loads(line)
            scenario.calls.append(
                TraceCall(
                    i,
                    raw["call"],
                    raw.get("args", {}),
                    raw.get("note", ""),
                    raw.get("reply"),
                    raw.get("replies"),
                    raw.get("error"),
                )
            )
        scenarios.append(scenario)
    return scenarios


def plain(value: Any) -> Any:
    """vpp_papi values (namedtuples, ipaddress objects, MACAddress, enums) to plain form."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, enum.Enum):
        return int(value.value)
    if isinstance(value, ipaddress.IPv4Address | ipaddress.IPv6Address):
        return str(value)
    if isinstance(value, ipaddress.IPv4Interface | ipaddress.IPv6Interface):
        return str(value)
    if isinstance(value, ipaddress.IPv4Network | ipaddress.IPv6Network):
        return str(value)
    if type(value).__name__ == "MACAddress":
        return str(value).lower()
    return value


class Comparator:
    """Compares simulator answers with one scenario's recorded ones."""

    def __init__(self, scenario: Scenario) -> None:
        self.macs = scenario.given_macs()
        self.bd_alias: dict[int, int] = {}

    def compare(self, call: TraceCall, response: Response) -> list[str]:
        """Differences between the recorded answer and the simulator's ([] = match)."""
        if call.error is not None:
            # The real VPP answered with another message's reply (the client timed out).
            default = f"{call.call}_reply"
            if response.reply_name and response.reply_name != default:
                return []
            return [f"expected a reply the client cannot match ({call.error})"]
        diffs: list[str] = []
        if call.reply is not None:
            if response.reply is None:
                return ["no reply"]
            self._learn_alias(call, response.reply)
            diffs += self._diff("reply", call.reply, response.reply)
        if call.replies is not None:
            got = response.details
            if len(got) != len(call.replies):
                diffs.append(f"{len(call.replies)} details expected, got {len(got)}")
            for i, (want, have) in enumerate(zip(call.replies, got, strict=False)):
                diffs += self._diff(f"details[{i}]", want, have)
        return diffs

    def _learn_alias(self, call: TraceCall, reply: dict[str, Any]) -> None:
        if call.args.get("bd_id") == NONE_INDEX and "bd_id" in reply and call.reply:
            self.bd_alias[call.reply.get("bd_id", NONE_INDEX)] = reply["bd_id"]

    def _diff(self, where: str, want: Any, have: Any, key: str = "") -> list[str]:
        if key in IGNORED_FIELDS:
            return []
        if isinstance(want, dict):
            if not isinstance(have, dict):
                return [f"{where}: expected a mapping, got {have!r}"]
            diffs = []
            for k, v in want.items():
                if k not in have:
                    if k not in IGNORED_FIELDS:
                        diffs.append(f"{where}.{k}: missing (expected {v!r})")
                    continue
                diffs += self._diff(f"{where}.{k}", v, have[k], k)
            return diffs
        if isinstance(want, list):
            if not isinstance(have, list | tuple) or len(have) != len(want):
                return [f"{where}: expected {want!r}, got {have!r}"]
            return [
                d
                for i, (w, h) in enumerate(zip(want, have, strict=True))
                for d in self._diff(f"{where}[{i}]", w, h, key)
            ]
        if key == "bd_id" and isinstance(want, int):
            want = self.bd_alias.get(want, want)
        if isinstance(want, str) and MAC_RE.match(want):
            return self._diff_mac(where, want, have)
        if want != have:
            return [f"{where}: expected {want!r}, got {have!r}"]
        return []

    def _diff_mac(self, where: str, want: str, have: Any) -> list[str]:
        have = str(have).lower()
        if want.startswith(RANDOM_MAC_PREFIX) and want not in self.macs:
            # generated by VPP: only its shape is deterministic
            if have.startswith(RANDOM_MAC_PREFIX) and MAC_RE.match(have):
                return []
            return [f"{where}: expected a generated 02:fe:.. MAC, got {have!r}"]
        return [] if want == have else [f"{where}: expected {want!r}, got {have!r}"]


@dataclass
class ReplayResult:
    scenario: str
    replayed: int = 0
    matched: int = 0
    skipped: int = 0
    mismatches: list[tuple[int, str, list[str]]] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.matched / self.replayed if self.replayed else 1.0
