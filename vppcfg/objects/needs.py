"""What an object type needs from VPP: the API messages it sends and reads,
and the plugin each belongs to.

Every descriptor declares `uses` (the messages its operations send, per
action) and `reads` (the dumps that read it back). The registry's union is
the list of messages the client loads (vppcfg.vpp.definitions) and what the
preflight (vppcfg.vpp.preflight) checks against the connected VPP before a
change starts. Facts about plugins (first release, startup.conf stanza) are
read from FDio/vpp's release tags; see docs/user-guide.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from vppcfg.ops import VppContext
from vppcfg.vpp_numbers import NONE_INDEX

ALL_ACTIONS = ("create", "update", "delete")
CREATE, UPDATE, DELETE = ("create",), ("update",), ("delete",)


@dataclass(frozen=True, slots=True)
class Plugin:
    """Where VPP's messages for a feature come from."""

    name: str  # VPP's name for it ("linux_cp"); "core" for messages of VPP proper
    title: str  # what a user calls it ("Linux Control Plane")
    since: str = ""  # first VPP release that has it ("" = every release vppcfg supports)
    core_before: str = ""  # the release it moved out of core VPP into a plugin
    default_disabled: bool = False  # VPP loads it only when startup.conf enables it

    @property
    def so(self) -> str:
        return "" if self.name == "core" else f"{self.name}_plugin.so"

    @property
    def stanza(self) -> str:
        """The startup.conf lines that load it ("" for core VPP)."""
        return f"plugins {{ plugin {self.so} {{ enable }} }}" if self.so else ""

    def describe(self) -> str:
        """One phrase: which plugin, since when, how to enable it."""
        if not self.so:
            return "core VPP"
        text = f"the {self.title} plugin ({self.so}"
        if self.core_before:
            text += f"; part of core VPP before {self.core_before}, a plugin from then on"
        elif self.since:
            text += f", first in VPP {self.since}"
        return text + ")"


CORE = Plugin("core", "core VPP")
# linux-cp: src/plugins/linux-cp, first tagged in v21.06, .default_disabled = 1
LINUX_CP = Plugin("linux_cp", "Linux Control Plane", "21.06", default_disabled=True)
# sflow: src/plugins/sflow, first tagged in v25.02
SFLOW = Plugin("sflow", "sFlow", "25.02")
# tap v2: src/vnet/devices/tap up to v25.10; src/plugins/tap from v26.02
TAP = Plugin("tap", "TAP/TUN", core_before="26.02")
ACL = Plugin("acl", "ACL", "17.04")
# vxlan: src/plugins/vxlan from v23.06 (before: core VPP, same messages)
VXLAN = Plugin("vxlan", "VXLAN", core_before="23.06")


@dataclass(frozen=True, slots=True)
class Uses:
    """One need: any one of `messages` will do (newest first, the order the
    executor tries them in), for the operations in `actions`."""

    messages: tuple[str, ...]
    plugin: Plugin = CORE
    actions: tuple[str, ...] = ALL_ACTIONS

    @property
    def newest(self) -> str:
        return self.messages[0]


# vppcfg's ownership tag, set on every interface it creates
TAG = Uses(("sw_interface_tag_add_del",), actions=CREATE)


def pick(ctx: VppContext, need: Uses) -> str:
    """The newest of `need`'s messages the VPP behind `ctx` offers (the oldest
    when it offers none: the call then fails naming a message VPP lacks)."""
    return next((m for m in need.messages if ctx.has_message(m)), need.messages[-1])


@dataclass(frozen=True, slots=True)
class Dump:
    """A table an object type reads back: the first of `messages` this VPP
    offers (newest first), asked with `args`. The dump keeps its details in
    plain form under `table` of the RawDump (vppcfg.objects.reading): the
    reply instead for a "get" of settings (`reply`), every page for a
    cursor-paged "get" (`paged`). A VPP without any of them leaves the table
    out, and the object type's section unread."""

    table: str
    messages: tuple[str, ...]
    plugin: Plugin = CORE
    args: tuple[tuple[str, int], ...] = ()
    reply: bool = False
    paged: bool = False


EVERY_INTERFACE = (("sw_if_index", NONE_INDEX),)
