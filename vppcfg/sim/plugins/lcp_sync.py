"""What linux-cp carries from VPP to Linux (lcp_interface_sync.c), on the sim's Linux.

Seen on vpp-real (26.10 and 26.06, `linux-cp { lcp-sync lcp-auto-subint
default netns NS }`, and with VPP's defaults):
* a new pair: the host tap gets the interface's L3 MTU (Linux's 1500 when it
  has none; VPP's side of the tap then gets 9216), a sub's VLAN its Linux
  parent's MTU (not the sub's VPP MTU), the VPP interface's admin state, no
  addresses (lcp_itf_pair_create ends with lcp_itf_set_link_state only);
* with lcp-sync, each admin-state or MTU change of a paired interface runs
  lcp_itf_pair_sync_state: state (a sub up under a parent down is forced down),
  MTU (0 means the parent's, above the parent's is clamped to it, and the
  result is written back to the VPP interface and its host interface: a sub at
  0 or above its parent shows the parent's MTU in sw_interface_dump after a
  sync), then every VPP address of the interface (an unnumbered one's are its
  lender's, skipped with lcp-sync-unnumbered off). A parent's change syncs its
  paired subs too (an admin change only when the parent itself is paired);
  each address added or deleted in VPP is added or deleted in Linux;
* `lcp lcp-sync on` syncs every pair at once, in pool order;
* without lcp-sync nothing later reaches Linux.
Linux's refusals (a VLAN up under a parent down, an address already there)
are logged by VPP and ignored, as here.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from vppcfg.sim.linux import LinuxError
from vppcfg.sim.plugins._util import linux
from vppcfg.sim.state import SimInterface, SimState

if TYPE_CHECKING:
    from vppcfg.sim.plugins.lcp import LcpState, Pair


def set_link_state(state: SimState, pair: Pair, up: bool) -> None:
    """lcp_itf_set_link_state: Linux may refuse (ENETDOWN, ENODEV); VPP only warns."""
    with contextlib.suppress(LinuxError):
        linux(state).set_state(pair.netns, pair.host_if_name, up)


def _parent(state: SimState, phy: SimInterface) -> SimInterface:
    return state.interfaces.get(phy.sup_sw_if_index, phy)


def _sync_mtu(state: SimState, pair: Pair, phy: SimInterface) -> None:
    sup_mtu = _parent(state, phy).mtu[0]
    mtu = phy.mtu[0] or sup_mtu
    if sup_mtu < phy.mtu[0]:
        mtu = sup_mtu
    # vnet_sw_interface_set_mtu on both VPP interfaces, then netlink's
    phy.mtu[0] = mtu
    host = state.interfaces.get(pair.host_sw_if_index)
    if host is not None:
        host.mtu[0] = mtu
    with contextlib.suppress(LinuxError):
        linux(state).set_mtu(pair.netns, pair.host_if_name, mtu)


def vpp_addresses(state: SimState, itf: SimInterface) -> list[str]:
    """The addresses VPP walks for an interface, honouring unnumbered."""
    if itf.unnumbered_to is not None:
        lender = state.interfaces.get(itf.unnumbered_to)
        return list(lender.addresses) if lender is not None else []
    return list(itf.addresses)


def add_address(state: SimState, pair: Pair, address: str) -> None:
    with contextlib.suppress(LinuxError):
        linux(state).add_address(pair.netns, pair.host_if_name, address)


def del_address(state: SimState, pair: Pair, address: str) -> None:
    with contextlib.suppress(LinuxError):
        linux(state).del_address(pair.netns, pair.host_if_name, address)


def sync_state(state: SimState, data: LcpState, pair: Pair) -> None:
    """lcp_itf_pair_sync_state: admin state, MTU and addresses to Linux."""
    phy = state.interfaces.get(pair.phy_sw_if_index)
    if not data.sync or phy is None:
        return
    up = phy.admin_up and _parent(state, phy).admin_up
    set_link_state(state, pair, up)
    _sync_mtu(state, pair, phy)
    if phy.unnumbered_to is not None and not data.sync_unnumbered:
        return
    for address in vpp_addresses(state, phy):
        add_address(state, pair, address)


def sync_hw(state: SimState, data: LcpState, sup_sw_if_index: int) -> None:
    """lcp_itf_pair_sync_state_hw: the interface and its subs, those paired."""
    for index in (sup_sw_if_index, *state.subs.get(sup_sw_if_index, ())):
        pair = data.by_phy.get(index)
        if pair is not None:
            sync_state(state, data, pair)


def sync_all(state: SimState, data: LcpState) -> None:
    """lcp_itf_pair_sync_state_all: every pair, in pool order."""
    for pair in data.pool.ordered():
        sync_state(state, data, pair)


def admin_changed(state: SimState, data: LcpState, sw_if_index: int) -> None:
    """lcp_itf_admin_state_change: nothing unless the interface is paired."""
    pair = data.by_phy.get(sw_if_index)
    itf = state.interfaces.get(sw_if_index)
    if not data.sync or pair is None or itf is None:
        return
    if itf.is_sub:
        sync_state(state, data, pair)
    else:
        sync_hw(state, data, sw_if_index)


def mtu_changed(state: SimState, data: LcpState, sw_if_index: int) -> None:
    """lcp_itf_mtu_change: a sub syncs its own pair, a parent all of its hw's."""
    itf = state.interfaces.get(sw_if_index)
    if not data.sync or itf is None:
        return
    if itf.is_sub:
        pair = data.by_phy.get(sw_if_index)
        if pair is not None:
            sync_state(state, data, pair)
    else:
        sync_hw(state, data, state.hw_owner(itf).sw_if_index)
