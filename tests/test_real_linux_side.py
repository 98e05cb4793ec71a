"""The Linux side of lcp pairs on the real VPP, with linux-cp as VPP runs it by
default and as production routers run it (lcp-sync, lcp-auto-subint and a
default netns): after every apply (`--linux-side manage`), each pair's netdev
has the file's admin state, MTU and addresses, and the next plan is empty.

The steps are the issue's: a routed file, a new lcp'd sub (auto-subint pairs
it itself), MTU changes, an lcp added to an addressed sub, a renamed lcp, and
a sub, a pair and a pair's netdev deleted behind vppcfg's back. vppcfg runs inside VPP's netns
(VPP's own netns is where pairs without a netns live, as on a router)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from vppcfg import config

pytestmark = pytest.mark.real

BASE = {
    "host-ge0": {"mtu": 9000, "lcp": "e0", "addresses": ["192.0.2.1/24", "2001:db8::1/64"],
                 "sub-interfaces": {
                     100: {"mtu": 1500, "lcp": "e0.100", "addresses": ["10.0.100.1/24"]},
                     200: {"mtu": 2000, "lcp": "e0.200"},
                     300: {"mtu": 1500, "addresses": ["10.0.3.1/24"]},
                     400: {"mtu": 1500, "lcp": "e0.400", "state": "down"}}},
    "host-ge1": {"mtu": 1500, "lcp": "e1", "addresses": ["10.1.0.1/30"]},
    "host-hu0": {"mtu": 9000},
    "BondEthernet0": {"mtu": 9000, "lcp": "be0", "addresses": ["10.2.0.1/30"],
                      "sub-interfaces": {10: {"lcp": "be0.10", "addresses": ["10.2.10.1/24"]}}},
}
BONDS = {"BondEthernet0": {"interfaces": ["host-hu0"], "mode": "active-backup"}}
LOOPBACKS = {"loop0": {"lcp": "lo0", "addresses": ["10.255.0.1/32"]}}


def _steps() -> list[tuple[str, dict[str, Any]]]:
    import copy

    steps = [("routed", copy.deepcopy(BASE))]
    new_sub = copy.deepcopy(steps[-1][1])
    new_sub["host-ge0"]["sub-interfaces"][500] = {"lcp": "e0.500", "mtu": 1500,
                                                  "addresses": ["10.0.5.1/24"]}
    new_sub["host-ge0"]["sub-interfaces"][600] = {"mtu": 1400}
    steps.append(("new lcp'd sub", new_sub))
    mtus = copy.deepcopy(new_sub)
    mtus["host-ge0"]["sub-interfaces"][100]["mtu"] = 1400
    mtus["host-ge1"]["mtu"] = 9000
    steps.append(("MTU changes", mtus))
    added = copy.deepcopy(mtus)
    added["host-ge0"]["sub-interfaces"][300]["lcp"] = "e0.300"
    steps.append(("lcp added to an addressed sub", added))
    renamed = copy.deepcopy(added)
    renamed["host-ge0"]["sub-interfaces"][200]["lcp"] = "x200"
    steps.append(("renamed lcp", renamed))
    return steps


def _yaml(interfaces: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump({"bondethernets": BONDS, "interfaces": interfaces,
                           "loopbacks": LOOPBACKS})


def _expected(text: str) -> dict[str, tuple[str, int, tuple[str, ...]]]:
    """host netdev -> (state, MTU, addresses) as the file says: a VLAN is up
    only with its parent and no larger than it (Linux's rules)."""
    dp = config.loads(text)
    wanted = {}
    for itf in dp.interfaces.values():
        if not itf.lcp:
            continue
        parent = dp.interfaces[itf.parent] if itf.parent else None
        up = itf.state == "up" and (parent is None or parent.state == "up")
        mtu = min(itf.mtu, parent.mtu) if parent is not None else itf.mtu
        wanted[itf.lcp] = ("up" if up else "down", mtu, tuple(sorted(itf.addresses)))
    return wanted


def _linux(vpp: Any, netns: str, names: set[str]) -> dict[str, tuple[str, int, tuple[str, ...]]]:
    import ipaddress

    out = json.loads(vpp.netns.run(["ip", "-n", netns, "-j", "addr", "show"]))
    found = {}
    for link in out:
        if link["ifname"] not in names:
            continue
        addresses = sorted(str(ipaddress.ip_interface(f"{a['local']}/{a['prefixlen']}"))
                           for a in link.get("addr_info", ())
                           if not a["local"].startswith("fe80:"))
        found[link["ifname"]] = ("up" if "UP" in link["flags"] else "down", link["mtu"],
                                 tuple(addresses))
    return found


def _vppcfg(vpp: Any, *args: str, check: bool = True) -> str:
    return vpp.netns.run([sys.executable, "-m", "vppcfg", *args, *vpp.api_args(),
                          "--linux-side", "manage"], check=check)


def _converged(vpp: Any, netns: str, path: str, text: str) -> None:
    _vppcfg(vpp, "apply", "-c", path, "--lock-file", f"{path}.lock")
    wanted = _expected(text)
    assert _linux(vpp, netns, set(wanted)) == wanted
    _vppcfg(vpp, "plan", "--detailed-exitcode", "-c", path)  # 0: nothing left to do


@pytest.mark.parametrize("stanza", ["", "lcp-sync lcp-auto-subint default netns {ns}"],
                         ids=["defaults", "production"])
def test_every_pair_is_right_on_both_sides(vpp_real_factory: Any, monkeypatch: Any,
                                           request: Any, tmp_path: Any, stanza: str) -> None:
    from tests.real import Netns

    # made here, not by the runner inside VPP's netns: a netns made there is not
    # seen from outside it (and so not by vppcfg's netlink either)
    own = Netns(f"lcpt{os.getpid() % 100000}") if stanza else None
    request.addfinalizer(lambda: own.close() if own is not None else None)
    monkeypatch.setenv("VPP_REAL_LINUX_CP", stanza.format(ns=own.name if own else ""))
    vpp = vpp_real_factory(("ge0", "ge1", "hu0"))
    netns = own.name if own is not None else vpp.netns.name
    path = str(tmp_path / "vppcfg.yaml")
    text = ""
    for _, interfaces in _steps():
        text = _yaml(interfaces)
        (tmp_path / "vppcfg.yaml").write_text(text)
        _converged(vpp, netns, path, text)
    # behind vppcfg's back: a sub deleted (with its pair), another pair deleted, and
    # a pair's netdev deleted in Linux
    vpp.ctl("delete", "sub", "host-ge0.500")
    vpp.ctl("lcp", "delete", "host-ge0.100")
    vpp.netns.run(["ip", "-n", netns, "link", "del", "lo0"])  # a netdev deleted in Linux
    drift = vpp.netns.run([sys.executable, "-m", "vppcfg", "plan", "--detailed-exitcode", "-c",
                           path, *vpp.api_args(), "--linux-side", "manage"], check=False)
    assert "host-ge0.500" in drift and "lcp create host-ge0.100" in drift
    assert "interfaces/loop0/lcp: its Linux netdev is gone" in drift
    _converged(vpp, netns, path, text)
    # a Linux name the netns has already is refused before any change
    bad = text + "  loop1:\n    lcp: lo\n"
    (tmp_path / "bad.yaml").write_text(bad)
    refused = subprocess.run([*vpp.netns.prefix(), sys.executable, "-m", "vppcfg", "apply", "-c",
                              str(tmp_path / "bad.yaml"), "--lock-file", f"{path}.lock",
                              *vpp.api_args(), "--linux-side",
                              "manage"], capture_output=True, text=True, timeout=120).stderr
    assert "loop1: lcp 'lo':" in refused and "has a netdev of that name already" in refused
    _vppcfg(vpp, "plan", "--detailed-exitcode", "-c", path)  # nothing changed
