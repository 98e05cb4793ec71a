"""The VPP releases the simulator can play, and how they differ.

Each release serves its own API definitions (vppcfg/sim/api/<release>/, generated
from FDio/vpp's tag with that release's vppapigen: scripts/gen_sim_api.py) and
loads the plugin models that release has. What differs between releases in what
vppcfg uses, as read from the release tags (and for 26.06 and 26.10 also seen on
the real builds in ../shared):

* sFlow: the plugin first appears in 25.02; 24.10 has no sflow_* message at all.
  sflow_direction_* and sflow_drop_monitoring_* appear in 25.10.
* tap v2: core VPP up to 25.10 (src/vnet/devices/tap), the separate tap_plugin.so
  from 26.02 (its messages move into a plugin message-id block). Only from 26.02
  can a startup.conf leave it out.
* linux_cp: in every release, disabled by default (startup.conf must enable it);
  the simulator loads it unless told otherwise (--disable-plugin linux_cp), as
  the VPPs vppcfg is tested on enable it.
* every message vppcfg sends or reads has the same name and CRC in all of them.

This module is the simulator's own record (it stays an independent oracle: it
does not read vppcfg's declarations). Add a finding here as a new field or
note of `Release`, with where it was seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vppcfg.sim.codec import API_ROOT
from vppcfg.sim.core import common
from vppcfg.sim.core.version import VERSION
from vppcfg.sim.dataplane import PLUGINS

LATEST = "26.10"


@dataclass(frozen=True)
class Release:
    name: str  # "24.10"
    plugins: tuple[str, ...]  # the simulator's plugin models this release has
    # VPP plugin name -> the simulator's model, for what a startup.conf can leave out
    optional: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def api_dir(self) -> Path:
        return API_ROOT / self.name

    @property
    def version(self) -> str:
        """What show_version answers: a release build says "26.06-release" (as
        vpp-real-26.06 does); 26.10 is the recorded development build."""
        return VERSION["version"] if self.name == LATEST else f"{self.name}-release"


# VPP's plugin names (and the .so a startup.conf names) -> the simulator's model
_PLUGIN_MODELS = {"linux_cp": "lcp", "sflow": "sflow", "acl": "acl", "vxlan": "vxlan",
                  "tap": "tap"}


def _release(name: str, sflow: bool = True, tap_plugin: bool = True) -> Release:
    plugins = tuple(p for p in PLUGINS if sflow or p != "sflow")
    optional = {vpp: sim for vpp, sim in _PLUGIN_MODELS.items() if sim in plugins}
    notes: list[str] = []
    if not sflow:
        notes.append("no sFlow plugin (first in 25.02)")
    if not tap_plugin:
        del optional["tap"]  # core VPP: always there
        notes.append("tap v2 is core VPP (tap_plugin.so from 26.02)")
    return Release(name, plugins, optional, tuple(notes))


RELEASES: dict[str, Release] = {
    "24.10": _release("24.10", sflow=False, tap_plugin=False),
    "25.02": _release("25.02", tap_plugin=False),
    "25.06": _release("25.06", tap_plugin=False),
    "25.10": _release("25.10", tap_plugin=False),
    "26.02": _release("26.02"),
    "26.06": _release("26.06"),
    "26.10": _release("26.10"),
}


class ReleaseError(ValueError):
    """An unknown release, or a plugin the release cannot go without."""


def get(name: str) -> Release:
    try:
        return RELEASES[name]
    except KeyError:
        raise ReleaseError(f"unknown VPP release {name!r} (known: "
                           f"{', '.join(RELEASES)})") from None


def dress(model: Any, release: Release) -> Any:
    """Make a SimDataplane (built with `plugin_models`) answer show_version as
    `release` does."""
    if release.name != LATEST:
        answer = {**VERSION, "version": release.version, "build_date": ""}
        model.handlers["show_version"] = lambda state, args: common.reply(**answer)
    return model


def plugin_models(release: Release, disabled: list[str]) -> list[str]:
    """The plugin models to load: the release's, less the VPP plugins named in
    `disabled` (by VPP's name, "linux_cp", or its file, "linux_cp_plugin.so")."""
    drop: set[str] = set()
    for name in disabled:
        vpp = name.removesuffix(".so").removesuffix("_plugin")
        if vpp == "tap" and "tap" not in release.optional and "tap" in release.plugins:
            raise ReleaseError(f"tap is part of core VPP in {release.name} "
                               "(a plugin from 26.02): it cannot be disabled")
        model = release.optional.get(vpp)
        if model is None:
            raise ReleaseError(f"VPP {release.name} has no plugin {name!r} the simulator "
                               f"models (known: {', '.join(sorted(release.optional))})")
        drop.add(model)
    return [p for p in release.plugins if p not in drop]
