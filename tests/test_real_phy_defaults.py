"""What leaves the file leaves VPP, on the real VPPs (issue 20, part 0).

Every field of every PHY is set through `vppcfg apply`, then taken away (the
whole file down to `interfaces: {}`, and one field at a time), and the PHYs
must end exactly as the freshly started VPP had them: compared on VPP's own
answers (raw API dumps and CLI), not only on vppcfg's model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vppcfg.cli import main
from vppcfg.vpp import VppConnection
from vppcfg.vpp.plain import plain_list

pytestmark = pytest.mark.real

NONE = 0xFFFFFFFF
ADMIN_UP = 1
PHYS = ("host-ge0", "host-ge1", "host-hu0", "host-hu1")

# L3: every per-interface field the language has, on every PHY.
ROUTED = """\
interfaces:
  host-ge0:
    mtu: 1500
    lcp: e0
    addresses: [192.0.2.1/30, 2001:db8::1/64]
    mpls: true
    sflow: true
    acls: {input: [allow], output: allow}
    sub-interfaces:
      100: {addresses: [10.0.0.1/24], lcp: e0.100}
  host-ge1:
    mtu: 2000
    state: down
    unnumbered: loop0
  host-hu0:
    mtu: 1500
    l2xc: host-hu1
  host-hu1:
    mtu: 1500
    l2xc: host-hu0
loopbacks:
  loop0:
    addresses: [198.51.100.1/32]
acls:
  allow:
    terms:
      - action: permit
"""

# L2: bridge membership and bond membership.
SWITCHED = """\
interfaces:
  host-ge0: {mtu: 1500}
  host-ge1: {mtu: 1500}
  host-hu0: {mtu: 9000}
  host-hu1: {mtu: 9000}
  BondEthernet0: {mtu: 9000}
bondethernets:
  BondEthernet0: {interfaces: [host-hu0, host-hu1]}
bridgedomains:
  bd10: {interfaces: [host-ge0, host-ge1]}
