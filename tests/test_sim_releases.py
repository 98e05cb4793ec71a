"""The simulator plays VPP releases (vppcfg.sim.releases): each serves its own
API definitions (generated from FDio/vpp's tags) and its own plugins.

Against every release: the examples go check -> plan -> apply -> plan (empty)
-> dump (and the dump plans to nothing), and a short random walk (tests/walk.py)
converges at every step. Against 24.10 the preflight refuses a config with
sFlow before any change. The shipped 26.06 set is compared with the API
definitions the real 26.06 build in ../shared installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import SHARED, SimHandle
from tests.walk import walk
from vppcfg import config
from vppcfg.cli import main
from vppcfg.sim.codec import ApiDefinitions
from vppcfg.sim.dataplane import SimDataplane
from vppcfg.sim.inventory import default_inventory
from vppcfg.sim.releases import RELEASES, ReleaseError, dress, get, plugin_models
from vppcfg.vpp import VppConnection
from vppcfg.vpp.definitions import api_messages

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ROUTER = EXAMPLES / "router.yaml"
NAMES = list(RELEASES)


def _sim(factory: Callable[..., SimHandle], release: str, disabled: tuple[str, ...] = ()
         ) -> SimHandle:
    rel = get(release)
    model = SimDataplane(default_inventory(), plugins=plugin_models(rel, list(disabled)))
    return factory(handler=dress(model, rel), api_dir=rel.api_dir)


def _without_sflow(text: str) -> str:
    """The config with every sFlow setting left out (24.10 has no sFlow)."""
    data = yaml.safe_load(text)
    data.pop("sflow", None)
    for section in data.values():
        for body in (section or {}).values() if isinstance(section, dict) else ():
            if isinstance(body, dict):
                body.pop("sflow", None)
    return yaml.safe_dump(data, sort_keys=False)


def _messages(api_dir: Path) -> dict[str, tuple[str, str]]:
    """message -> (CRC, "core" or "plugins") over a definitions directory."""
    out = {}
    for path in api_dir.rglob("*.api.json"):
        for message in json.loads(path.read_text())["messages"]:
            out[message[0]] = (message[-1]["crc"], path.parent.name)
    return out


# -- the definitions ---------------------------------------------------------------


@pytest.mark.parametrize("release", NAMES)
def test_each_release_loads_and_numbers_like_vpp(release: str) -> None:
    api = ApiDefinitions(get(release).api_dir)
    modules = {m.name: m for m in api.modules}
    assert api.ids["sockclnt_create"] == 15
    assert ("sflow" in modules) is (release != "24.10")
    assert modules["tapv2"].plugin is (release >= "26.02")
    assert modules["interface"].plugin is False and modules["lcp"].plugin is True


def test_every_message_vppcfg_uses_is_the_same_in_every_release() -> None:
    """What the issue measured, kept true by the shipped sets: a message vppcfg
    declares has one CRC in every release that has it; only sFlow's are absent
    (24.10)."""
    latest = _messages(get("26.10").api_dir)
    for release in NAMES:
        ours = _messages(get(release).api_dir)
        absent = {m for m in api_messages() if m in latest and m not in ours}
        assert absent == ({m for m in api_messages() if m.startswith("sflow_")}
                          if release == "24.10" else set()), release
        differ = {m for m in api_messages() if m in ours and ours[m][0] != latest[m][0]}
        assert not differ, (release, differ)


def test_the_26_06_set_is_the_real_26_06_build_s() -> None:
    real = SHARED / "vpp-real-26.06" / "install" / "share" / "vpp" / "api"
    if not real.is_dir():
        pytest.skip("../shared/vpp-real-26.06 is not available")
    theirs = _messages(real)
    ours = _messages(get("26.06").api_dir)
    assert len(ours) > 150
    assert {m: v for m, v in ours.items() if theirs.get(m) != v} == {}


# -- the switches --------------------------------------------------------------------


def test_plugins_a_release_can_go_without() -> None:
    assert "lcp" not in plugin_models(get("24.10"), ["linux_cp"])
    assert "lcp" not in plugin_models(get("26.06"), ["linux_cp_plugin.so"])
    assert "sflow" not in plugin_models(get("24.10"), [])
    assert "tap" not in plugin_models(get("26.02"), ["tap"])
    with pytest.raises(ReleaseError, match=r"core VPP in 25\.10"):
        plugin_models(get("25.10"), ["tap"])
    with pytest.raises(ReleaseError, match="no plugin 'sflow'"):
        plugin_models(get("24.10"), ["sflow"])
    with pytest.raises(ReleaseError, match="unknown VPP release"):
        get("23.10")


def test_vppcfg_sim_release_switch(tmp_path: Path) -> None:
    """`vppcfg-sim --release 24.10 --disable-plugin linux_cp` serves 24.10 without lcp."""
    sock = tmp_path / "api.sock"
    with _process(["--socket", str(sock), "--release", "24.10", "--disable-plugin",
                   "linux_cp", "--no-stats"], sock) as line:
        assert "(VPP 24.10;" in line and "api/24.10)" in line
        with VppConnection.open(sock, get("24.10").api_dir) as conn:
            offer = conn.offer()
            assert conn.call("show_version").version == "24.10-release"
    assert "sw_interface_dump" in offer.usable and "tap_create_v2" in offer.usable
    assert not {"lcp_itf_pair_get", "sflow_enable_disable"} & offer.usable
    bad = subprocess.run([sys.executable, "-m", "vppcfg.sim", "--socket", str(sock),
                          "--release", "25.06", "--disable-plugin", "tap", "--no-stats"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "tap is part of core VPP in 25.06" in bad.stderr


@contextmanager
def _process(args: list[str], sock: Path) -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, "-m", "vppcfg.sim", *args],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert sock.exists(), line
        yield line
    finally:
        proc.terminate()
        proc.wait(10)


# -- the examples and the walk on every release --------------------------------------


def _apply(sim: SimHandle, text: str, tmp_path: Path, name: str) -> Any:
    from vppcfg.apply import apply_config

    desired = config.loads(text, filename=name)
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        outcome = apply_config(conn, desired)
        assert outcome.ok, outcome.error
        return desired, conn.dump()


@pytest.mark.parametrize("release", NAMES)
def test_examples_converge_and_dump_back(vpp_sim_factory: Callable[..., SimHandle],
                                         release: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from vppcfg.commands.dump import render
    from vppcfg.planner import plan

    sim = _sim(vpp_sim_factory, release)
    for example in ("router.yaml", "acl.yaml", "l2xc.yaml", "routed-lcp.yaml"):
        text = (EXAMPLES / example).read_text()
        if release == "24.10":
            text = _without_sflow(text)
        path = tmp_path / example
        path.write_text(text)
        assert main(["check", str(path)]) == 0
        args = ["-c", str(path), "--vpp-api-socket", sim.socket, "--vpp-json-dir",
                str(sim.api_dir)]
        assert main(["plan", *args, "--detailed-exitcode"]) in (0, 2)
        desired, live = _apply(sim, text, tmp_path, str(path))
        assert plan(desired, live) == [], (release, example)
        dumped = config.loads(render(live), filename="dump.yaml")
        assert plan(dumped, live) == [], (release, example)
    capsys.readouterr()


@pytest.mark.parametrize("release", NAMES)
def test_a_short_walk_converges(vpp_sim_factory: Callable[..., SimHandle],
                                release: str, tmp_path: Path) -> None:
    from vppcfg.planner import plan

    sim = _sim(vpp_sim_factory, release)
    phys = [p.name for p in default_inventory()]
    for step in walk(seed=1810 + NAMES.index(release), phys=phys, steps=6):
        text = _without_sflow(step.text) if release == "24.10" else step.text
        desired, live = _apply(sim, text, tmp_path, f"walk-{step.n}.yaml")
        assert plan(desired, live) == [], (release, step.n, text)


# -- the preflight on 24.10 -------------------------------------------------------------


def test_24_10_refuses_sflow_before_any_change(vpp_sim_factory: Callable[..., SimHandle],
                                               tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    sim = _sim(vpp_sim_factory, "24.10")
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        before = conn.dump()
    code = main(["apply", "-c", str(ROUTER), "--vpp-api-socket", sim.socket,
                 "--vpp-json-dir", str(sim.api_dir), "--lock-file", str(tmp_path / "lock"),
                 "--state-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1 and sim.dataplane.mutations == 0
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        assert conn.dump() == before
    assert "this VPP lacks the sFlow plugin (sflow_plugin.so, first in VPP 25.02)" in err
    assert "plugins { plugin sflow_plugin.so { enable } }" in err
    assert f"{ROUTER}:15: create sflow-interface interfaces/GigabitEthernet3/0/0/sflow" in err
    assert f"{ROUTER}:92: update sflow sflow" in err
    assert "Linux Control Plane" not in err  # only what this VPP lacks
    # the dump says it could not read sFlow, and why
    assert main(["dump", "--vpp-api-socket", sim.socket, "--vpp-json-dir",
                 str(sim.api_dir)]) == 0
    assert "not read: sflow: this VPP lacks the sFlow plugin" in capsys.readouterr().err
