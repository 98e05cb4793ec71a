"""Regressions found in review of the config language: inputs users write that
were accepted although VPP refuses them (or the planner cannot use them), and
inputs that crashed the checker."""

from __future__ import annotations

import pytest
import yaml

from vppcfg import config
from vppcfg.model import Encapsulation, PortRange


def _problems(text: str) -> str:
    with pytest.raises(config.ConfigError) as caught:
        config.loads(text, "case.yaml")
    assert all(p.line > 0 and p.path for p in caught.value.problems), caught.value
    return str(caught.value)


@pytest.mark.parametrize("key", ["sampling-rate", "polling-interval", "header-bytes"])
def test_sflow_setting_without_value_is_refused(key: str) -> None:
    # An empty value used to reach the model as None, and `plan` then crashed on it.
    found = _problems(f"sflow:\n  {key}:\n")
    assert f"sflow.{key}: has no value" in found


def test_sflow_null_section_still_means_defaults() -> None:
    assert config.loads("sflow:\n") == config.loads("interfaces: {}\n")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("protocol", '"²"'),  # str.isdigit() is true for it, int() is not
        ("destination-port", '"²"'),
        ("icmp-type", '"³"'),
        ("protocol", '"６"'),  # a full-width digit is not a protocol number either
        ("source-port", '"８０"'),
        ("icmp-code", '"1-²"'),
    ],
)
def test_non_ascii_digits_are_refused_not_a_crash(field: str, value: str) -> None:
    protocol = "icmp" if field.startswith("icmp") else "tcp"
    extra = "" if field == "protocol" else f", protocol: {protocol}"
    text = f"acls:\n  a:\n    terms:\n      - {{action: permit, {field}: {value}{extra}}}\n"
    assert f"acls.a.terms[0].{field}:" in _problems(text)


def test_ascii_digit_strings_still_work() -> None:
    dp = config.loads(
        'acls:\n  a:\n    terms:\n      - {action: permit, protocol: "6", source-port: "80"}\n'
    )
    term = dp.acls["a"].terms[0]
    assert (term.protocol, term.source_port) == (6, PortRange(80, 80))


def test_implicit_vlan_above_4095_is_refused() -> None:
    # Without `encapsulation` the sub-interface id is the dot1q tag; VPP refuses
    # VLAN 4096 and up (INVALID_VLAN), so the apply would fail half-way.
    found = _problems("interfaces:\n  GigabitEthernet3/0/0:\n    sub-interfaces:\n      5000: {}\n")
    assert "interfaces.GigabitEthernet3/0/0.sub-interfaces.5000:" in found
    assert "4095" in found and "encapsulation" in found


def test_large_sub_id_with_explicit_encapsulation_is_fine() -> None:
    dp = config.loads(
        "interfaces:\n  GigabitEthernet3/0/0:\n    sub-interfaces:\n"
        "      4095: {description: implied tag}\n"
        "      5000: {encapsulation: {dot1q: 500, exact-match: true}}\n"
    )
    assert dp.interfaces["GigabitEthernet3/0/0.4095"].encapsulation == Encapsulation(dot1q=4095)
    assert dp.interfaces["GigabitEthernet3/0/0.5000"].encapsulation.dot1q == 500


BOND = "bondethernets:\n  BondEthernet0: {interfaces: [GigabitEthernet3/0/0]%s}\n"


def test_bond_member_cannot_set_its_own_mac() -> None:
    # VPP gives every member the bond's MAC: a member MAC would never converge.
    member = "interfaces:\n  GigabitEthernet3/0/0: {mac: 02:00:00:00:00:01}\n"
    found = _problems(BOND % "" + member)
    assert "member GigabitEthernet3/0/0 cannot have its own MAC: set it on the bond" in found
    found = _problems(BOND % ", mac: 02:00:00:00:00:02" + member)
    assert "member GigabitEthernet3/0/0 has MAC 02:00:00:00:00:01, the bond has" in found


def test_bond_member_may_repeat_the_bond_mac() -> None:
    # What `vppcfg dump` writes for a live bond: members show the bond's MAC.
    dp = config.loads(
        BOND % ", mac: 02:00:00:00:00:02"
        + "interfaces:\n  GigabitEthernet3/0/0: {mac: 0200.0000.0002}\n  BondEthernet0: {}\n"
    )
    assert dp.interfaces["GigabitEthernet3/0/0"].mac == dp.bonds["BondEthernet0"].mac