"""

EMPTY = "interfaces: {}\n"


def phy_state(conn: Any, vpp: Any) -> dict[str, Any]:
    """What VPP itself says about each PHY: its interface details (flags, MTUs,
    MAC, VLAN tag rewrite), addresses, unnumbered, L2 mode and bridge or
    xconnect, lcp pair, MPLS, sFlow and ACL bindings."""
    details = {d["interface_name"]: d for d in plain_list(
        conn.call("sw_interface_dump", sw_if_index=NONE))}
    index = {name: details[name]["sw_if_index"] for name in PHYS}
    tables = {
        "bridges": [(b["bd_id"], sorted(m["sw_if_index"] for m in b["sw_if_details"]))
                    for b in plain_list(conn.call("bridge_domain_dump", bd_id=NONE,
                                                  sw_if_index=NONE)) if b["bd_id"]],
        "l2xc": plain_list(conn.call("l2_xconnect_dump")),
        "lcp": [p["phy_sw_if_index"] for p in plain_list(conn.call("lcp_itf_pair_get",
                                                                   cursor=0)[1])],
        "bonds": plain_list(conn.call("sw_bond_interface_dump", sw_if_index=NONE)),
        "mpls": plain_list(conn.call("mpls_interface_dump", sw_if_index=NONE)),
        "sflow": plain_list(conn.call("sflow_interface_dump", hw_if_index=NONE)),
        "unnumbered": plain_list(conn.call("ip_unnumbered_dump", sw_if_index=NONE)),
    }
    state: dict[str, Any] = {"tables": tables}
    for name in PHYS:
        detail = {k: v for k, v in details[name].items() if k != "context"}
        # Only the admin bit: the link bit is the wire's (af_packet takes the veth
        # down with the PHY, and a fresh VPP's veth is up), not configuration.
        detail["flags"] &= ADMIN_UP
        addresses = [str(a.prefix) for v6 in (False, True) for a in conn.call(
            "ip_address_dump", sw_if_index=index[name], is_ipv6=v6)]
        acls = plain_list(conn.call("acl_interface_list_dump", sw_if_index=index[name]))
        state[name] = {"detail": detail, "addresses": addresses,
                       "acls": [(a["n_input"], a["acls"]) for a in acls],
                       "mode": vpp.ctl("show", "mode", name).strip()}
    return state


def differences(got: Any, want: Any, path: str = "") -> list[str]:
    """Where two snapshots differ, one line per leaf (a readable failure)."""
    if isinstance(got, dict) and isinstance(want, dict):
        return [line for key in sorted(set(got) | set(want), key=str)
                for line in differences(got.get(key), want.get(key), f"{path}/{key}")]
    return [] if got == want else [f"{path}: {got!r} (fresh VPP: {want!r})"]


def vppcfg(vpp: Any, tmp: Path, verb: str, text: str) -> int:
    config = tmp / "vppcfg.yaml"
    config.write_text(text)
    state = ["--lock-file", str(tmp / "lock"), "--state-dir", str(tmp / "state")]
    return main([verb, "-c", str(config), *vpp.api_args(), *(state if verb == "apply" else [])])


def snapshot(vpp: Any) -> dict[str, Any]:
    with VppConnection.open(vpp.socket, vpp.api_dir, requests=None) as conn:
        return phy_state(conn, vpp)


@pytest.mark.parametrize("config", [ROUTED, SWITCHED], ids=["routed", "switched"])
def test_every_field_set_then_an_empty_file_leaves_phys_as_fresh(vpp_real_instance, tmp_path,
                                                                 capsys, config):
    vpp = vpp_real_instance
    fresh = snapshot(vpp)
    assert vppcfg(vpp, tmp_path, "apply", config) == 0, capsys.readouterr().err
    assert snapshot(vpp) != fresh
    assert vppcfg(vpp, tmp_path, "apply", EMPTY) == 0, capsys.readouterr().err
    assert differences(snapshot(vpp), fresh) == []
    capsys.readouterr()
    assert vppcfg(vpp, tmp_path, "plan", EMPTY) == 0
    assert capsys.readouterr().out == ""


def without(text: str, *lines: str) -> str:
    kept = text.splitlines()
    for line in lines:
        kept.remove(line)
    return "\n".join(kept) + "\n"


def test_fields_removed_one_by_one_leave_phys_as_fresh(vpp_real_instance, tmp_path, capsys):
    """Each field dropped from a stanza is undone by itself; the stanzas then go."""
    vpp = vpp_real_instance
    fresh = snapshot(vpp)
    config = ROUTED
    assert vppcfg(vpp, tmp_path, "apply", config) == 0, capsys.readouterr().err
    steps = [
        ("    lcp: e0", "      100: {addresses: [10.0.0.1/24], lcp: e0.100}"),
        ("    mpls: true",), ("    sflow: true",), ("    acls: {input: [allow], output: allow}",),
        ("    addresses: [192.0.2.1/30, 2001:db8::1/64]",), ("    unnumbered: loop0",),
        ("    l2xc: host-hu1",), ("    l2xc: host-hu0",),
        ("    mtu: 2000",), ("    state: down",),  # back to the language's 1500 and up
    ]
    for lines in steps:
        config = without(config, *lines)
        if lines[0].strip() == "lcp: e0":
            config = config.replace("    sub-interfaces:\n", "    sub-interfaces:\n"
                                    "      100: {addresses: [10.0.0.1/24]}\n")
        assert vppcfg(vpp, tmp_path, "apply", config) == 0, (lines, capsys.readouterr().err)
        capsys.readouterr()
        assert vppcfg(vpp, tmp_path, "plan", config) == 0
        assert capsys.readouterr().out == "", lines
    # what is left: named PHYs at MTU 1500, up (the language's defaults), and the
    # sub-interface; without the stanzas the PHYs are as VPP started them
    assert vppcfg(vpp, tmp_path, "apply", EMPTY) == 0, capsys.readouterr().err
    assert differences(snapshot(vpp), fresh) == []
