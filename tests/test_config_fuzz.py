"""Arbitrary input never crashes the checker: it returns a model or raises
ConfigError, whatever the types, names and nesting."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vppcfg import config

WORDS = [
    "interfaces",
    "loopbacks",
    "bondethernets",
    "bridgedomains",
    "vxlan_tunnels",
    "taps",
    "prefixlists",
    "acls",
    "sflow",
    "sub-interfaces",
    "encapsulation",
    "dot1q",
    "dot1ad",
    "inner-dot1q",
    "exact-match",
    "mtu",
    "lcp",
    "addresses",
    "mac",
    "state",
    "l2xc",
    "unnumbered",
    "mpls",
    "description",
    "device-type",
    "interfaces",
    "bvi",
    "settings",
    "learn",
    "mode",
    "load-balance",
    "local",
    "remote",
    "vni",
    "host",
    "name",
    "bridge",
    "namespace",
    "rx-ring-size",
    "members",
    "terms",
    "action",
    "family",
    "source",
    "destination",
    "protocol",
    "source-port",
    "destination-port",
    "icmp-type",
    "icmp-code",
    "input",
    "output",
    "sampling-rate",
    "header-bytes",
    "GigabitEthernet3/0/0",
    "GigabitEthernet3/0/1",
    "GigabitEthernet3/0/0.100",
    "loop0",
    "loop1",
    "BondEthernet0",
    "vxlan_tunnel0",
    "tap0",
    "bd1",
    "bd0",
    "e0",
    "trusted",
    "acl1",
    "up",
    "down",
    "lacp",
    "xor",
    "permit",
    "deny",
    "tcp",
    "icmp",
    "www",
    "any",
    "192.0.2.1/24",
    "192.0.2.1",
    "2001:db8::1/64",
    "10.0.0.0/8",
    "02:00:00:00:00:01",
    "1024-",
    "-10",
    "",
    " ",
    "a;b",
    "x\ny",
]
SCALARS = st.one_of(
    st.sampled_from(WORDS),
    st.integers(-5, 70000),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
)
KEYS = st.one_of(st.sampled_from(WORDS), st.integers(-1, 5000))
TREES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=40,
)
DOCS = st.dictionaries(st.sampled_from([*WORDS[:9], "bogus"]), TREES, max_size=4)


def _check(data: Any) -> None:
    text = yaml.safe_dump(data, allow_unicode=True)
    try:
        dp = config.loads(text, "fuzz.yaml")
    except config.ConfigError as err:
        assert err.problems and all(p.message for p in err.problems)
    else:  # whatever was accepted also survives a dump and reload
        assert config.loads(config.to_yaml(dp)) == dp


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS)
def test_random_documents_never_crash(data: dict[str, Any]) -> None:
    _check(data)


OBJECT = st.dictionaries(st.sampled_from(WORDS[9:55]), TREES, max_size=6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["interfaces", "loopbacks", "bondethernets", "bridgedomains", "taps", "acls"]),
    st.sampled_from(["GigabitEthernet3/0/0", "loop0", "BondEthernet0", "bd1", "tap0", "acl1"]),
    OBJECT,
    OBJECT,
)
def test_random_objects_never_crash(section: str, name: str, body: dict, other: dict) -> None:
    _check({section: {name: body}, "interfaces": {"GigabitEthernet3/0/1": other}})


# Structurally valid configs whose references point anywhere: the semantic
# rules must report, never crash, whatever points at what.
NAMES = st.sampled_from(
    [
        "GigabitEthernet3/0/0",
        "GigabitEthernet3/0/1",
        "GigabitEthernet3/0/0.10",
        "GigabitEthernet3/0/0.20",
        "loop0",
        "loop1",
        "BondEthernet0",
        "BondEthernet0.5",
        "vxlan_tunnel0",
        "tap0",
        "host-eth0",
    ]
)
MTU = st.sampled_from([1500, 9000])


def _iface() -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries(
        {},
        optional={
            "mtu": MTU,
            "lcp": st.sampled_from(["e0", "e1", "vpp0"]),
            "addresses": st.lists(
                st.sampled_from(["192.0.2.1/24", "192.0.2.9/29", "2001:db8::1/64"]),
                min_size=1,
                max_size=2,
            ),
            "l2xc": NAMES,
            "unnumbered": NAMES,
            "state": st.sampled_from(["up", "down"]),
            "mpls": st.booleans(),
            "acls": st.fixed_dictionaries({"input": st.sampled_from(["a1", "nope"])}),
        },
    )


def _sub() -> st.SearchStrategy[dict]:
    encap = st.fixed_dictionaries(
        {},
        optional={
            "dot1q": st.sampled_from([10, 20]),
            "dot1ad": st.sampled_from([10, 20]),
            "inner-dot1q": st.sampled_from([5, 6]),
            "exact-match": st.booleans(),
        },
    )
    return st.builds(
        lambda base, e: {**base, **({"encapsulation": e} if e else {})}, _iface(), encap
    )


REFERENCES = st.fixed_dictionaries(
    {
        "interfaces": st.dictionaries(
            st.sampled_from(
                [
                    "GigabitEthernet3/0/0",
                    "GigabitEthernet3/0/1",
                    "BondEthernet0",
                    "vxlan_tunnel0",
                    "tap0",
                ]
            ),
            st.builds(
                lambda base, subs: {**base, **({"sub-interfaces": subs} if subs else {})},
                _iface(),
                st.dictionaries(st.sampled_from([5, 10, 20]), _sub(), max_size=3),
            ),
            max_size=5,
        ),
        "loopbacks": st.dictionaries(
            st.sampled_from(["loop0", "loop1"]),
            _iface().map(lambda d: {k: v for k, v in d.items() if k != "l2xc"}),
            max_size=2,
        ),
        "bondethernets": st.dictionaries(
            st.just("BondEthernet0"),
            st.fixed_dictionaries({"interfaces": st.lists(NAMES, max_size=3)}),
            max_size=1,
        ),
        "bridgedomains": st.dictionaries(
            st.sampled_from(["bd1", "bd2"]),
            st.fixed_dictionaries(
                {"interfaces": st.lists(NAMES, max_size=3)}, optional={"bvi": NAMES, "mtu": MTU}
            ),
            max_size=2,
        ),
        "vxlan_tunnels": st.dictionaries(
            st.just("vxlan_tunnel0"),
            st.just({"local": "192.0.2.1", "remote": "192.0.2.2", "vni": 1}),
            max_size=1,
        ),
        "taps": st.dictionaries(st.just("tap0"), st.just({"host": {"name": "vpp0"}}), max_size=1),
        "acls": st.just({"a1": {"terms": [{"action": "permit"}]}}),
    }
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REFERENCES)
def test_random_references_never_crash(data: dict[str, Any]) -> None:
    _check(data)
