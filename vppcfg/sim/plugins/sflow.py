"""sFlow: global sampling settings and per-interface enablement.

Observed VPP behaviour modelled here: defaults sampling_N 10000, polling_S 20,
header_B 128, sampling_D 1, drop_M 0; setters accept any value (rate 0 too),
but header_B is kept rounded up to a multiple of 32 within 64-256 (100 -> 128,
1 -> 64, 300 -> 256, as vpp-real does); the getters' replies carry only the
value. sflow_enable_disable's field is named hw_if_index, but VPP reads it as
a sw_if_index (sflow.c checks the sw interface pool and wants a hardware-type
interface, not a sub-interface) and keys the enablement by that interface's
hw_if_index, which is what sflow_interface_dump reports. Unknown or sub-interface -> -2, enabling an
enabled one or disabling a disabled one -> -81 (VALUE_EXIST). Loopbacks are
accepted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vppcfg.sim.plugins._util import (
    INVALID_SW_IF_INDEX,
    OK,
    VALUE_EXIST,
    details,
    is_sub,
    reply,
)
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import NONE_INDEX, SimState

DEFAULTS = {"sampling_N": 10000, "polling_S": 20, "header_B": 128, "sampling_D": 1, "drop_M": 0}


@dataclass
class SflowState:
    settings: dict[str, int] = field(default_factory=lambda: dict(DEFAULTS))
    enabled: set[int] = field(default_factory=set)  # hw_if_index


def sflow(state: SimState) -> SflowState:
    data = state.plugins.get("sflow")
    if data is None:
        data = state.plugins["sflow"] = SflowState()
    return data


def _getter(field_name: str) -> Callable[[SimState, dict[str, Any]], Response]:
    def get(state: SimState, args: dict[str, Any]) -> Response:
        return Response(reply={field_name: sflow(state).settings[field_name]})
    return get


def _setter(field_name: str) -> Callable[[SimState, dict[str, Any]], Response]:
    def set_(state: SimState, args: dict[str, Any]) -> Response:
        value = args.get(field_name, 0)
        if field_name == "header_B":
            value = min(max(-(-value // 32) * 32, 64), 256)
        sflow(state).settings[field_name] = value
        return reply(OK)
    return set_


def sflow_enable_disable(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.interfaces.get(args.get("hw_if_index", NONE_INDEX))  # a sw_if_index really
    if itf is None or is_sub(itf):
        return reply(INVALID_SW_IF_INDEX)
    hw_if_index = itf.hw_if_index
    enabled = sflow(state).enabled
    enable = bool(args.get("enable_disable", True))
    if enable == (hw_if_index in enabled):
        return reply(VALUE_EXIST)
    if enable:
        enabled.add(hw_if_index)
    else:
        enabled.discard(hw_if_index)
    return reply(OK)


def sflow_interface_dump(state: SimState, args: dict[str, Any]) -> Response:
    wanted = args.get("hw_if_index", NONE_INDEX)
    rows = [{"hw_if_index": hw} for hw in sorted(sflow(state).enabled)
            if wanted in (NONE_INDEX, hw)]
    return details(rows)


def _on_delete(state: SimState, sw_if_index: int) -> None:
    itf = state.interfaces.get(sw_if_index)
    if itf is not None and not is_sub(itf):
        sflow(state).enabled.discard(itf.hw_if_index)


def install(state: SimState) -> None:
    sflow(state)
    state.on_delete.append(_on_delete)


_NAMES = {"sampling_rate": "sampling_N", "polling_interval": "polling_S",
          "header_bytes": "header_B", "direction": "sampling_D", "drop_monitoring": "drop_M"}

HANDLERS: dict[str, Callable[[SimState, dict[str, Any]], Response]] = {
    "sflow_enable_disable": sflow_enable_disable,
    "sflow_interface_dump": sflow_interface_dump,
    **{f"sflow_{name}_get": _getter(f) for name, f in _NAMES.items()},
    **{f"sflow_{name}_set": _setter(f) for name, f in _NAMES.items()},
}
