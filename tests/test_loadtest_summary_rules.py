"""Every rule of the loadtest summary pinned at its boundary: just under, at, just over.

Before this file, multiplying the lossless rule's threshold by ten passed the whole fast
tier (the summary tests' losses sat far on either side of it). Each rule is tested here
through the function the summary uses, at the value where its answer flips.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from loadtest.dut import SATURATION_MIN_CALLS
from loadtest.ndr import (
    KEPT_UP,
    NO_LOWER_BOUND,
    STRETCH_FACTOR,
    STRETCH_MARGIN,
    WAIT_POLL,
    NdrPlan,
    TrexMeasurer,
    _fail_without_lower_bound,
    stretch_allowance,
    stretched,
)
from loadtest.ramp import settle_losses, summarize, summary_lines
from loadtest.report import _alike, fmt_rate
from loadtest.report_dut import SATURATED_VPC, dut_step
from loadtest.stats import (
    GENERATOR_SHORT,
    LINE_SHARE,
    bucket_top_us,
    directions,
    generator_short,
    is_lossless,
    percentile_us,
    saturation_limit,
)

THRESHOLD = 0.001  # the CLI's default --loss-threshold 0.1 %
LINE = 14_880_952.38
D0 = directions((0, 1), False)[0]
TINY = 1e-9


def _row(offered: float, loss: float, tx: int = 1000, asked: float | None = None) -> dict:
    return {"tx_packets": tx, "offered_pps": offered, "intended_pps": asked or offered,
            "loss_ratio": loss, "forwarded_pps": offered * (1 - loss)}


def _summary(rows: list[dict], threshold: float = THRESHOLD) -> dict:
    (out,) = summarize([{"directions": {"0->1": r}} for r in rows], [D0], LINE, threshold)
    return out


# --- lossless: loss at or below the threshold ---


@pytest.mark.parametrize("loss, lossless", [
    (THRESHOLD - TINY, True), (THRESHOLD, True), (THRESHOLD + TINY, False),
    (0.0, True), (THRESHOLD * 10, False)])
def test_lossless_rule_at_its_threshold(loss, lossless):
    assert is_lossless(loss, THRESHOLD) is lossless
    s = _summary([_row(1e5, 0.0), _row(2e5, loss)])
    # the higher step counts only when it is lossless; otherwise loss began there
    assert s["lossless_pps"] == (2e5 if lossless else 1e5)
    assert s["lossy_from_pps"] == (None if lossless else 2e5)
    assert s["saturated"] is (not lossless)


def test_lossless_rule_uses_the_runs_threshold_not_a_fixed_one():
    rows = [_row(1e5, 0.0), _row(2e5, 0.004)]
    assert _summary(rows, 0.004)["lossless_pps"] == 2e5
    assert _summary(rows, 0.004 - TINY)["lossless_pps"] == 1e5


def test_a_step_that_sent_nothing_is_neither_lossless_nor_lossy():
    s = _summary([_row(1e5, 0.0), _row(9e5, 0.0, tx=0), _row(2e5, 0.5, tx=0)])
    assert s["lossless_pps"] == 1e5 and s["max_offered_pps"] == 1e5
    assert s["lossy_from_pps"] is None
    assert _summary([_row(1e5, 0.0), _row(9e5, 0.0, tx=1)])["lossless_pps"] == 9e5


def test_loss_begins_at_the_lowest_lossy_rate_and_max_forwarded_is_the_highest():
    s = _summary([_row(1e5, 0.0), _row(3e5, 0.2), _row(2e5, 0.01), _row(4e5, 0.5)])
    assert s["lossy_from_pps"] == 2e5
    assert s["max_forwarded_pps"] == pytest.approx(3e5 * 0.8)
    assert s["max_asked_pps"] == 4e5


# --- the generator fell short: offered below 95 % of asked ---


@pytest.mark.parametrize("share, short", [
    (GENERATOR_SHORT - TINY, True), (GENERATOR_SHORT, False), (GENERATOR_SHORT + TINY, False)])
def test_generator_short_at_95_percent_of_the_asked_rate(share, short):
    assert GENERATOR_SHORT == 0.95
    assert generator_short(1e6, 1e6 * share) is short
    s = _summary([_row(1e6 * share, 0.0, asked=1e6)])
    assert s["generator_limited"] is short
    assert s["limit"] == ("generator" if short else "asked")


def test_nothing_asked_is_not_a_short_generator():
    assert generator_short(0.0, 0.0) is False


# --- not saturated: why the run stopped where it did ---


@pytest.mark.parametrize("share, limit", [
    (LINE_SHARE - 1e-6, "asked"), (LINE_SHARE, "line"), (LINE_SHARE + 1e-6, "line")])
def test_line_limit_at_99_percent_of_line_rate(share, limit):
    assert LINE_SHARE == 0.99
    asked = LINE * share
    assert saturation_limit(False, asked, asked, LINE) == limit
    assert _summary([_row(asked, 0.0)])["limit"] == limit


def test_a_saturated_run_has_no_limit_and_the_generator_wins_over_the_line():
    assert saturation_limit(True, LINE, 0.5 * LINE, LINE) is None
    assert saturation_limit(False, LINE, 0.5 * LINE, LINE) == "generator"
    assert saturation_limit(False, 1e6, 1e6, 0.0) == "asked"  # no line rate known


def test_terminal_summary_says_at_least_when_not_saturated():
    never = _summary([_row(4.07e5, 0.0)])
    broke = _summary([_row(4.07e5, 0.0), _row(5e5, 0.1)])
    lines = summary_lines({"summary": {"directions": [never]}})
    assert lines[0].startswith("0->1: lossless >= 407.0 kpps, not saturated (the run's peak")
    lines = summary_lines({"summary": {"directions": [broke]}})
    assert lines[0].startswith("0->1: lossless 407.0 kpps (")


# --- settled loss: packets in flight are not loss while nothing is lost by the end ---


def _settled(deficits: list[tuple[int, int]], lost_at_end: int | None) -> list[int]:
    samples = [{"directions": {"0->1": {"tx_packets": tx, "rx_packets": rx, "loss_ratio": 0.0,
                                        "offered_pps": 1.0, "rx_pps": 1.0}}}
               for tx, rx in deficits]
    settle_losses(samples, "0->1", lost_at_end)
    return [s["directions"]["0->1"]["lost_packets"] for s in samples]


@pytest.mark.parametrize("lost_at_end, expected", [
    (0, [0, 0, 0]), (1, [0, 10, 0]), (None, [0, 10, 0])])
def test_settled_loss_at_the_drained_deficit(lost_at_end, expected):
    # 10 packets in flight at the second read arrive in the third, but `lost_at_end` were
    # lost by the end: with none lost nothing counts; with one lost, in flight and lost
    # cannot be told apart and the sample keeps its whole deficit (a loss is never hidden)
    assert _settled([(100, 100), (100, 90), (100, 105)], lost_at_end) == expected


# --- ndr: a trial kept up, or ran too long ---


def _share(low: float, high: float, load: float = 1e6) -> float | None:
    me = SimpleNamespace(dirs=[D0], ceiling=float("inf"))
    return TrexMeasurer._counted_share(me, load, (low, high), {})


@pytest.mark.parametrize("low, share", [
    (KEPT_UP * 1e6 * (1 - TINY), None), (KEPT_UP * 1e6, 1.0), (KEPT_UP * 1e6 * (1 + TINY), 1.0)])
def test_a_trial_kept_up_when_it_provably_sent_97_percent(low, share):
    assert KEPT_UP == 0.97
    assert _share(low, 2e6) == share  # high bound above: undecided below 97 %


@pytest.mark.parametrize("high, decided", [
    (KEPT_UP * 1e6 * (1 - TINY), True), (KEPT_UP * 1e6, False)])
def test_a_trial_fell_short_when_even_its_highest_rate_is_under_97_percent(high, decided):
    share = _share(0.5e6, high)
    assert (share == pytest.approx(0.5)) if decided else share is None


def test_stretch_allowance_is_the_sum_of_its_parts():
    assert stretch_allowance(0.01, 0.02) == pytest.approx(0.01 + 0.04 + WAIT_POLL
                                                          + STRETCH_MARGIN)


@pytest.mark.parametrize("extra, is_stretched", [(-1e-6, False), (0.0, False), (1e-6, True)])
def test_a_trial_is_stretched_beyond_2_percent_plus_the_allowance(extra, is_stretched):
    assert STRETCH_FACTOR == 1.02
    duration, allowance = 10.0, 0.1
    seconds = duration * STRETCH_FACTOR + allowance + extra
    assert stretched(duration, seconds, allowance) is is_stretched


def test_a_finished_search_without_a_lower_bound_failed():
    plan = NdrPlan(1e4, 1e6)
    goals = [{"name": "NDR", "lower_bound_pps": 5e5}, {"name": "PDR 0.5%", "lower_bound_pps": 6e5}]
    ok = {"status": "complete", "goals": goals, "trials": []}
    _fail_without_lower_bound(ok, plan)
    assert ok["status"] == "complete"
    missing = {"status": "complete", "goals": [{**goals[0], "lower_bound_pps": None}, goals[1]],
               "trials": [{"load_pps": 1e4, "loss_ratio": 0.01, "stretched": False}]}
    _fail_without_lower_bound(missing, plan)
    assert missing["status"] == "failed" and missing["error"].startswith(NO_LOWER_BOUND)
    assert "for NDR down to" in missing["error"]
    cut = {"status": "interrupted", "goals": missing["goals"], "trials": []}
    _fail_without_lower_bound(cut, plan)
    assert cut["status"] == "interrupted"  # an interrupted search keeps its status


# --- the report's own rules ---


@pytest.mark.parametrize("pps, text", [
    (999.4, "999"), (999.5, "1k"), (999_499, "999k"), (999_500, "1M"), (1_234_567, "1.23M"),
    (81_660, "81.7k"), (0.0, "0")])
def test_rates_read_at_three_digits_across_a_unit(pps, text):
    assert fmt_rate(pps) == text


@pytest.mark.parametrize("key, top", [(0, 10), (10, 20), (90, 100), (100, 200), (900, 1000),
                                      (1000, 2000), (5000, 6000)])
def test_histogram_bucket_tops(key, top):
    assert bucket_top_us(key) == top


@pytest.mark.parametrize("in_first, p50_top", [(49, 30), (50, 20), (51, 20)])
def test_percentile_at_a_bucket_edge(in_first, p50_top):
    hist = {10: in_first, 20: 100 - in_first}
    assert percentile_us(hist, 50.0) == p50_top
    assert percentile_us(hist, 100.0) == 30
    assert percentile_us({}, 50.0) is None


@pytest.mark.parametrize("vpc, saturated", [
    (SATURATED_VPC - 0.1, False), (SATURATED_VPC, True), (SATURATED_VPC + 0.1, True)])
def test_a_node_is_saturated_from_240_vectors_per_call(vpc, saturated):
    assert SATURATED_VPC == 240.0
    def words(calls: int) -> str:
        node = {"node": "af-packet-input", "vectors_per_call": vpc, "calls": calls,
                "clocks_per_packet": 100.0}
        return dut_step("t", {"nodes": [node]}, "0->1").words[0]

    assert ("saturated (its vectors are full" in words(SATURATION_MIN_CALLS)) is saturated
    assert ("not saturated" in words(SATURATION_MIN_CALLS)) is not saturated
    # a node called too few times says nothing about load, as in the verdict
    assert "too few to judge" in words(SATURATION_MIN_CALLS - 1)


@pytest.mark.parametrize("other, alike", [(100.99, True), (101.0, True), (101.01, False)])
def test_lines_within_one_percent_are_called_alike(other, alike):
    assert _alike([(1.0, 100.0)], [(1.0, other)]) is alike
    assert _alike([(100.0, 1.0)], [(other, 1.0)]) is alike


def test_a_step_without_node_figures_says_why_as_the_json_does():
    """nodes is None both when the counters are off and when VPP's collector did not run
    in that sample: the page repeats the JSON's nodes_note instead of guessing "off"."""
    from loadtest import dut, report_dut

    assert dut.NODES_NOT_YET in report_dut._node_words(None, dut.NODES_NOT_YET)
    assert "per-node-counters is off" in report_dut._node_words(None)


def test_terminal_summary_says_none_lossless_not_zero():
    """Lost from the first step: no rate to claim (before: 0.0000 Mpps / 0.00 %)."""
    lossy = _summary([_row(4.07e5, 0.1), _row(5e5, 0.2)])
    line = summary_lines({"summary": {"directions": [lossy]}})[0]
    assert line.startswith("0->1: none lossless (loss from 407.0 kpps), max forwarded"), line


def test_an_interrupted_ramp_is_not_limited_by_its_peak_rate():
    """Interrupted before its peak, it never lost: say interrupted, not 'the run's peak rate'."""
    samples = [{"directions": {"0->1": _row(4.07e5, 0.0)}}]
    (d,) = summarize(samples, [D0], LINE, THRESHOLD, "interrupted")
    assert d["limit"] == "interrupted"
    line = summary_lines({"summary": {"directions": [d]}})[0]
    assert "not saturated (the run was interrupted before its peak rate)" in line, line
