"""T-Rex stateless profile files (`.py` with `register()`), loaded by the client's own loader.

A profile file is what T-Rex users already have: `register()` returns an object
whose `get_streams(port_id, direction, tunables, **kwargs)` builds the streams.
Tunables are given as the T-Rex console takes them (`-t size=64,vm=var2`) and
are handed over in both forms the console uses: the decoded key/value pairs as
keyword arguments (old-style profiles) and the argparse list `tunables`
(`["--size", "64", ...]`, T-Rex 3.x profiles).

The harness needs three facts from the streams: frame sizes and relative rates
(for line rate and the multiplier), and the address/port ranges the field
engine walks (to state the flow count).
"""

from __future__ import annotations

import contextlib
import importlib
import io
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import ModuleType

from loadtest.linerate import FCS_BYTES, PREAMBLE_IFG_BYTES, SizeMix


class ProfileFileError(ValueError):
    """A profile file that cannot be loaded or used; the text names the file."""


@dataclass(frozen=True)
class FlowRange:
    """One field-engine variable: how many values it walks."""

    name: str
    count: int


@dataclass(frozen=True)
class FileProfile:
    """A loaded profile file: its streams per direction and what they send."""

    path: str
    tunables: str
    streams: tuple[tuple, tuple]  # STLStream objects of direction 0 and 1
    mix: SizeMix  # of direction 0
    ranges: tuple[FlowRange, ...]  # of direction 0

    @property
    def name(self) -> str:
        """The grouping name: the file, plus the tunables when given."""
        return f"{self.path} {self.tunables}" if self.tunables else self.path

    @property
    def flow_count(self) -> int:
        count = 1
        for rng in self.ranges:
            count *= rng.count
        return count


def is_profile_file(profile: str) -> bool:
    return profile.endswith(".py")


def tunable_args(api: ModuleType, text: str) -> dict:
    """The keyword arguments T-Rex's console passes a profile for `-t TEXT`."""
    if not text:
        return {"tunables": []}
    parsing = importlib.import_module(api.__name__.rsplit(".", 2)[0] + ".utils.parsing_opts")
    try:
        decoded = parsing.decode_tunables(text)
    except Exception as err:  # argparse.ArgumentTypeError: "bad syntax for tunables: x"
        raise ProfileFileError(f"-t {text!r}: {err}") from None
    listed = parsing.convert_old_tunables_to_new_tunables(text)
    return {**decoded, "tunables": listed}


def load_profile(api: ModuleType, path: str, tunables: str = "",
                 ports: tuple[int, int] = (0, 1)) -> FileProfile:
    """Load `path` for both directions with the client's STLProfile.load."""
    if not Path(path).is_file():
        raise ProfileFileError(f"{path}: no such profile file")
    kwargs = tunable_args(api, tunables)
    loaded = tuple(_load_direction(api, path, kwargs, d, ports[d]) for d in (0, 1))
    return FileProfile(path, tunables, loaded, stream_mix(path, loaded[0]),
                       flow_ranges(loaded[0]))


def _load_direction(api: ModuleType, path: str, kwargs: dict, direction: int,
                    port_id: int) -> tuple:
    out = io.StringIO()
    try:
        # the profile's own argparse prints its errors and usage; keep them for the message
        with contextlib.redirect_stderr(out), contextlib.redirect_stdout(out):
            profile = api.STLProfile.load(path, direction=direction, port_id=port_id,
                                          **dict(kwargs, tunables=list(kwargs["tunables"])))
    except api.STLError as err:
        raise ProfileFileError(f"{path}: {_last_line(str(err), out.getvalue())}") from None
    if profile is None:  # the profile's argparse exited (bad tunable, or -t help)
        raise ProfileFileError(f"{path}: tunables refused: {_last_line('', out.getvalue())}")
    streams = tuple(profile.get_streams())
    if not streams:
        raise ProfileFileError(f"{path}: direction {direction} has no streams")
    return streams


def _last_line(*texts: str) -> str:
    lines = [line.strip() for text in texts for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "unknown error"


def stream_pps(path: str, stream) -> Fraction:
    """A stream's own rate in packets per second (its rate before the multiplier)."""
    rate = stream.to_json()["mode"]["rate"]
    frame = len(stream.get_pkt()) + FCS_BYTES
    value = Fraction(str(rate["value"]))
    kind = rate["type"]
    if kind == "pps":
        return value
    if kind == "bps_L1":
        return value / ((frame + PREAMBLE_IFG_BYTES) * 8)
    if kind == "bps_L2":
        return value / (frame * 8)
    raise ProfileFileError(f"{path}: stream {stream.get_name() or '?'} gives its rate as "
                           f"{kind}; use pps, bps_L1 or bps_L2 so rates mean the same on any link")


def stream_mix(path: str, streams: tuple) -> SizeMix:
    """(frame size incl. FCS, rate) of every stream that starts by itself."""
    mix = []
    for stream in streams:
        js = stream.to_json()
        if not js.get("enabled", True) or not js.get("self_start", True):
            continue
        if js["mode"].get("type") != "continuous":
            raise ProfileFileError(f"{path}: stream {stream.get_name() or '?'} is a burst; a "
                                   "ramp needs continuous streams")
        mix.append((len(stream.get_pkt()) + FCS_BYTES, stream_pps(path, stream)))
    if not mix:
        raise ProfileFileError(f"{path}: no stream starts by itself")
    return tuple(mix)


def flow_ranges(streams: tuple) -> tuple[FlowRange, ...]:
    """The field-engine variables of the first stream that has any (flows it walks)."""
    for stream in streams:
        ranges = []
        for ins in stream.to_json().get("vm", {}).get("instructions", []):
            if ins.get("type") == "flow_var" and "min_value" in ins:
                step = max(int(ins.get("step", 1) or 1), 1)
                count = (int(ins["max_value"]) - int(ins["min_value"])) // step + 1
                if count > 1:
                    ranges.append(FlowRange(str(ins.get("name", "var")), count))
            elif ins.get("type") == "tuple_flow_var":
                ips = int(ins["ip_max"]) - int(ins["ip_min"]) + 1
                ports = int(ins["port_max"]) - int(ins["port_min"]) + 1
                ranges.append(FlowRange(f"{ins.get('name', 'tuple')} ip", ips))
                ranges.append(FlowRange(f"{ins.get('name', 'tuple')} port", ports))
        if ranges:
            return tuple(ranges)
    return ()


def with_flow_stats(api: ModuleType, streams: tuple, pg_id: int) -> list:
    """Copies of `streams` counting in flow statistics group `pg_id`; streams that already
    count in a group of their own (e.g. latency streams) keep it."""
    out = []
    for stream in streams:
        js = stream.to_json()
        if not js.get("flow_stats", {}).get("enabled"):
            js["flow_stats"] = api.STLFlowStats(pg_id=pg_id).to_json()
        out.append(api.STLStream.from_json(js))
    return out
