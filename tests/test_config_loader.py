"""The YAML reader: YAML 1.1 scalars as PyYAML reads them (minus base-60),
positions of every value, and the limits that keep bad input harmless."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from vppcfg.config import ConfigError, ConfigIOError, loader
from vppcfg.config.loader import MAX_DEPTH, parse

SCALARS = "a: 0x1F\nb: 017\nc: 1_000\nd: 1.5\ne: -3\nf: yes\ng: 'yes'\nh: ~\ni: 2001:db8::1\n"


def test_scalars_match_pyyaml_yaml11() -> None:
    assert parse(SCALARS, "x").data == yaml.safe_load(SCALARS)


def test_base60_numbers_stay_text() -> None:
    doc = parse("mac: 10:20:30:40:50:59\ntime: 1:30\nf: 1:30.5\n", "x")
    assert doc.data == {"mac": "10:20:30:40:50:59", "time": "1:30", "f": "1:30.5"}


def test_marks_point_at_values_and_keys() -> None:
    doc = parse("loopbacks:\n  loop0:\n    mtu: 9000\n    addresses: [192.0.2.1/32]\n", "x")
    assert doc.mark(("loopbacks", "loop0")) == (2, 3)
    assert doc.mark(("loopbacks", "loop0", "mtu")) == (3, 10)
    assert doc.mark(("loopbacks", "loop0", "addresses", 0)) == (4, 17)
    assert doc.mark(("loopbacks", "loop0", "missing", "deeper")) == (2, 3)


def test_all_duplicate_keys_are_reported() -> None:
    with pytest.raises(ConfigError) as caught:
        parse("a: 1\nb: 2\na: 3\nb: 4\n", "x")
    assert [(p.line, p.path) for p in caught.value.problems] == [(3, "a"), (4, "b")]


def _refused_at(text: str, name: str) -> tuple[int, int]:
    """Parse text that must be refused; the (line, column) of its one problem."""
    with pytest.raises(ConfigError) as caught:
        parse(text, name)
    assert str(caught.value).startswith(f"{name}:")
    [problem] = caught.value.problems
    return problem.line, problem.column


def test_limits() -> None:
    deep = "a: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    with pytest.raises(ConfigError, match="nested deeper"):
        parse(deep, "x")
    # A million levels must not take long or crash the parser: it stops early. Our depth
    # check or PyYAML's own (its wording changes between releases: 6.0.4 says "exceeded
    # maximum nesting depth" at level 1,000) may come first; either way the document is
    # refused with the file and a position within the first thousand or so levels.
    line, column = _refused_at("[" * 1_000_000, "deep.yaml")
    assert line == 1 and MAX_DEPTH < column <= 1024
    with pytest.raises(ConfigIOError, match="limited to 64 MiB"):
        parse("#" * (65 * 1024 * 1024), "x")
    with pytest.raises(ConfigError, match="refers to no complete anchor"):
        parse("a: &x [*x]\n", "x")


# anchored lists of every shape: plain scalars only, empty, plain scalars then
# something else (a map, a list, an alias, a tag, an anchor, a quoted scalar)
SIZED = """\
a: &a [1, x, 192.0.2.1/24]
b: &b []
c: &c [1, {k: v}, 2, [3, [4]], *a, !!str 5, &s 6, *s, 'q', [], *b]
d: &d {l: [x, y], m: [[], [z]], n: *c}
e: [*d, *d, [*d]]
"""


def _read(text: str, track: bool) -> tuple[Any, dict[str, int]]:
    builder = loader._Builder("x", track)
    loader._feed_all(text, builder)
    return builder.root, {name: size for name, (_, size) in builder.anchors.items()}


def test_both_reader_loops_count_what_an_alias_expands_to() -> None:
    """The sizes that bound alias expansion (MAX_ALIAS_NODES) are the same
    whichever loop read the file."""
    data, sizes = _read(SIZED, track=False)
    assert (data, sizes) == _read(SIZED, track=True)
    assert sizes["a"] == 4 and sizes["b"] == 1 and sizes["s"] == 1


def test_stdin_has_the_files_size_limit(monkeypatch):
    """`-` reads at most the limit too, with the same way to raise it."""
    import io

    from vppcfg.config.loader import MAX_ENV, read_stream

    monkeypatch.setenv(MAX_ENV, "1")
    assert read_stream(io.BytesIO(b"interfaces: {}\n"), "<stdin>") == "interfaces: {}\n"
    with pytest.raises(ConfigIOError, match=rf"more than 1 MiB; .*{MAX_ENV}=<MiB>") as err:
        read_stream(io.BytesIO(b"#" * (1024 * 1024 + 1)), "<stdin>")
    assert err.value.problems[0].file == "<stdin>"


@pytest.mark.parametrize(("text", "where", "line"), [
    ("interfaces:\n  GigabitEthernet3/0/0:\n    mtu: 0x" + "f" * 100_000 + "\n",
     "interfaces.GigabitEthernet3/0/0.mtu", 3),
    ("interfaces:\n  GigabitEthernet3/0/0:\n    mtu: " + "9" * 5000 + "\n",
     "interfaces.GigabitEthernet3/0/0.mtu", 3),
    ("loopbacks:\n  loop0:\n    addresses: [0x" + "f" * 400 + "]\n",
     "loopbacks.loop0.addresses[0]", 3),
    ("interfaces:\n  GigabitEthernet3/0/0:\n    sub-interfaces:\n      0x" + "f" * 400
     + ": {}\n", "interfaces.GigabitEthernet3/0/0.sub-interfaces", 4),
])
def test_a_huge_number_is_a_problem_not_a_crash(text: str, where: str, line: int,
                                                capsys: pytest.CaptureFixture[str],
                                                tmp_path: Any) -> None:
    from vppcfg.cli import main
    from vppcfg.config import check_text

    with pytest.raises(ConfigError) as refused:
        check_text(text, "big.yaml", frozenset())
    [problem] = refused.value.problems
    assert (problem.line, problem.path) == (line, where)
    assert "is too large a number" in problem.message and len(problem.message) < 200
    path = tmp_path / "big.yaml"
    path.write_text(text)
    assert main(["check", str(path)]) == 1  # not 70, "internal error"
    err = capsys.readouterr()
    assert f"{path}:{line}:" in err.out + err.err and "internal error" not in err.err
