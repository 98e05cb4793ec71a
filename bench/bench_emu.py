"""What trex-emu costs while "sending" line rate: prints figures, asserts nothing.

    python bench/bench_emu.py [SECONDS]

Starts `trex-emu` as a child process, drives it with the real T-Rex client at 100 % of
10GbE with 64 B frames (14.88 Mpps) on both ports for SECONDS (default 5) of wall time,
polling get_stats() ten times a second like a busy harness. Prints the emulator's CPU
time (from the child's rusage), the client's get_stats() round trip, and the counters.
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from loadtest.client import load_api

# the client as trex-loadtest loads it (with loadtest.trex_compat on Python 3.12+)
_api = load_api()
STLClient, STLPktBuilder, STLStream, STLTXCont = (
    _api.STLClient, _api.STLPktBuilder, _api.STLStream, _api.STLTXCont)

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main(seconds: float = 5.0) -> None:
    from scapy.all import IP, UDP, Ether

    rpc, pub = free_port(), free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "loadtest.emu", "--rpc-port", str(rpc),
                             "--pub-port", str(pub), "--capacity-pps", "1.23e6"],
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        print(proc.stdout.readline().strip())
        client = STLClient(server="127.0.0.1", sync_port=rpc, async_port=pub,
                           verbose_level="error")
        client.connect()
        client.reset(ports=[0, 1])
        pkt = Ether() / IP(src="16.0.0.1", dst="48.0.0.1") / UDP(sport=1025, dport=12)
        stream = STLStream(packet=STLPktBuilder(pkt=pkt / ("x" * 18)), mode=STLTXCont(pps=1))
        client.add_streams(stream, ports=[0, 1])
        client.start(ports=[0, 1], mult="100%")
        rtts = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t0 = time.perf_counter()
            stats = client.get_stats()
            rtts.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.1)
        client.stop(ports=[0, 1])
        client.release(ports=[0, 1])
        client.disconnect()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, status, usage = os.wait4(proc.pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    print(f"wall seconds of line-rate traffic   {seconds:10.1f}")
    share = 100 * cpu / seconds
    print(f"emulator CPU seconds (whole run)    {cpu:10.2f}  ({share:.0f} % of one core)")
    print(f"emulator peak RSS                   {usage.ru_maxrss / 1024:10.1f} MiB")
    print(f"get_stats() calls                   {len(rtts):10d}")
    print(f"get_stats() round trip, median      {statistics.median(rtts):10.2f} ms")
    print(f"get_stats() round trip, max         {max(rtts):10.2f} ms")
    print(f"port 0 opackets at the last sample  {stats[0]['opackets']:10,d}")
    print(f"port 1 ipackets (DUT 1.23 Mpps)     {stats[1]['ipackets']:10,d}")
    print(f"exit status                         {os.waitstatus_to_exitcode(status):10d}")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)
