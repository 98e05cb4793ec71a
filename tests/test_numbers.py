"""One check of numeric options for the four commands (issue 31): finite,
in range, at argument parsing (exit 2 naming the option), before anything
connects or sends. The parsers are walked, so a new numeric option that does
not go through vppcfg.numbers fails here."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from vppcfg import numbers


def _parsers() -> dict[str, argparse.ArgumentParser]:
    from loadtest.cli import build_parser as loadtest
    from loadtest.emu.__main__ import build_parser as emu
    from vppcfg.cli import build_parser as vppcfg
    from vppcfg.sim.__main__ import build_parser as sim

    return {"vppcfg": vppcfg(), "vppcfg-sim": sim(), "trex-loadtest": loadtest(),
            "trex-emu": emu()}


def _walk(name: str, parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from _walk(f"{name} {sub}", child)
        else:
            yield name, action


def _options() -> list[tuple[str, argparse.Action]]:
    return [(name, a) for prog, p in _parsers().items() for name, a in _walk(prog, p)]


def _numeric(action: argparse.Action) -> bool:
    """An option that takes a number: typed int/float, a numeric default, or a rate."""
    default = action.default[0] if isinstance(action.default, list | tuple) and action.default \
        else action.default
    numeric_default = isinstance(default, int | float) and not isinstance(default, bool)
    return (action.type in (int, float) or isinstance(action.type, numbers.Number)
            or action.type is numbers.rate
            or (numeric_default and action.nargs != 0 and action.const is None))


def test_every_numeric_option_goes_through_the_one_validator() -> None:
    numeric = [(prog, a) for prog, a in _options() if _numeric(a)]
    assert len(numeric) > 40  # the walk found the sub-commands' options too
    unchecked = [f"{prog} {'/'.join(a.option_strings)}" for prog, a in numeric
                 if not (isinstance(a.type, numbers.Number) or a.type is numbers.rate)]
    assert not unchecked, f"numeric options without vppcfg.numbers: {unchecked}"


def test_defaults_pass_their_own_check() -> None:
    for prog, action in _options():
        if isinstance(action.type, numbers.Number) and action.default is not None:
            defaults = action.default if isinstance(action.default, list | tuple) \
                else [action.default]
            for value in defaults:
                assert action.type(str(value)) == value, (prog, action.option_strings)


@pytest.mark.parametrize("text", ["inf", "-inf", "nan", "NaN", "1e400", "-1", "x", ""])
def test_every_number_option_refuses_what_is_not_a_finite_number_in_range(text: str) -> None:
    for prog, action in _options():
        if isinstance(action.type, numbers.Number) or action.type is numbers.rate:
            with pytest.raises(argparse.ArgumentTypeError):
                action.type(text)
                pytest.fail(f"{prog} {action.option_strings} took {text!r}")


CASES = [  # the cases of the issue, as the user runs them
    ("vppcfg", "apply", "-c", "x.yaml", "--confirm", "inf"),
    ("vppcfg", "apply", "-c", "x.yaml", "--confirm", "nan"),
    ("vppcfg", "apply", "-c", "x.yaml", "--timeout", "nan"),
    ("vppcfg", "plan", "-c", "x.yaml", "--timeout", "-1"),
    ("vppcfg", "dump", "--timeout", "inf"),
    ("trex-loadtest", "ramp", "--duration", "inf"),
    ("trex-loadtest", "ramp", "--hold", "inf"),
    ("trex-loadtest", "ramp", "--warmup", "nan"),
    ("trex-loadtest", "ramp", "--sample-interval", "inf"),
    ("trex-loadtest", "ramp", "--link-speed", "inf"),
    ("trex-loadtest", "ramp", "--rate", "nanmpps"),
    ("trex-loadtest", "ndr", "--pdr", "nan"),
    ("trex-emu", "--time-scale", "inf"),
    ("trex-emu", "--capacity-pps", "nan"),
    ("vppcfg-sim", "--socket", "/nonexistent/x.sock", "--capacity-pps", "1e400"),
    ("vppcfg-sim", "--socket", "/nonexistent/x.sock", "--fail-after", "0"),
]
def _main(prog: str):
    from loadtest.cli import main as loadtest
    from loadtest.emu.__main__ import main as emu
    from vppcfg.cli import main as vppcfg
    from vppcfg.sim.__main__ import main as sim

    return {"vppcfg": vppcfg, "vppcfg-sim": sim, "trex-loadtest": loadtest, "trex-emu": emu}[prog]


@pytest.mark.parametrize("argv", CASES, ids=lambda argv: " ".join(argv))
def test_bad_numbers_exit_2_naming_the_option(argv: tuple[str, ...], capsys) -> None:
    """Refused by the parser: nothing gets as far as connecting or serving."""
    prog, *rest = argv
    option = rest[-2]
    with pytest.raises(SystemExit) as exited:
        _main(prog)(rest)
    assert exited.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"argument {option}" in last or f"/{option}" in last, last
    assert "Traceback" not in last and "internal error" not in last
