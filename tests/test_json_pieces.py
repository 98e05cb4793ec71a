"""json_pieces: JSON as json.dumps(indent=2) lays it out, with per-line lists."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from vppcfg.commands import common
from vppcfg.commands.common import json_pieces

scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8) | st.floats(
    allow_nan=False)
keys = st.sampled_from(["ops", "planned", "a", "b\n\"c", "é"]) | st.integers() | st.booleans()
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(keys, inner, max_size=4), max_leaves=20)
docs = st.dictionaries(keys, values, max_size=5)


@given(docs)
def test_without_per_line_lists_it_is_json_dumps_indent_2(doc: dict) -> None:
    assert "".join(json_pieces(doc)) == json.dumps(doc, indent=2) + "\n"


@given(docs, st.integers(min_value=1, max_value=3))
def test_per_line_lists_have_an_item_per_line(doc: dict, chunk: int) -> None:
    old, common.JSON_CHUNK = common.JSON_CHUNK, chunk
    try:
        text = "".join(json_pieces(doc, ("ops", "planned")))
    finally:
        common.JSON_CHUNK = old
    assert json.loads(text) == json.loads(json.dumps(doc))
    for key in ("ops", "planned"):
        items = doc.get(key)
        if isinstance(items, list) and items:  # at the top: two spaces, items four
            lines = [f"    {json.dumps(item)}," for item in items]
            lines[-1] = lines[-1][:-1]
            body = text.splitlines()
            start = body.index(f'  "{key}": [')
            assert body[start + 1:start + 1 + len(items)] == lines


def test_a_per_line_list_may_be_a_stream() -> None:
    doc = {"warnings": [], "operations": (n for n in range(3)), "rollback": {"operations": []}}
    assert "".join(json_pieces(doc, ("operations",))) == (
        '{\n  "warnings": [],\n  "operations": [\n    0,\n    1,\n    2\n  ],\n'
        '  "rollback": {\n    "operations": []\n  }\n}\n')
