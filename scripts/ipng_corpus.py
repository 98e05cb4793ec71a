#!/usr/bin/env python3
"""Measure how often `vppcfg check` agrees with IPng's vppcfg unit-test corpus.

IPng's vppcfg keeps 74 YAML files under vppcfg/unittest/yaml/ in its GitHub
repository (pimvanpelt/vppcfg; the PyPI sdist leaves them out). Each holds two
documents: a `test:` header with the expected error count (0 for a correct
file), then the config. The corpus is not part of this repository; point this
script at a directory holding it:

    git clone --depth 1 https://github.com/pimvanpelt/vppcfg /tmp/ipng-vppcfg
    .venv/bin/python scripts/ipng_corpus.py /tmp/ipng-vppcfg/vppcfg/unittest/yaml

A file agrees when both say valid, or both say invalid. Printed: one line per
disagreement, then the figure (and, with -v, the error counts side by side).
Exit 0 always: this is a measurement, not a gate.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from vppcfg import config

# One documented difference: IPng's checker takes an empty file as valid;
# vppcfg refuses it on purpose (a truncated file must not remove everything).
DOCUMENTED = {"correct-empty.yaml"}


@dataclass
class Verdict:
    name: str
    expected: int  # IPng's expected error count
    found: int  # ours: problems found (0 = valid)

    @property
    def agrees(self) -> bool:
        return (self.expected == 0) == (self.found == 0)


def split(text: str) -> tuple[int, str]:
    """(expected error count, config text) of one corpus file."""
    header, _, body = text.partition("\n---\n")
    count = yaml.safe_load(header)["test"]["errors"].get("count", 0)
    return int(count), body


def judge(path: Path) -> Verdict:
    expected, body = split(path.read_text(encoding="utf-8"))
    try:
        config.check_text(body, path.name)
    except config.ConfigError as err:
        return Verdict(path.name, expected, len(err.problems))
    return Verdict(path.name, expected, 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="IPng's vppcfg/unittest/yaml directory")
    parser.add_argument("-v", "--verbose", action="store_true", help="every file, with counts")
    args = parser.parse_args(argv)
    files = sorted(args.corpus.glob("*.yaml"))
    if not files:
        print(f"no *.yaml under {args.corpus}", file=sys.stderr)
        return 2
    verdicts = [judge(f) for f in files]
    for v in verdicts:
        if args.verbose or not v.agrees:
            mark = "agree" if v.agrees else "DIFFER"
            note = " (documented difference)" if v.name in DOCUMENTED and not v.agrees else ""
            print(f"{mark:6} {v.name}: IPng expects {v.expected} error(s), vppcfg finds "
                  f"{v.found}{note}")
    agree = sum(v.agrees for v in verdicts)
    same_count = sum(v.expected == v.found for v in verdicts)
    print(f"agreement: {agree}/{len(verdicts)} verdicts (valid or not); "
          f"{same_count}/{len(verdicts)} with the same error count")
    return 0


if __name__ == "__main__":
    sys.exit(main())
