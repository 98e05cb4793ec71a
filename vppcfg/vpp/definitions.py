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
from functools import cache
from pathlib import Path
from typing import Any

# The requests vppcfg sends: the connection's and the dump's basics, and
# every message an object type declares (vppcfg.objects.needs: `uses` and
# `reads` of each descriptor). tests/test_pipeline.py checks that every
# message the code names is here. Their replies, details and events come
# from the files' "services".
BASICS = frozenset({
    # connecting (vpp_papi and vppcfg.vpp.transport) and ending a dump
    "sockclnt_create", "sockclnt_delete", "memclnt_keepalive", "control_ping",
    "cli_inband", "show_threads", "show_version",
    # the interface index map and `show hardware-interfaces` for sFlow
    "sw_interface_dump",
})


@cache
def api_messages() -> frozenset[str]:
    """BASICS and every message the registry's descriptors declare."""
    from vppcfg.objects import DESCRIPTORS

    declared = {m for d in DESCRIPTORS for need in (*d.uses, *d.reads) for m in need.messages}
    return BASICS | declared


def __getattr__(name: str) -> Any:
    # API_MESSAGES is built on first use: the registry is imported only then
    if name == "API_MESSAGES":
        return api_messages()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
