"""What CI must not skip, and a closing list of every skip (registered by tests/conftest.py).

A green run that skipped the real VPP and T-Rex, the T-Rex client, graph.rb or
the unprivileged-user paths tested little: under CI=true such a skip is a
failure. A skipped test is reported as failed with its reason; a whole module
skipped at import (e.g. the client does not import) cannot be turned into test
failures, so it fails the session instead. Other skips stay skips. Every run
(CI or not) ends with the number of skips and each reason.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

CI_VALUES = ("true", "1", "yes")

# (category, words in a skip reason that put it there); the real tier is also any test
# marked `real`. ../shared is where the real systems and their reference data live.
GUARDED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the real tier", ("../shared", "needs root", "need root", "iproute2", "vpp-real",
                       "trex-real")),
    ("the T-Rex client", ("T-Rex client", "lbr_trex_client", "trex.stl")),
    ("graph.rb", ("graph.rb", "GRAPH_RB", "ruby")),
    ("the unprivileged-user paths", ("unprivileged-user path", "privileges")),
)


# Only a tool that is not ours and that CI may have no way to fetch can be waived; the real
# tier, the T-Rex client and the unprivileged paths never are.
WAIVABLE = ("graph.rb",)


def ci_enabled() -> bool:
    return os.environ.get("CI", "").strip().lower() in CI_VALUES


def waived() -> dict[str, str]:
    """Categories CI cannot test on this machine at all, with why: `CI_WAIVE=graph.rb` and
    `CI_WAIVE_REASON=...` (set by .ci/run only when graph.rb's source cannot be fetched, since
    it is not ours to ship). Their skips are listed apart in the summary, never silently."""
    names = [n.strip() for n in os.environ.get("CI_WAIVE", "").split(",") if n.strip()]
    why = os.environ.get("CI_WAIVE_REASON", "no reason given")
    return {category: why for category in WAIVABLE if category in names}


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The text a skip was given (pytest keeps it as (path, line, 'Skipped: why'))."""
    longrepr = report.longrepr
    whole = isinstance(longrepr, tuple) and len(longrepr) == 3
    return str(longrepr[2] if whole else longrepr).removeprefix("Skipped: ")


def guarded_category(reason: str, marked_real: bool) -> str | None:
    """Which of the guarded categories a skip belongs to, if any."""
    if marked_real:
        return "the real tier"
    for category, words in GUARDED:
        if any(word in reason for word in words):
            return category
    return None


@dataclass(eq=False)  # pluggy keeps plugins in sets: hashed by identity
class CiPolicy:
    enforce: bool
    waived: dict[str, str] = field(default_factory=dict)
    skips: Counter[str] = field(default_factory=Counter)
    refused: list[str] = field(default_factory=list)  # guarded skips under CI

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item) -> Iterator[None]:
        outcome = yield
        report: pytest.TestReport = outcome.get_result()
        if not report.skipped or hasattr(report, "wasxfail"):
            return
        reason = skip_reason(report)
        category = guarded_category(reason, item.get_closest_marker("real") is not None)
        if self.enforce and category in self.waived:
            self.skips[f"WAIVED ({category}: {self.waived[category]}): {reason}"] += 1
        elif self.enforce and category:
            report.outcome = "failed"
            report.longrepr = f"CI=true: a skip of {category} is a failure here: {reason}"
            self.refused.append(f"{item.nodeid}: {reason}")
        else:
            self.skips[reason] += 1

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Iterator[None]:
        outcome = yield
        report: pytest.CollectReport = outcome.get_result()
        if not report.skipped:
            return
        reason = skip_reason(report)
        self.skips[reason] += 1
        if self.enforce and guarded_category(reason, False):
            self.refused.append(f"{collector.nodeid} (whole module): {reason}")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.refused and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:
        write = terminalreporter.write_line
        total = sum(self.skips.values())
        terminalreporter.section("skips", sep="-")
        write(f"{total} skipped" + (":" if total else ""))
        for reason, count in sorted(self.skips.items(), key=lambda kv: (-kv[1], kv[0])):
            write(f"  {count:4d} x {reason}")
        if self.refused:
            write(f"CI=true: {len(self.refused)} skip(s) of what CI must test, counted as "
                  f"failures:", red=True)
            for line in self.refused:
                write(f"  {line}", red=True)


def pytest_configure(config: pytest.Config) -> None:
    enforce = ci_enabled()
    config.pluginmanager.register(CiPolicy(enforce=enforce, waived=waived() if enforce else {}),
                                  "vppcfg-ci-policy")
