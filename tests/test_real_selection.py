"""Which real VPPs the real tier runs on (VPPCFG_REAL_VPP): no VPP needed."""

from __future__ import annotations

import pytest

from tests.real import VPP_RELEASES, selected_releases


def test_both_releases_by_default(monkeypatch):
    monkeypatch.delenv("VPPCFG_REAL_VPP", raising=False)
    assert [r.name for r in selected_releases()] == ["26.10", "26.06"]


def test_one_release_or_both_in_any_order():
    assert [r.name for r in selected_releases("26.06")] == ["26.06"]
    assert [r.name for r in selected_releases(" 26.06 , 26.10 ")] == ["26.06", "26.10"]


@pytest.mark.parametrize("spec", ["26.02", "26.10,2606", "", ","])
def test_an_unknown_release_is_named_with_the_choices(spec):
    with pytest.raises(ValueError, match=r"VPPCFG_REAL_VPP=.*choose from 26\.10, 26\.06"):
        selected_releases(spec)


def test_each_release_has_its_own_runner():
    scripts = {r.script for r in VPP_RELEASES.values()}
    assert len(scripts) == len(VPP_RELEASES)
    assert all(s.name == "vpp-real" for s in scripts)