def test_loading_leaves_pyyaml_global_resolvers_alone() -> None:
    # The loader's resolver table used to be PyYAML's shared BaseResolver table,
    # so importing vppcfg made yaml.BaseLoader resolve `true` as a bool.
    config.loads("loopbacks:\n  loop0: {mpls: true}\n")
    node = yaml.compose("a: true", Loader=yaml.BaseLoader)
    assert node.value[0][1].tag == "tag:yaml.org,2002:str"


def test_sflow_polling_interval_zero_is_refused_while_an_interface_samples() -> None:
    # VPP's sflow plugin takes `now % polling-interval` every second once an
    # interface samples: 0 divides by zero (vpp-real dies). Without sampling
    # interfaces VPP holds 0 happily, so a dump of it must check.
    found = _problems(
        "interfaces:\n  host-ge0: {sflow: true}\nsflow:\n  polling-interval: 0\n"
    )
    assert "sflow.polling-interval: polling-interval 0 crashes VPP while an interface " \
        "samples (host-ge0)" in found
    assert config.loads("sflow:\n  polling-interval: 0\n").sflow.polling_interval == 0
    assert config.loads("sflow:\n  polling-interval: 1\n").sflow.polling_interval == 1


@pytest.mark.parametrize(("asked", "kept"), [(1, 64), (64, 64), (100, 128), (200, 224), (256, 256)])
def test_sflow_header_bytes_are_what_vpp_keeps(asked: int, kept: int) -> None:
    # vpp-real rounds up to a multiple of 32 within 64-256 (IPng's language allows
    # 1-256): the model holds VPP's value, so such a config plans to nothing.
    dp = config.loads(f"sflow:\n  header-bytes: {asked}\n")
    assert dp.sflow.header_bytes == kept


def test_list_length_problems_are_plain_words() -> None:
    # The generic "is less than" translation used to win and print the whole list.
    found = _problems("acls:\n  a: {terms: []}\n")
    assert "acls.a.terms: needs at least 1 entry" in found
    assert "Length of" not in found


def test_more_than_six_addresses_and_a_hundred_terms_are_fine() -> None:
    # IPng's schema caps these at 6 and 100; VPP does not, so a dump can hold more.
    addresses = ", ".join(f"192.0.2.{i}/32" for i in range(1, 9))
    terms = "".join(f"      - {{action: permit, source: 10.0.{i}.0/24}}\n" for i in range(120))
    dp = config.loads(
        f"loopbacks:\n  loop0:\n    addresses: [{addresses}]\nacls:\n  a:\n    terms:\n{terms}"
    )
    assert len(dp.interfaces["loop0"].addresses) == 8 and len(dp.acls["a"].terms) == 120


def test_unknown_key_containing_colon_space_is_named_in_full() -> None:
    found = _problems('loopbacks:\n  loop0:\n    "mtu: 9000": 1\n')
    assert "loopbacks.loop0.'mtu: 9000': unknown key 'mtu: 9000'" in found
    assert "Unexpected element" not in found


@pytest.mark.parametrize("address", ["fe80::1/64", "FE80::1/128", "febf:ffff::1/64"])
def test_ipv6_link_local_addresses_are_refused(address: str) -> None:
    # VPP refuses a link-local of another length than /128, and keeps a /128
    # one out of ip_address_dump (and refuses to delete it): never convergent.
    found = _problems(f"loopbacks:\n  loop0: {{addresses: [{address}]}}\n")
    assert "is IPv6 link-local, which VPP manages by itself" in found


def test_addresses_that_only_look_link_local_are_fine() -> None:
    dp = config.loads("loopbacks:\n  loop0: {addresses: [fe8::1/64, fec0::1/64, 169.254.0.1/16]}\n")
    assert len(dp.interfaces["loop0"].addresses) == 3


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('loopbacks:\n  loop0:\n    description: "a\x01b"\n', 3, 20),
        ("loopbacks:\n  loop0: {description: é}\n  loop1: {description: x\x7f}\n", 3, 25),
    ],
)
def test_control_character_is_one_located_line(text: str, line: int, column: int) -> None:
    with pytest.raises(config.ConfigError) as caught:
        config.loads(text, "case.yaml")
    (problem,) = caught.value.problems
    assert (problem.line, problem.column) == (line, column)
    assert "control character" in problem.message and "\n" not in str(problem)
