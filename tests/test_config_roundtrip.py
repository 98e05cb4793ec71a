"""Model -> config language -> model gives the same model (what `vppcfg dump`
relies on), for the examples and for generated valid configs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vppcfg import config
from vppcfg.model import Dataplane, Encapsulation, FrozenDict, Interface, InterfaceKind

EXAMPLE_DIR = Path(__file__).resolve().parents[1] / "examples"
EXAMPLES = [EXAMPLE_DIR / n for n in ("acl.yaml", "l2xc.yaml", "routed-lcp.yaml", "router.yaml")]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_round_trip(path: Path) -> None:
    dp = config.load(str(path))
    assert config.loads(config.to_yaml(dp)) == dp


def test_dump_is_sparse() -> None:
    dp = config.loads("interfaces:\n  GigabitEthernet3/0/0:\n    mtu: 1500\n    state: up\n")
    assert config.to_dict(dp) == {"interfaces": {"GigabitEthernet3/0/0": {}}}
    assert config.to_yaml(Dataplane()).startswith("#")
    router = config.to_dict(config.load(str(EXAMPLES[-1])))
    sub = router["interfaces"]["BondEthernet0"]["sub-interfaces"][100]
    assert "encapsulation" not in sub and "state" not in sub


def test_annotate_foreign() -> None:
    dp = config.loads(
        "loopbacks:\n  loop0: {}\n  loop1: {}\n"
        "interfaces:\n  GigabitEthernet3/0/0:\n    sub-interfaces:\n      100: {mtu: 1500}\n"
    )
    live = Dataplane(
        interfaces=dp.interfaces,
        foreign=frozenset({"interfaces/loop1", "interfaces/GigabitEthernet3/0/0.100"}),
    )
    text = config.to_yaml(live, annotate_foreign=True)
    lines = text.splitlines()
    assert lines[lines.index("  loop1: {}") - 1] == "  # not created by vppcfg"
    assert lines[lines.index("  loop0: {}") - 1] != "  # not created by vppcfg"
    assert lines[lines.index("      100:") - 1] == "      # not created by vppcfg"
    assert config.loads(text) == dp


def test_language_cannot_set_a_sub_interface_mac_so_dump_leaves_it_out() -> None:
    sub = Interface(
        name="GigabitEthernet3/0/0.5",
        kind=InterfaceKind.SUB,
        mac="02:00:00:00:00:05",
        parent="GigabitEthernet3/0/0",
        sub_id=5,
        encapsulation=Encapsulation(dot1q=5),
    )
    phy = Interface(name="GigabitEthernet3/0/0", kind=InterfaceKind.PHY, mac="02:00:00:00:00:01")
    dp = Dataplane(interfaces=FrozenDict({phy.name: phy, sub.name: sub}))
    back = config.loads(config.to_yaml(dp))
    assert back.interfaces[sub.name].mac is None
    assert back.interfaces[phy.name].mac == "02:00:00:00:00:01"


@pytest.mark.parametrize(("device", "written"), [("af-packet", None), ("virtio", None),
                                                 ("dpdk", "dpdk")])
def test_dump_writes_device_type_only_in_the_languages_spelling(
    device: str, written: str | None
) -> None:
    # vpp-real's af_packet PHYs report `af-packet`; the language (IPng's) knows only dpdk.
    phy = Interface(name="host-ge0", kind=InterfaceKind.PHY, device_type=device)
    text = config.to_yaml(Dataplane(interfaces=FrozenDict({phy.name: phy})))
    assert config.to_dict(config.loads(text))["interfaces"]["host-ge0"].get("device-type") \
        == written
    assert (f"device-type: {device}" in text) == (written is not None)


def test_a_sub_interface_without_its_parent_is_listed_under_the_parents_name() -> None:
    # dump's block of foreign objects can hold a hand-made sub of a PHY or bond
    # that is not in the block itself; it used to vanish (and a bridge naming it
    # then named nothing).
    sub = Interface(name="BondEthernet0.7", kind=InterfaceKind.SUB, parent="BondEthernet0",
                    sub_id=7, mtu=9000, state="down", encapsulation=Encapsulation(dot1q=7))
    text = config.to_yaml(Dataplane(interfaces=FrozenDict({sub.name: sub})))
    body = yaml.safe_load(text)["interfaces"]["BondEthernet0"]
    assert body == {"sub-interfaces": {7: {"mtu": 9000, "state": "down"}}}


def test_an_icmp_rule_made_without_type_or_code_dumps_as_any() -> None:
    # `set acl-plugin acl permit proto 58` (no type/code) holds 0-65535 in VPP
    from vppcfg.vpp.dump import RawDump, build_dataplane

    rule = {"is_permit": 1, "src_prefix": "10.0.0.0/8", "dst_prefix": "0.0.0.0/0", "proto": 58,
            "srcport_or_icmptype_first": 0, "srcport_or_icmptype_last": 65535,
            "dstport_or_icmpcode_first": 3, "dstport_or_icmpcode_last": 3}
    live = build_dataplane(RawDump(acls=[{"acl_index": 0, "tag": "icmp", "r": [rule]}]))
    term = live.acls["icmp"].terms[0]
    assert (term.icmp_type.first, term.icmp_type.last) == (0, 255)
    assert (term.icmp_code.first, term.icmp_code.last) == (3, 3)
    dp, warnings = config.check_text(config.to_yaml(live))
    assert dp.acls == live.acls and "ipv6-icmp is IPv6's" in str(warnings)


def test_an_empty_dump_is_an_explicitly_empty_config() -> None:
    text = config.to_yaml(Dataplane())
    assert config.loads(text) == Dataplane()  # not refused as an empty file


# --- generated configs -------------------------------------------------------------

MTUS = st.sampled_from([1500, 2000, 9000, 9216])
WORDS = (
    st.text(alphabet="abcdefghij klmnop-_.0123456789", min_size=1, max_size=20)
    .map(str.strip)
    .filter(bool)
)
MACS = (
    st.integers(0, (1 << 48) - 1)
    .map(lambda v: ":".join(f"{((v & ~(1 << 40)) >> s) & 0xFF:02x}" for s in range(40, -8, -8)))
    .filter(lambda m: m != "00:00:00:00:00:00")
)


@st.composite
def configs(draw: Any) -> dict[str, Any]:
    counter = iter(range(1, 10_000))
    cfg: dict[str, Any] = {"interfaces": {}, "loopbacks": {}}

    def v4() -> str:
        n = next(counter)
        return f"10.{n // 250}.{n % 250}.1/24"

    def v6() -> str:
        return f"2001:db8:{next(counter):x}::1/64"

    def common(body: dict[str, Any], lcp: bool) -> None:
        if draw(st.booleans()):
            body["description"] = draw(WORDS)
        if lcp:
            body["lcp"] = f"l{next(counter)}"
        if draw(st.booleans()):
            body["addresses"] = [v4(), v6()][: draw(st.integers(1, 2))]

    for i in range(draw(st.integers(0, 3))):
        phy: dict[str, Any] = {"mtu": draw(MTUS)}
        has_lcp = draw(st.booleans())
        common(phy, has_lcp)
        if draw(st.booleans()):
            phy["mac"] = draw(MACS)
        if draw(st.booleans()):
            phy["mpls"] = True
        if draw(st.booleans()):
            phy["sflow"] = True
        subs: dict[int, Any] = {}
        for sub_id in sorted(draw(st.sets(st.integers(1, 4094), max_size=3))):
            sub: dict[str, Any] = {"mtu": min(draw(MTUS), phy["mtu"])}
            common(sub, has_lcp and draw(st.booleans()))
            if draw(st.booleans()):
                sub["encapsulation"] = {"dot1ad": sub_id, "exact-match": True}
            subs[sub_id] = sub
        if subs:
            phy["sub-interfaces"] = subs
        cfg["interfaces"][f"GigabitEthernet3/0/{i}"] = phy

    for i in range(draw(st.integers(0, 3))):
        loop: dict[str, Any] = {"mtu": draw(MTUS)}
        common(loop, draw(st.booleans()))
        if draw(st.booleans()):
            loop["mac"] = draw(MACS)
        cfg["loopbacks"][f"loop{i}"] = loop

    if draw(st.booleans()):  # a bond of two PHYs
        mtu = draw(MTUS)
        members = ["TenGigabitEthernet5/0/0", "TenGigabitEthernet5/0/1"]
        for m in members:
            cfg["interfaces"][m] = {"mtu": mtu}
        mode = draw(st.sampled_from(["lacp", "xor", "round-robin", "active-backup", "broadcast"]))
        bond: dict[str, Any] = {"interfaces": members, "mode": mode}
        if mode in ("lacp", "xor"):
            bond["load-balance"] = draw(st.sampled_from(["l2", "l23", "l34"]))
        cfg["bondethernets"] = {"BondEthernet3": bond}
        cfg["interfaces"]["BondEthernet3"] = {"mtu": mtu, "lcp": "be3"}

    if draw(st.booleans()):  # a bridge with a BVI, a tunnel and a tap
        mtu = draw(MTUS)
        cfg["loopbacks"]["loop100"] = {"mtu": mtu, "addresses": [v4()]}
        vni = draw(st.integers(1, 16777215))
        cfg["vxlan_tunnels"] = {
            "vxlan_tunnel7": {"local": "192.0.2.1", "remote": "192.0.2.7", "vni": vni}
        }
        cfg["interfaces"]["vxlan_tunnel7"] = {"mtu": mtu}
        host = {"name": "vpp-tap9", "mtu": mtu}
        if draw(st.booleans()):
            host["mac"] = draw(MACS)
        cfg["taps"] = {"tap9": {"host": host, "rx-ring-size": draw(st.sampled_from([256, 1024]))}}
        settings_ = draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "learn": st.booleans(),
                    "arp-termination": st.booleans(),
                    "mac-age-minutes": st.integers(0, 255),
                },
            )
        )
        cfg["bridgedomains"] = {
            f"bd{draw(st.integers(1, 65535))}": {  # the language's range (VPP's: 16777215)
                "mtu": mtu,
                "bvi": "loop100",
                "interfaces": ["vxlan_tunnel7", "tap9"],
                "settings": settings_,
            }
        }

    if draw(st.booleans()):
        cfg["prefixlists"] = {
            "nets": {"members": ["192.0.2.0/24", "2001:db8::/48", "198.51.100.1"]}
        }
        term = draw(
            st.sampled_from(
                [
                    {
                        "action": "permit",
                        "source": "nets",
                        "protocol": "tcp",
                        "destination-port": "ssh",
                    },
                    {"action": "deny", "family": "ipv4", "protocol": "icmp", "icmp-type": 8},
                    {"action": "permit+reflect", "protocol": 17, "source-port": "1024-"},
                    {
                        "action": "permit",
                        "family": "ipv6",
                        "protocol": "ipv6-icmp",
                        "icmp-code": "-10",
                    },
                    {"action": "deny", "destination": "2001:db8::/32", "protocol": 47},
                ]
            )
        )
        cfg["acls"] = {"guard": {"terms": [term, {"action": "deny"}]}}

    if draw(st.booleans()):
        cfg["sflow"] = {"sampling-rate": draw(st.integers(1, 100000)), "header-bytes": 64}
    return cfg


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_generated_configs_round_trip(cfg: dict[str, Any]) -> None:
    dp = config.loads(yaml.safe_dump(cfg, sort_keys=False))
    text = config.to_yaml(dp)
    again = config.loads(text)
    assert again == dp
    assert config.to_yaml(again) == text


def _long_texts() -> list[str]:
    words = "uplink to the core router in rack seven: port 3 # spare"
    return [
        " ".join([words] * 3),  # plain, folded past the width
        "a: " + "x " * 70,  # single-quoted (': '), folded
        "Zürich – Genève " * 8,  # non-ASCII: double-quoted with escapes, folded
        "short and plain",
    ]


@pytest.mark.parametrize("text", _long_texts())
def test_dump_text_is_what_pyyaml_writes(text: str) -> None:
    """libyaml's emitter serves `to_yaml` where it writes PyYAML's own bytes, and
    PyYAML's emitter where they differ (libyaml folds long double-quoted
    scalars elsewhere): dumps stay byte for byte what they were."""
    from vppcfg.config.emit import _Dumper

    phy = "GigabitEthernet3/0/0"
    itfs = {phy: Interface(name=phy, kind=InterfaceKind.PHY, description=text,
                           addresses=tuple(f"2001:db8:{n:x}::1/64" for n in range(12)))}
    for sub in (100, 200):
        name = f"{phy}.{sub}"
        itfs[name] = Interface(name=name, kind=InterfaceKind.SUB, parent=phy, sub_id=sub,
                               description=text[::-1], encapsulation=Encapsulation(dot1q=sub))
    dp = Dataplane(interfaces=FrozenDict(itfs))
    pure = yaml.dump(config.to_dict(dp), Dumper=_Dumper, sort_keys=False,
                     default_flow_style=False, width=100)
    assert config.to_yaml(dp) == pure
