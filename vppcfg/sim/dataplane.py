"""The simulator's behaviour model: a VPP dataplane answering API messages.

`SimDataplane` owns the state, dispatches every message to the core handlers
(vppcfg.sim.core) or to a plugin's (vppcfg.sim.plugins.*), and owns the rules
that cut across them: index allocation and name lookup (in SimState),
deletion cascades (on_delete hooks), change notifications (on_change hooks)
and fault injection.

Fault injection: with ``fail_after=N`` the N-th *mutating* call (any message
that only reads - dumps, gets, show_version, control_ping, cli_inband - is not
counted) fails with retval -1 (VNET_API_ERROR_UNSPECIFIED) and changes nothing;
a failed create answers sw_if_index ~0.
``mutations`` counts the mutating calls seen so far, so a test can run a
workload once, read the count k, then replay it with fail_after = 1..k.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

from vppcfg.sim import core
from vppcfg.sim.core import common
from vppcfg.sim.inventory import Phy
from vppcfg.sim.plugins._util import LinuxHost
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import NONE_INDEX, SimState

Handler = Callable[[SimState, dict[str, Any]], Response]

PLUGINS = ("bond", "tap", "vxlan", "lcp", "sflow", "acl")
# Words in a message name that mark it as read-only.
READ_WORDS = frozenset({"dump", "get", "show", "ping", "want", "cli", "versions"})
FAULT_RETVAL = common.UNSPECIFIED


def is_mutating(message: str) -> bool:
    """Whether a message may change the dataplane (what fail_after counts)."""
    return not READ_WORDS.intersection(message.split("_"))


def fault_reply(message: str) -> Response:
    """What an injected failure answers: -1, and no interface for a create."""
    if "create" in message.split("_"):
        return Response(reply={"retval": FAULT_RETVAL, "sw_if_index": NONE_INDEX})
    return Response(reply={"retval": FAULT_RETVAL})


def load_plugins(state: SimState, names: Iterable[str] = PLUGINS) -> dict[str, Handler]:
    """Merge the HANDLERS of the plugin modules that exist (missing ones are skipped);
    a plugin's optional ``install(state)`` registers its hooks."""
    handlers: dict[str, Handler] = {}
    for name in names:
        module_name = f"vppcfg.sim.plugins.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name != module_name:
                raise
            continue
        install = getattr(module, "install", None)
        if callable(install):
            install(state)
        handlers.update(getattr(module, "HANDLERS", {}))
    return handlers


class SimDataplane:
    """A VPP (core + plugins) answering messages in plain form (see protocol.py)."""

    def __init__(
        self,
        inventory: list[Phy],
        fail_after: int | None = None,
        *,
        host_interfaces: Iterable[str] = (),
        plugins: Iterable[str] = PLUGINS,
        kernel_vlan: bool = True,
        lcp_auto_subint: bool = False,
        linux_cp: str = "",
    ) -> None:
        self.state = SimState(host_interfaces=set(host_interfaces))
        # kernel_vlan=False: a Linux without 802.1q, like the recorded VPP's host
        # (lcp pairs on sub-interfaces are refused with -73).
        self.state.plugins["linux"] = LinuxHost(vlan_support=kernel_vlan)
        self.fail_after = fail_after
        self.mutations = 0
        self.state.add_interface("local0", "local", link_mtu=0, mtu=[0, 0, 0, 0])  # index 0
        core.install(self.state)
        for phy in inventory:
            self.state.add_interface(
                phy.name, phy.dev_type, mac=phy.mac.lower(), link_up=True, link_mtu=phy.mtu
            )
        self.handlers: dict[str, Handler] = {**load_plugins(self.state, plugins), **core.HANDLERS}
        # startup.conf `linux-cp { ... }` words (lcp.apply_settings; ValueError if
        # unknown): VPP's defaults when empty. lcp_auto_subint is the word
        # lcp-auto-subint (vppcfg wants it off: it pairs sub-interfaces itself).
        if "lcp" in self.state.plugins:
            from vppcfg.sim.plugins import lcp

            words = f"{linux_cp} lcp-auto-subint" if lcp_auto_subint else linux_cp
            lcp.apply_settings(self.state, words)
        self.handlers["cli_inband"] = self._cli_inband

    @property
    def messages(self) -> list[str]:
        """Every request this model answers (the wire server offers only these)."""
        return sorted(self.handlers)

    def handle(self, message: str, args: dict[str, Any]) -> Response:
        """Answer one request. Unknown messages raise KeyError."""
        handler = self.handlers[message]
        mutating = is_mutating(message)
        if mutating:
            self.mutations += 1
            if self.fail_after is not None and self.mutations == self.fail_after:
                return fault_reply(message)
        response = handler(self.state, args)
        if mutating and response.reply is not None and response.reply.get("retval", 0) == 0:
            for hook in list(self.state.on_change):
                hook(self.state, message, args)
        return response

    def _cli_inband(self, state: SimState, args: dict[str, Any]) -> Response:
        # The CLI translates commands into API calls on this dataplane, so those
        # calls are counted (and can fail) like any other.
        try:
            from vppcfg.sim import cli
        except ImportError:
            return Response(reply={"retval": common.UNSPECIFIED, "reply": "CLI not available\n"})
        if hasattr(cli, "run_cli"):
            text = cli.run_cli(self, str(args.get("cmd", "")))
            return Response(reply={"retval": 0, "reply": text})
        return cli.SimCli(self).handle(args)
