"""Opening a netns must never run vppcfg's signal handlers elsewhere nor lose
a signal. pyroute2's NetNS forks a child that hands the socket back and is
sent SIGTERM at once; the child inherited vppcfg apply's handlers (SignalGuard
raises Interrupted), and more than half of the opens let it unwind a copy of
vppcfg (seen on the real VPP: `vppcfg apply --linux-side manage` failing
"interrupted by SIGTERM" with its API socket closed under it). The backend now
enters the netns with setns(2) in this thread instead (no child). Needs root
(a netns); a subprocess runs the opens, so a child that escapes never runs
pytest. The opens both read and write (the two sockets the backend makes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.real import Netns, namespaces_usable

pytestmark = [pytest.mark.real,  # root and a netns, like the real tier
              pytest.mark.skipif(not namespaces_usable(), reason="needs root and iproute2")]

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import os, signal, sys, threading
from vppcfg.apply.signals import Interrupted, SignalGuard
from vppcfg.linux.netlink import Netlink

ns, parent = sys.argv[1], os.getpid()

def open_once():
    backend = Netlink()
    try:
        backend.links(ns)
        backend.set_link(ns, "lo", state="up")
    finally:
        backend.close()

with SignalGuard("test") as guard:
    for run in range(25):
        try:
            open_once()
        except Interrupted:
            if os.getpid() != parent:
                print(f"a forked child ran the handler (open {run})", flush=True)
                os._exit(7)
            raise
    print("opens: clean", flush=True)
    # a signal meant for this process during an open still arrives
    threading.Timer(0.05, lambda: os.kill(parent, signal.SIGTERM)).start()
    try:
        for _ in range(200):
            open_once()
        print("SIGTERM lost", flush=True)
    except Interrupted:
        print("SIGTERM kept", flush=True)
"""


def test_the_forked_child_never_runs_vppcfgs_handlers() -> None:
    pytest.importorskip("pyroute2")
    ns = Netns()
    try:
        proc = subprocess.run([sys.executable, "-c", SCRIPT, ns.name], capture_output=True,
                              text=True, timeout=120, cwd=ROOT)
    finally:
        ns.close()
    assert proc.stdout.splitlines() == ["opens: clean", "SIGTERM kept"], proc.stdout + proc.stderr
