"""`vppcfg schema`: the JSON Schema generated from the yamale schema agrees
with `vppcfg check` on structure: examples and well-formed corpus files pass,
malformed ones fail at the places the structure check names."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_config_fuzz import WORDS
from vppcfg.cli import main
from vppcfg.config import ConfigError, jsonschema, loader, schema
from vppcfg.config.problems import format_path, index

jsonschema_lib = pytest.importorskip("jsonschema", reason="the jsonschema package (test extra)")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
CORPUS = sorted(p for p in (ROOT / "tests" / "corpus").glob("*.yaml")
                if p.is_file() and p.name != "expectations.yaml")


@pytest.fixture(scope="module")
def validator() -> Any:
    generated = jsonschema.build()
    jsonschema_lib.Draft202012Validator.check_schema(generated)
    return jsonschema_lib.Draft202012Validator(generated)


def as_json(data: Any) -> Any:
    """The document as an editor sees it: JSON, so map keys are strings."""
    if isinstance(data, dict):
        return {str(k): as_json(v) for k, v in data.items()}
    if isinstance(data, list):
        return [as_json(v) for v in data]
    return data


def parsed(path: Path) -> loader.Document | None:
    """The parsed document, or None when the file is not even YAML we read."""
    try:
        return loader.parse(loader.read_text(str(path)), str(path))
    except ConfigError:
        return None


def error_paths(errors: Any) -> set[str]:
    """Where each failure is, including the alternatives of an anyOf."""
    found: set[str] = set()
    for error in errors:
        parts = [index(p) if isinstance(p, int) else p for p in error.absolute_path]
        found.add(format_path(tuple(parts)))
        found |= error_paths(error.context or [])
    return found


def related(a: str, b: str) -> bool:
    """One path lies inside the other (an unknown key is reported at its parent)."""
    def inside(x: str, y: str) -> bool:
        return x == y or not y or x.startswith((y + ".", y + "["))

    return inside(a, b) or inside(b, a)


def test_schema_is_draft_2020_12(validator: Any) -> None:
    assert validator.schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    # Every yamale include has its definition, every section its property.
    assert set(schema.compiled().includes) <= set(validator.schema["$defs"])
    assert set(validator.schema["properties"]) == {*schema.SECTIONS, *schema.SINGLE}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_validates(path: Path, validator: Any) -> None:
    doc = parsed(path)
    assert doc is not None
    errors = [e.message for e in validator.iter_errors(as_json(doc.data))]
    assert not errors, errors


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus_agrees_with_the_structure_check(path: Path, validator: Any) -> None:
    doc = parsed(path)
    if doc is None:
        pytest.skip("refused by the YAML reader before any structure check")
    data = as_json(copy.deepcopy(doc.data))
    problems, _ = schema.check_detailed(doc)
    failures = error_paths(validator.iter_errors(data))
    if not problems:  # valid, or invalid only by the semantic rules
        assert not failures, failures
        return
    assert failures, f"the JSON Schema accepts {path.name}, which has {problems}"
    for problem in problems:
        assert any(related(problem.path, f) for f in failures), (problem, failures)
    for failure in failures:
        assert any(related(p.path, failure) for p in problems), (failure, problems)


# Values each custom type must judge as the yamale type does.
SAMPLES: dict[str, list[Any]] = {
    "rulename": ["l2-address", "sub-mtu", "no-such-rule", "L2-ADDRESS", "", 5],
    "ifname": ["GigabitEthernet3/0/0", "TenGigabitEthernet3b/0/1", "loop0", "loop1x",
               "BondEthernet0.100", "BondEthernet0.0", "host-eth0", "tap1.5", "rdma-enp1s0f0",
               "vxlan_tunnel7", "Gig3/0/0", "GigabitEthernet3/0/0;reboot", "", 5],
    "linuxname": ["e0", "be0.100", "e0 up", "E0", "a" * 15, "a" * 16, "0e", ".e", "-e", "e;x", 3],
    "nsname": ["dataplane", "ns-1", "ns.1", "Ns", "n" * 64, "n" * 65],
    "text": ["Core uplink", "x" * 64, "x" * 90, "x" * 4000, 'say "hi"', "it's", "tab\there", "", 7],
    "mac": ["02:00:00:00:00:01", "02-00-00-00-00-01", "0200.0000.0001", "020000000001",
            "02:AA:bb:CC:dd:EE", "02:00-00:00:00:01", "02:00:00:00:00", "0200:0000:0001",
            "0200.0000-0001", "zz:00:00:00:00:01", 12],
    "ip_interface": ["192.0.2.1/24", "192.0.2.1/32", "192.0.2.1/33", "192.0.2.1",
                     "256.0.0.1/8", "01.2.3.4/8", "2001:db8::1/64", "2001:DB8:0:0::1/64",
                     "::/0", "::ffff:192.0.2.1/128", "2001:db8::1/129", "2001:db8:::1/64",
                     "1:2:3:4:5:6:7:8/128", "1:2:3:4:5:6:7:8:9/128", "fe80::1%eth0/64",
                     " 192.0.2.1/24", 17],
    "ip_address": ["192.0.2.1", "192.0.2.1/32", "2001:db8::1", "::", "::1", "1::",
                   "1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:8:9", "2001:db8::g", "999.1.1.1"],
    "prefix": ["192.0.2.0/24", "192.0.2.1", "2001:db8::/32", "2001:db8::", "any", "x/1"],
    "endpoint": ["192.0.2.0/24", "any", "trusted", "Trusted", "t" * 56, "t" * 57, "2001:db8::/32"],
    "protocol": [6, 0, 1, 255, 256, "tcp", "icmpv6", "any", "6", "0", "007", "300", "tcpx",
                 True, -1],
    "port": [0, 80, 65535, 65536, "www", "any", "80-88", "1024-", "-1023", "-", "80-",
             "70000-", "080", "http-alt", "nope", "1-2-3", True, -1],
    "icmp": [0, 8, 255, 256, "3-5", "-10", "10-", "any", "www", "1000", "-"],
    "aclrefs": ["web", ["web", "mail"], [], "Web", ["web", 5], "w" * 56, "w" * 57, 3],
}


@pytest.mark.parametrize("tag", sorted(SAMPLES))
def test_custom_types_agree_with_yamale(tag: str, validator: Any) -> None:
    yamale_type = schema.VALIDATORS[tag]()
    json_type = jsonschema_lib.Draft202012Validator(
        {"$ref": f"#/$defs/{tag}", "$defs": validator.schema["$defs"]})
    for value in SAMPLES[tag]:
        assert json_type.is_valid(value) == yamale_type._ok(value), value


def test_every_custom_type_is_sampled(validator: Any) -> None:
    custom = {tag for tag, cls in schema.VALIDATORS.items() if hasattr(cls, "what")}
    assert custom == set(SAMPLES)


NAMES = {
    "interfaces": ["GigabitEthernet3/0/0", "loop0", "BondEthernet5", "tap1", "vxlan_tunnel1",
                   "bad name", "gig0"],
    "loopbacks": ["loop0", "loop4095", "loop16383", "loop16384", "loop01", "loop1x"],
    "bondethernets": ["BondEthernet0", "BondEthernet4294967294", "BondEthernet4294967295"],
    "bridgedomains": ["bd0", "bd1", "bd16777215", "bd16777216"],
    "vxlan_tunnels": ["vxlan_tunnel0", "vxlan_tunnel2147483647", "vxlan_tunnel2147483648"],
    "taps": ["tap0", "tap1024", "tap8192", "tap8193"],
    "prefixlists": ["trusted", "any", "p" * 64, "p" * 65, "Trusted", "a_b"],
    "acls": ["web-in", "a" * 56, "a" * 57, "9web"],
}


@pytest.mark.parametrize("section", sorted(NAMES))
def test_object_names_agree_with_the_structure_check(section: str, validator: Any) -> None:
    for name in NAMES[section]:
        doc = loader.parse(json.dumps({section: {name: None}}), "names.yaml")
        problems, _ = schema.check_detailed(doc)
        assert validator.is_valid({section: {name: None}}) == (not problems), (section, name)


def test_range_regex_is_exact() -> None:
    for low, high in [(0, 4095), (1, 16777215), (0, 255), (7, 123), (5, 5), (1, 4294967295)]:
        regex = re.compile(jsonschema.range_regex(low, high))
        probes = {*range(0, 1100), low, high, high + 1, max(low - 1, 0), 10**10, 4294967296,
                  *(high // d for d in (2, 3, 7, 10, 100))}
        for n in probes:
            assert bool(regex.fullmatch(str(n))) == (low <= n <= high), (low, high, n)
        assert not regex.fullmatch(f"0{low}")  # no leading zeros


def test_schema_command_writes_the_schema(tmp_path: Path) -> None:
    out = tmp_path / "vppcfg.schema.json"
    assert main(["schema", "-o", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == jsonschema.build()


def test_draft_7_editors_read_it_the_same(validator: Any) -> None:
    """It uses only keywords draft 7 also has, for editors whose validator is at draft 7."""
    draft7 = jsonschema_lib.Draft7Validator(validator.schema)
    docs = [parsed(p) for p in [*EXAMPLES, *CORPUS]]
    datas = [as_json(copy.deepcopy(d.data)) for d in docs if d is not None]
    assert any(not validator.is_valid(d) for d in datas)  # both kinds are compared
    for data in datas:
        assert draft7.is_valid(data) == validator.is_valid(data), data
    for tag, values in SAMPLES.items():
        ref = {"$ref": f"#/$defs/{tag}", "$defs": validator.schema["$defs"]}
        for value in values:
            assert (jsonschema_lib.Draft7Validator(ref).is_valid(value)
                    == jsonschema_lib.Draft202012Validator(ref).is_valid(value)), (tag, value)


# Floats are left out: JSON has one number type, so 9000.0 is an integer there
# (yamale refuses it); likewise a quoted sub-interface id '100' is a string key
# to vppcfg but any key is a string in JSON. Both are documented differences.
SCALARS = st.one_of(st.sampled_from(WORDS), st.integers(-5, 70000), st.booleans(), st.none())


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _paths(value, (*prefix, i))
    return found


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_one_change_to_an_example_is_judged_alike(validator: Any, data: st.DataObject) -> None:
    """Replace one value, rename one key or drop one key of an example: the
    structure check and the JSON Schema accept or refuse the result alike."""
    doc = parsed(data.draw(st.sampled_from(EXAMPLES)))
    assert doc is not None
    tree = copy.deepcopy(doc.data)
    path = data.draw(st.sampled_from(_paths(tree)))
    node = tree
    for key in path[:-1]:
        node = node[key]
    how = data.draw(st.sampled_from(["value", "key", "drop"]))
    if how == "value":
        node[path[-1]] = data.draw(SCALARS)
    elif isinstance(node, dict):
        value = node.pop(path[-1])
        if how == "key":
            node[data.draw(st.one_of(st.sampled_from(WORDS), st.integers(-1, 5000)))] = value
    try:
        changed = loader.parse(yaml.safe_dump(tree, allow_unicode=True), "changed.yaml")
    except ConfigError:
        return  # not YAML we read (e.g. a key made unhashable)
    as_editor = as_json(copy.deepcopy(changed.data))
    problems, _ = schema.check_detailed(changed)
    assert validator.is_valid(as_editor) == (not problems), (path, how, problems)
