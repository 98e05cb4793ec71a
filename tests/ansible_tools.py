"""Running the Ansible collection from tests: ansible-core from the venv,
the collection from the repository, routers as vppcfg-sim processes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from vppcfg.sim.codec import DEFAULT_API_DIR

ROOT = Path(__file__).resolve().parents[1]
COLLECTIONS = ROOT / "ansible"
COLLECTION = COLLECTIONS / "ansible_collections" / "vppcfg" / "vppcfg"
FLEET = ROOT / "examples" / "fleet"
SIM_INVENTORY = ROOT / "examples" / "sim" / "inventory.yaml"
BIN = Path(sys.executable).parent
RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)",
                   re.M)


def ansible_bin(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed (pip install -e '.[test]' brings ansible-core)")
    return str(path)


def ansible_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of an ansible run: our collection, a private ANSIBLE_HOME."""
    env = dict(os.environ)
    env.update(
        LC_ALL="C.UTF-8",  # ansible-core refuses other locale encodings
        ANSIBLE_HOME=str(home),
        ANSIBLE_LOCAL_TEMP=str(home / "tmp"),
        ANSIBLE_COLLECTIONS_PATH=str(COLLECTIONS),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_DEPRECATION_WARNINGS="0",
        VPPCFG_JSON_DIR=str(DEFAULT_API_DIR),
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
    )
    env.update(extra)
    return env


def fleet_playbook(run_dir: Path, *args: str,
                   **env: str) -> subprocess.CompletedProcess[str]:
    """Run examples/fleet/playbook.yaml with the routers' sockets in RUN_DIR."""
    return subprocess.run(
        [ansible_bin("ansible-playbook"), "playbook.yaml", "-e", f"fleet_run_dir={run_dir}",
         "-e", "vppcfg_confirm_seconds=60", *args],
        cwd=FLEET, env=ansible_env(run_dir / "ansible-home",
                                   ANSIBLE_CONFIG=str(FLEET / "ansible.cfg"), **env),
        capture_output=True, text=True, timeout=300,
    )


def recap(output: str) -> dict[str, dict[str, int]]:
    """PLAY RECAP per host: {host: {ok, changed, unreachable, failed}}."""
    return {
        m[1]: dict(zip(("ok", "changed", "unreachable", "failed"), map(int, m.groups()[1:]),
                       strict=True))
        for m in RECAP.finditer(output)
    }


@dataclass
class SimRouter:
    name: str
    socket: str
    process: subprocess.Popen

    def dump(self):
        from vppcfg.vpp import VppConnection

        with VppConnection.open(self.socket, str(DEFAULT_API_DIR)) as conn:
            return conn.dump()


@contextmanager
def sim_routers(run_dir: Path, names: list[str],
                fail_after: dict[str, int] | None = None) -> Iterator[dict[str, SimRouter]]:
    """One `vppcfg-sim` process per router, with the example inventory's PHYs,
    its socket at RUN_DIR/NAME.sock as the fleet inventory expects."""
    routers: dict[str, SimRouter] = {}
    try:
        for name in names:
            socket, ready = run_dir / f"{name}.sock", run_dir / f"{name}.ready"
            argv = [sys.executable, "-m", "vppcfg.sim", "--socket", str(socket),
                    "--inventory", str(SIM_INVENTORY), "--ready-file", str(ready)]
            if fail_after and name in fail_after:
                argv += ["--fail-after", str(fail_after[name])]
            process = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
            routers[name] = SimRouter(name, str(socket), process)
        for name, router in routers.items():
            _wait_ready(run_dir / f"{name}.ready", router.process)
        yield routers
    finally:
        for router in routers.values():
            router.process.terminate()
        for router in routers.values():
            try:
                router.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                router.process.kill()


def _wait_ready(ready: Path, process: subprocess.Popen, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not ready.exists():
        if process.poll() is not None:
            raise RuntimeError(f"vppcfg-sim exited with {process.returncode}")
        if time.monotonic() > end:
            raise RuntimeError("vppcfg-sim did not get ready")
        time.sleep(0.05)


def module_result(tree: Path, host: str = "localhost") -> dict:
    """The result an ad-hoc `ansible -t TREE` run wrote for HOST."""
    return json.loads((tree / host).read_text(encoding="utf-8"))
