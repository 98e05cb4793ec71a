"""Only the API definitions vppcfg uses, for vpp_papi.

vpp_papi builds a class for every message and every type of each *.api.json
it loads, which was a third of the CPU time of `vppcfg dump` and `plan` on a
large config. The messages vppcfg sends are few, so the client is given those,
their replies, details and events, and the types they use: the same classes
vpp_papi would build for them (the CRCs that VPP checks are the files' own),
in a quarter of the time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# The requests vppcfg sends (tests/test_pipeline.py checks that every message
# the code names is here). Their replies, details and events come from the
# files' "services".
API_MESSAGES = frozenset({
    # connecting (vpp_papi and vppcfg.vpp.transport) and ending a dump
    "sockclnt_create", "sockclnt_delete", "memclnt_keepalive", "control_ping",
    "cli_inband", "show_threads", "show_version",
    # reading (vppcfg.vpp.dump)
    "sw_interface_dump", "ip_address_dump", "ip_unnumbered_dump", "mpls_interface_dump",
    "bridge_domain_dump", "l2_xconnect_dump", "sw_interface_tap_v2_dump",
    "sw_bond_interface_dump", "sw_interface_bond_dump", "sw_member_interface_dump",
    "sw_interface_slave_dump", "vxlan_tunnel_dump", "vxlan_tunnel_v2_dump",
    "lcp_itf_pair_get", "acl_dump", "acl_interface_list_dump", "sflow_interface_dump",
    "sflow_sampling_rate_get", "sflow_polling_interval_get", "sflow_header_bytes_get",
    # changing (vppcfg.objects)
    "create_loopback_instance", "delete_loopback", "create_subif", "delete_subif",
    "sw_interface_set_flags", "sw_interface_set_mtu", "hw_interface_set_mtu",
    "sw_interface_set_mac_address", "sw_interface_tag_add_del",
    "sw_interface_add_del_address", "sw_interface_set_unnumbered",
    "bond_create", "bond_create2", "bond_delete", "bond_add_member", "bond_enslave",
    "bond_detach_member", "bond_detach_slave",
    "bridge_domain_add_del", "bridge_domain_add_del_v2", "bridge_domain_set_mac_age",
    "bridge_flags", "sw_interface_set_l2_bridge", "l2_interface_vlan_tag_rewrite",
    "sw_interface_set_l2_xconnect",
    "lcp_itf_pair_add_del", "lcp_itf_pair_add_del_v2", "lcp_itf_pair_add_del_v3",
    "mpls_table_add_del", "sw_interface_set_mpls_enable",
    "sflow_enable_disable", "sflow_sampling_rate_set", "sflow_polling_interval_set",
    "sflow_header_bytes_set",
    "tap_create_v2", "tap_create_v3", "tap_delete_v2",
    "vxlan_add_del_tunnel_v2", "vxlan_add_del_tunnel_v3",
    "acl_add_replace", "acl_del", "acl_interface_set_acl_list",
})

_TYPE_KINDS = ("enums", "enumflags", "unions", "types")


def subset(files: list[str], requests: frozenset[str]) -> str:
    """One API file's JSON text holding `requests`, their answers and the
    types they use (dependencies first), from the *.api.json `files`."""
    apis = [json.loads(Path(f).read_text(encoding="utf-8")) for f in files]
    services: dict[str, dict[str, Any]] = {}
    for api in apis:
        services.update(api.get("services", {}))
    wanted = set(requests)
    for name in requests:
        service = services.get(name, {})
        wanted.update(filter(None, (service.get("reply"), service.get("stream_msg"))))
        wanted.update(service.get("events", ()))
    messages = {m[0]: m for api in apis for m in api.get("messages", ()) if m[0] in wanted}
    kinds = _types(apis)
    order: dict[str, None] = {}
    for message in messages.values():
        for name in _field_types(message):
            _add_type(name, kinds, order)
    out: dict[str, Any] = {kind: [] for kind in _TYPE_KINDS}
    out["aliases"] = {}
    for name in order:
        kind, definition = kinds[name]
        if kind == "aliases":
            out["aliases"][_short(name)] = definition
        else:
            out[kind].append(definition)
    out["messages"] = list(messages.values())
    out["services"] = {k: v for k, v in services.items() if k in messages}
    return json.dumps(out)


def _types(apis: list[dict[str, Any]]) -> dict[str, tuple[str, Any]]:
    """vl_api_X_t -> (kind, definition) over all files (each file repeats
    the types it imports, identically)."""
    found: dict[str, tuple[str, Any]] = {}
    for api in apis:
        for kind in _TYPE_KINDS:
            for definition in api.get(kind, ()):
                found[f"vl_api_{definition[0]}_t"] = (kind, definition)
        for name, definition in api.get("aliases", {}).items():
            found[f"vl_api_{name}_t"] = ("aliases", definition)
    return found


def _add_type(name: str, kinds: dict[str, tuple[str, Any]], order: dict[str, None]) -> None:
    """Add `name` after the types it uses (a built-in like u32 is no entry)."""
    if name in order or name not in kinds:
        return
    kind, definition = kinds[name]
    uses = [definition["type"]] if kind == "aliases" else list(_field_types(definition))
    for used in uses:
        _add_type(used, kinds, order)
    order[name] = None


def _field_types(definition: list[Any]) -> list[str]:
    """The type names of a message's, type's or union's fields (for an enum
    the names of its values, which name no type and are skipped by the caller)."""
    return [f[0] for f in definition[1:] if isinstance(f, list) and isinstance(f[0], str)]


def _short(name: str) -> str:
    return name[len("vl_api_"):-len("_t")]
