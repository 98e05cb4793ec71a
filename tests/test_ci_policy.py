"""tests/ci_policy.py on small suites of its own: under CI=true the skips CI must not
have fail the run; other skips stay skips; every run lists its skips."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

SUITE = '''
import pytest

@pytest.mark.real
def test_real():
    pytest.skip("../shared/vpp-real/start is not there")

def test_client():
    pytest.skip("T-Rex client not importable: no T-Rex client")

def test_graph_rb():
    pytest.skip("ruby is not installed")

def test_root():
    pytest.skip("unprivileged-user path: running as root and setpriv is not installed")

def test_other():
    pytest.skip("no examples/*.yaml yet")

def test_passes():
    pass

@pytest.mark.xfail(reason="T-Rex client quirk")
def test_expected_failure():
    raise AssertionError
'''

WHOLE_MODULE = '''
import pytest
pytest.skip("T-Rex client not importable: cannot import lbr-trex-client", allow_module_level=True)

def test_never_collected():
    pass
'''


@pytest.fixture(autouse=True)
def no_waiver(monkeypatch):
    """.ci/run may waive graph.rb for the whole run; these inner suites decide for themselves."""
    monkeypatch.delenv("CI_WAIVE", raising=False)
    monkeypatch.delenv("CI_WAIVE_REASON", raising=False)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest('pytest_plugins = ["tests.ci_policy"]\n')
    pytester.makeini("[pytest]\nmarkers =\n    real: the real tier\n")
    pytester.makepyfile(test_suite=SUITE)
    return pytester


def test_without_ci_skips_stay_skips_and_are_listed(suite, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    result = suite.runpytest()
    result.assert_outcomes(passed=1, skipped=5, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["5 skipped:", "*1 x T-Rex client not importable*",
                                 "*1 x no examples/*.yaml yet"])


def test_under_ci_the_guarded_skips_fail(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result = suite.runpytest()
    result.assert_outcomes(passed=1, failed=4, skipped=1, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*CI=true: a skip of the real tier is a failure here: ../shared/vpp-real*",
        "*CI=true: a skip of the T-Rex client is a failure*",
        "*CI=true: a skip of graph.rb is a failure*",
        "*CI=true: a skip of the unprivileged-user paths is a failure*",
        "1 skipped:", "*1 x no examples/*.yaml yet",
    ])


def test_under_ci_a_module_skipped_at_import_fails_the_run(pytester, monkeypatch):
    pytester.makeconftest('pytest_plugins = ["tests.ci_policy"]\n')
    pytester.makepyfile(test_whole=WHOLE_MODULE, test_fine="def test_ok():\n    pass\n")
    monkeypatch.setenv("CI", "false")
    assert pytester.runpytest().ret == pytest.ExitCode.OK
    monkeypatch.setenv("CI", "true")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*1 skip(s) of what CI must test*",
                                 "*test_whole.py (whole module): T-Rex client not importable*"])


def test_under_ci_a_waived_category_is_listed_apart_and_only_that_one(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("CI_WAIVE", "graph.rb")
    monkeypatch.setenv("CI_WAIVE_REASON", "github.com unreachable")
    result = suite.runpytest()
    result.assert_outcomes(passed=1, failed=3, skipped=2, xfailed=1)
    result.stdout.fnmatch_lines([
        "2 skipped:", "*1 x WAIVED (graph.rb: github.com unreachable): ruby is not installed",
    ])
    assert "a skip of graph.rb is a failure" not in result.stdout.str()
    monkeypatch.setenv("CI_WAIVE", "the real tier,graph.rb")  # the real tier is never waived
    result = suite.runpytest()
    assert "a skip of the real tier is a failure" in result.stdout.str()
    result.assert_outcomes(passed=1, failed=3, skipped=2, xfailed=1)
