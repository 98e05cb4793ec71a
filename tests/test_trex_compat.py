"""loadtest.trex_compat: the real T-Rex client (lbr-trex-client 3.4.0 with its bundled
scapy 2.4.3 and six 1.10.0) on whichever Python runs the suite (3.11, 3.12 or 3.13)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from loadtest import trex_compat
from tests.trex_client import require_trex_api

pytest_plugins = ["tests.trex_fixtures"]

REPO = Path(__file__).resolve().parents[1]

# What each Python lacks of what the client imports.
EXPECTED_ADDED = (
    [] if sys.version_info < (3, 12)
    else ["imp", "legacy meta-path finders"] if sys.version_info < (3, 13)
    else ["imp", "cgi", "legacy meta-path finders"]
)


def run_fresh(code: str) -> subprocess.CompletedProcess[str]:
    """code in a new interpreter (nothing installed or imported yet), from the repo."""
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def test_install_adds_exactly_what_this_python_lacks():
    proc = run_fresh(
        "import json; from loadtest import trex_compat; "
        "first = trex_compat.install(); again = trex_compat.install(); "
        "print(json.dumps([first, again]))"
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [EXPECTED_ADDED, []]  # and a second call adds nothing


def test_the_client_needs_it_from_3_12_on():
    require_trex_api()
    proc = run_fresh("import lbr_trex_client, trex.stl.api")
    if sys.version_info < (3, 12):
        assert proc.returncode == 0, proc.stderr
    else:
        assert "No module named 'scapy.modules.six.moves'" in proc.stderr


def test_stand_ins_behave_as_the_removed_functions():
    trex_compat.install()
    imp = importlib.import_module("imp")
    assert imp.reload(json) is json
    cgi = importlib.import_module("cgi")
    if "cgi" in EXPECTED_ADDED:  # our stand-in: cgi.escape as it was before 3.8 removed it
        assert cgi.escape('<a href="x">&') == '&lt;a href="x"&gt;&amp;'
        assert cgi.escape('"', quote=True) == "&quot;"
        assert cgi.escape("it's") == "it's"


def test_imp_load_source_loads_a_file_as_a_module(tmp_path):
    """imp.load_source, which the client's console plugins and EMU client call."""
    trex_compat.install()
    imp = importlib.import_module("imp")
    source = tmp_path / "plugin_x.py"
    source.write_text("ANSWER = 6 * 7\n")
    try:
        module = imp.load_source("vppcfg_test_plugin_x", str(source))
        assert module.ANSWER == 42 and sys.modules["vppcfg_test_plugin_x"] is module
    finally:
        sys.modules.pop("vppcfg_test_plugin_x", None)


class _OldStyleFinder:
    """A pre-3.4 meta-path importer (as six 1.10 has): find_module and load_module only."""

    def __init__(self, modules: dict[str, types.ModuleType]) -> None:
        self.modules = modules

    def find_module(self, fullname, path=None):
        return self if fullname in self.modules else None

    def load_module(self, fullname):
        module = self.modules[fullname]
        sys.modules[fullname] = module
        return module

    def is_package(self, fullname):
        return hasattr(self.modules[fullname], "__path__")


def test_adapter_serves_old_style_importers_and_keeps_real_modules_intact():
    import queue

    package = types.ModuleType("vppcfg_compat_demo")
    package.__path__ = []
    finder = _OldStyleFinder({"vppcfg_compat_demo": package,
                              "vppcfg_compat_demo.moved_queue": queue})
    spec_before = queue.__spec__
    adapter = trex_compat.LegacyFinderAdapter()
    sys.meta_path.extend([finder, adapter])
    try:
        demo = importlib.import_module("vppcfg_compat_demo")
        moved = importlib.import_module("vppcfg_compat_demo.moved_queue")
        assert demo is package and moved is queue
        assert queue.__spec__ is spec_before  # six hands out real modules: their spec stays
        assert adapter.find_spec("vppcfg_compat_demo.absent", None) is None
    finally:
        sys.meta_path.remove(finder)
        sys.meta_path.remove(adapter)
        for name in ("vppcfg_compat_demo", "vppcfg_compat_demo.moved_queue"):
            sys.modules.pop(name, None)


def test_scapy_builds_parses_and_writes_pcaps(tmp_path):
    api = require_trex_api()
    from scapy.utils import rdpcap, wrpcap

    frame = api.Ether() / api.IP(src="16.0.0.1", dst="48.0.0.1") / api.UDP(sport=1025,
                                                                          dport=12) / ("x" * 18)
    raw = bytes(frame)
    assert len(raw) == 60
    parsed = api.Ether(raw)
    assert parsed[api.IP].dst == "48.0.0.1" and parsed[api.UDP].dport == 12
    path = tmp_path / "two.pcap"
    wrpcap(str(path), [frame, parsed])
    assert [bytes(p) for p in rdpcap(str(path))] == [raw, raw]


def test_a_t_rex_profile_file_loads_unchanged(tmp_path):
    """T-Rex's own profile format (STLProfile.load, which reloads the module with
    imp.reload) on this Python."""
    api = require_trex_api()
    profile = tmp_path / "udp_profile.py"
    profile.write_text(
        "from trex.stl.api import STLStream, STLPktBuilder, STLTXCont, Ether, IP, UDP\n"
        "class Profile:\n"
        "    def get_streams(self, direction=0, size=64, **kwargs):\n"
        "        pkt = Ether() / IP() / UDP() / ('x' * (size - 46))\n"
        "        return [STLStream(packet=STLPktBuilder(pkt=pkt), mode=STLTXCont(pps=10))]\n"
        "def register():\n"
        "    return Profile()\n",
        encoding="utf-8",
    )
    for _ in range(2):  # the second load goes through the reload
        streams = api.STLProfile.load(str(profile), direction=0, port_id=0,
                                      size=100).get_streams()
        assert len(streams) == 1 and len(streams[0].get_pkt()) == 96


@pytest.mark.parametrize("what", ["ramp", "legacy"])
def test_trex_loadtest_on_this_python_against_the_emulator(what, tmp_path, trex_emu):
    require_trex_api()
    out = tmp_path / "run.json"
    common = ["--sync-port", str(trex_emu.rpc_port), "--async-port", str(trex_emu.pub_port)]
    if what == "ramp":
        args = ["ramp", "--server", "127.0.0.1", *common, "--profile", "64", "-b", "--rate", "1",
                "--warmup", "1", "--duration", "2", "--hold", "1"]
    else:  # the original command line with T-Rex's profile format
        args = ["-s", "127.0.0.1", *common, "-u", "-p", "examples/trex_bench.py",
                "-t", "offset=10,vm=var2,size=64", "-rd", "2", "-rt", "1"]
    proc = subprocess.run([sys.executable, "-m", "loadtest.cli", *args, "-o", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    run = json.loads(out.read_text(encoding="utf-8"))
    assert run["stats"] and run["vars"]["unidirectional"] is (what == "legacy")

