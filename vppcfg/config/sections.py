"""Where the model lives in the config language: the section of each model
collection, the sections an interface can be written in, and the config key
of each per-interface node (used to point at the line an operation comes
from, and to annotate a dump)."""

from __future__ import annotations

# model collection (the first part of a node key) -> config section
SECTIONS = {
    "interfaces": "interfaces", "bonds": "bondethernets", "bridge_domains": "bridgedomains",
    "vxlan_tunnels": "vxlan_tunnels", "taps": "taps", "acls": "acls",
    "prefixlists": "prefixlists",
}
# the sections an interface can be configured in
INTERFACE_SECTIONS = ("interfaces", "loopbacks", "bondethernets", "taps", "vxlan_tunnels")
# per-interface node (its key's part after the interface name) -> config key
FIELDS = {
    "address": "addresses", "acls": "acls", "lcp": "lcp", "sflow": "sflow", "mtu": "mtu",
    "mac": "mac", "mpls": "mpls", "unnumbered": "unnumbered", "state": "state",
}
