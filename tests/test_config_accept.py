"""The compiled yes/no of the schema (schema.accepts) agrees with yamale.

`check` asks yamale for messages only about objects the fast acceptor
rejects, so the two must agree on every object: the examples, the bad-input
corpus, and each example object with each of its fields (at any depth)
replaced by values of the wrong kind, or removed, or joined by an unknown key.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from yamale.schema.datapath import DataPath

from vppcfg.config import loader, schema

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted([*ROOT.glob("examples/*.yaml"), *ROOT.glob("tests/corpus/*.yaml")])
ODD = [None, "x", "a b", -1, 0, 70000, 1.5, True, [], {}, ["x"], {"x": 1}, "192.0.2.1/24",
       "02:00:00:00:00:01", "GigabitEthernet3/0/0", "lacp"]


def yamale_finds_nothing(include: str, obj: Any) -> bool:
    part = schema.compiled().includes[include]
    return not part._validate(part._schema, obj, DataPath(), True)


def objects(path: Path) -> Iterator[tuple[str, Any]]:
    try:
        data = loader.parse(loader.read_text(str(path)), str(path)).data
    except Exception:  # unreadable or not YAML: nothing for the schema layer
        return
    if not isinstance(data, dict):
        return
    for section, body in data.items():
        if section == "sflow":
            yield "sflow", body
        elif section in schema.SECTIONS and isinstance(body, dict):
            for obj in body.values():
                yield schema.SECTIONS[section][0], obj


def variants(obj: Any) -> Iterator[Any]:
    """`obj` with one spot changed: each value replaced, each key dropped, an
    unknown key added, at every depth."""
    if isinstance(obj, dict):
        for key in list(obj):
            for value in [*ODD, *(v for v in variants(obj[key]))]:
                yield {**obj, key: value}
            yield {k: v for k, v in obj.items() if k != key}
        yield {**obj, "no-such-key": 1}
    elif isinstance(obj, list):
        for i, item in enumerate(obj):
            for value in [*ODD[:8], *variants(item)]:
                yield [*obj[:i], value, *obj[i + 1:]]
        yield [*obj, "extra"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_acceptor_agrees_with_yamale_on_every_object(path):
    for include, obj in objects(path):
        assert schema.accepts(include, obj) == yamale_finds_nothing(include, obj), obj


def test_acceptor_agrees_with_yamale_on_broken_variants():
    checked = rejected = 0
    for path in ROOT.glob("examples/*.yaml"):
        for include, obj in objects(path):
            for variant in variants(copy.deepcopy(obj)):
                verdict = yamale_finds_nothing(include, variant)
                assert schema.accepts(include, variant) == verdict, (include, variant)
                checked += 1
                rejected += not verdict
    assert checked > 1000 and 0 < rejected < checked
