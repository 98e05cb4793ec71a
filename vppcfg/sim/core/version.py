"""Messages about VPP itself: show_version, show_threads, control_ping, the (empty) span dump."""

from __future__ import annotations

import os
from typing import Any

from vppcfg.sim.core import common as c
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import SimState

# The build the reference traces were recorded from.
VERSION = {
    "program": "vpe",
    "version": "26.10-rc0~374-gb575ec2c56d",
    "build_date": "2026-11-22T10:54:13",
    "build_directory": "",
}


def show_version(state: SimState, args: dict[str, Any]) -> Response:
    return c.reply(**VERSION)


def control_ping(state: SimState, args: dict[str, Any]) -> Response:
    return c.reply(client_index=0, vpe_pid=os.getpid())


def show_threads(state: SimState, args: dict[str, Any]) -> Response:
    main = {"id": 0, "name": "vpp_main", "type": "", "pid": os.getpid(), "cpu_id": 1,
            "core": 1, "cpu_socket": 0}  # fmt: skip
    return c.reply(count=1, thread_data=[main])


def sw_interface_span_dump(state: SimState, args: dict[str, Any]) -> Response:
    return c.details([])  # no port mirroring in this model


HANDLERS = {
    "show_version": show_version,
    "control_ping": control_ping,
    "show_threads": show_threads,
    "sw_interface_span_dump": sw_interface_span_dump,
}
