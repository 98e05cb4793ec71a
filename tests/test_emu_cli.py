"""`trex-emu` as a process: ready line, answers, clean exit on SIGTERM/SIGINT, bad input."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys

import pytest

from loadtest.emu.zmqbind import client_compatible

pytest_plugins = ["tests.trex_fixtures"]
CMD = [sys.executable, "-m", "loadtest.emu"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_ready_line_answers_and_exits_cleanly(sig):
    zmq = client_compatible()
    rpc, pub = free_port(), free_port()
    proc = subprocess.Popen([*CMD, "--rpc-port", str(rpc), "--pub-port", str(pub),
                             "--capacity-pps", "1e6", "--time-scale", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ctx = zmq.Context()
    req = ctx.socket(zmq.REQ)
    try:
        ready = proc.stdout.readline()
        assert ready.startswith("trex-emu ready:") and f":{rpc} " in ready
        assert "capacity-pps 1e+06/1e+06" in ready
        req.setsockopt(zmq.RCVTIMEO, 5000)
        req.connect(f"tcp://127.0.0.1:{rpc}")
        req.send(b'{"jsonrpc": "2.0", "id": 1, "method": "get_version", "params": {}}')
        assert json.loads(req.recv())["result"]["version"] == "v3.08"
        proc.send_signal(sig)
        assert proc.wait(timeout=10) == (130 if sig == signal.SIGINT else 0)  # Ctrl-C: 130
    finally:
        req.close(linger=0)
        ctx.term()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)


def test_bad_input_is_one_line_and_exit_2():
    bad = subprocess.run([*CMD, "--time-scale", "0"], capture_output=True, text=True,
                         timeout=30)
    assert bad.returncode == 2 and "--time-scale" in bad.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        clash = subprocess.run([*CMD, "--rpc-port", str(port), "--pub-port", str(free_port())],
                               capture_output=True, text=True, timeout=30)
    assert clash.returncode == 2
    assert clash.stderr.count("\n") == 1 and "cannot bind" in clash.stderr


def test_time_scale_drives_the_server_clock(trex_emu_factory):
    """ping's ts is emulated uptime: at time scale 50, 0.2 s of wall time is ~10 s."""
    import time

    emu = trex_emu_factory(time_scale=50)
    zmq = client_compatible()
    ctx = zmq.Context()
    req = ctx.socket(zmq.REQ)
    try:
        req.setsockopt(zmq.RCVTIMEO, 5000)
        req.connect(f"tcp://127.0.0.1:{emu.rpc_port}")

        def ping() -> float:
            req.send(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}')
            return json.loads(req.recv())["result"]["ts"]

        first = ping()
        time.sleep(0.2)
        assert 8 < ping() - first < 20
    finally:
        req.close(linger=0)
        ctx.term()
