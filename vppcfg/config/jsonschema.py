"""The config language as a JSON Schema (draft 2020-12), for editors.

Generated from the yamale schema (`schema/vppcfg.yaml`, as compiled by
vppcfg.config.schema) so that there is one source of the structure: each
yamale include becomes a `$defs` entry, each field a property with yamale's
limits. What yamale leaves to Python lives here in JSON form: the custom
value types (by tag), the patterns of object names (from vppcfg.config.names)
and where an empty value (`loop0:`) is allowed. Semantic rules (references,
overlaps, MTU ...) stay with `vppcfg check`; the schema only checks shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from yamale import validators as yv

from vppcfg.config import names, schema, tables, verdicts

DIALECT = "https://json-schema.org/draft/2020-12/schema"
Json = dict[str, Any]


# --- numbers as regular expressions ----------------------------------------------


def range_regex(low: int, high: int) -> str:
    """A regex (no anchors) for the decimal numbers low..high, without leading zeros."""
    parts: list[str] = []
    start = low
    while start <= high:  # one digit count at a time
        top = min(high, 10 ** len(str(start)) - 1)
        parts += _same_length(str(start), str(top))
        start = top + 1
    return "(?:" + "|".join(parts) + ")"


def _same_length(low: str, high: str) -> list[str]:
    if low == high:
        return [low]
    if len(low) == 1:
        return [_digits(int(low), int(high))]
    if low[0] == high[0]:
        return [low[0] + rest for rest in _same_length(low[1:], high[1:])]
    rest = len(low) - 1
    first, last = int(low[0]), int(high[0])
    head: list[str] = []
    tail: list[str] = []
    if low[1:] != "0" * rest:
        head = [low[0] + r for r in _same_length(low[1:], "9" * rest)]
        first += 1
    if high[1:] != "9" * rest:
        tail = [high[0] + r for r in _same_length("0" * rest, high[1:])]
        last -= 1
    any_rest = "[0-9]" if rest == 1 else f"[0-9]{{{rest}}}"
    middle = [_digits(first, last) + any_rest] if first <= last else []
    return head + middle + tail


def _digits(first: int, last: int) -> str:
    return str(first) if first == last else f"[{first}-{last}]"


# --- value types that yamale checks in Python --------------------------------------

_V4 = r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}" \
      r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_V4_LEN = r"(?:3[0-2]|[12]?[0-9])"
_V6_LEN = r"(?:12[0-8]|1[01][0-9]|[1-9]?[0-9])"


def _ipv6() -> str:
    """RFC 3986's IPv6address rule: 8 groups, one `::`, an IPv4 tail allowed."""
    h16 = "[0-9A-Fa-f]{1,4}"
    ls32 = f"(?:{h16}:{h16}|{_V4})"
    alts = [f"(?:{h16}:){{6}}{ls32}", f"::(?:{h16}:){{5}}{ls32}"]
    rights = [f"(?:{h16}:){{4}}{ls32}", f"(?:{h16}:){{3}}{ls32}", f"(?:{h16}:){{2}}{ls32}",
              f"{h16}:{ls32}", ls32, h16, ""]
    for before, right in enumerate(rights):
        left = f"(?:(?:{h16}:){{0,{before}}}{h16})?" if before else f"(?:{h16})?"
        alts.append(f"{left}::{right}")
    return "(?:" + "|".join(alts) + ")"


_V6 = _ipv6()
_ADDRESS = f"(?:{_V4}|{_V6})"
_INTERFACE_ADDRESS = f"(?:{_V4}/{_V4_LEN}|{_V6}/{_V6_LEN})"
_PREFIX = f"(?:{_V4}(?:/{_V4_LEN})?|{_V6}(?:/{_V6_LEN})?)"
_HEX = "[0-9a-fA-F]"
_MAC = (f"(?:{_HEX}{{2}}([-:]?){_HEX}{{2}}(?:\\1{_HEX}{{2}}){{4}}"
        f"|{_HEX}{{4}}([-.:]?){_HEX}{{4}}\\2{_HEX}{{4}})")
# Interface names as `interfaces` keys and references (sub-interfaces: NAME.ID).
_IFNAME = "(?:" + "|".join(
    r.pattern for r in (names.PHY_RE, names.BOND_RE, names.VXLAN_RE, names.TAP_RE,
                        names.LOOPBACK_RE)
) + ")"


def _anchored(regex: str) -> str:
    return f"^(?:{regex})$"


def _string(regex: str, max_length: int | None = None, what: str = "") -> Json:
    out: Json = {"type": "string", "pattern": _anchored(regex)}
    if max_length:
        out["maxLength"] = max_length
    if what:
        out["description"] = what
    return out


def _list_name(max_length: int) -> Json:
    return _string(names.LIST_NAME_RE.pattern, max_length)


def _number_or_range(top: int, service_names: dict[str, int] | None = None) -> list[Json]:
    """The spellings tables.value_range reads: N, 'N', 'A-B', 'A-', '-B', 'any', names."""
    number = f"0*{range_regex(0, top)}"
    return [
        {"type": "integer", "minimum": 0, "maximum": top},
        {"enum": ["any", *sorted(service_names or {})]},
        _string(number),
        _string(f"(?!-$)(?:{number})?-(?:{number})?"),
    ]


def custom_types() -> dict[str, Json]:
    """The JSON form of each custom yamale type, by its tag."""
    what = {tag: cls.what for tag, cls in schema.VALIDATORS.items() if hasattr(cls, "what")}
    forms: dict[str, Json] = {
        "ifname": _string(rf"{_IFNAME}(?:\.[1-9][0-9]{{0,9}})?"),
        "rulename": {"enum": sorted(verdicts.RULES)},
        "linuxname": _string(names.LINUX_IFNAME_RE.pattern, names.LINUX_IFNAME_MAX),
        "nsname": _string(names.LINUX_NAME_RE.pattern, 64),
        "text": _string("[^'\"\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*"),
        "mac": _string(_MAC),
        "ip_interface": _string(_INTERFACE_ADDRESS),
        "ip_address": _string(_ADDRESS),
        "prefix": _string(_PREFIX),
        "endpoint": {"anyOf": [_string(_PREFIX), _list_name(56)]},
        "protocol": {"anyOf": [
            {"type": "integer", "minimum": 1, "maximum": 255},
            {"enum": ["any", *sorted(tables.PROTOCOLS)]},
            _string(f"0*{range_regex(0, 255)}"),
        ]},
        "port": {"anyOf": _number_or_range(65535, tables.SERVICES)},
        "icmp": {"anyOf": _number_or_range(255)},
        "aclrefs": {"anyOf": [
            _list_name(56), {"type": "array", "items": _list_name(56), "minItems": 1},
        ]},
    }
    for tag, form in forms.items():
        form["description"] = what.get(tag, "").capitalize()
    return forms


# --- object names (the keys of each section) -----------------------------------------

_NUMBERED = {  # section: the name prefix, whose instance range is names.LIMITS[prefix]
    "bondethernets": "BondEthernet",
    "loopbacks": "loop",
    "bridgedomains": "bd",
    "vxlan_tunnels": "vxlan_tunnel",
    "taps": "tap",
}


def key_names(section: str) -> Json:
    """What the object names of `section` may be (schema.SECTIONS tells it in words)."""
    if section in _NUMBERED:
        prefix = _NUMBERED[section]
        return _string(prefix + range_regex(*names.LIMITS[prefix]))
    if section == "interfaces":
        return _string(_IFNAME)
    if section == "prefixlists":
        return {**_list_name(64), "not": {"const": "any"}}
    return _list_name(56)


SUB_INTERFACE_IDS = _string(range_regex(1, 4294967295))
# Empty bodies that mean "all defaults" (see schema._nulls): objects of a
# section, sub-interfaces; a section itself may be empty too.
_NULL = {"type": "null"}


# --- the walk over yamale's schema ---------------------------------------------------


@dataclass(frozen=True)
class _Walk:
    types: dict[str, Json]  # custom type tag: its JSON form
    nullable: frozenset[str]  # includes without required fields: `name:` alone is {}


def build() -> Json:
    """The whole JSON Schema as a dict."""
    compiled = schema.compiled()
    types = custom_types()
    clash = set(types) & set(compiled.includes)
    if clash:
        raise ValueError(f"yamale includes and custom types share names: {sorted(clash)}")
    nullable = frozenset(name for name, inc in compiled.includes.items()
                         if not any(v.is_required for v in inc._schema.values()))
    walk = _Walk(types, nullable)
    defs = {name: _object(inc._schema, walk, name) for name, inc in compiled.includes.items()}
    root = _object(compiled._schema, walk, "")
    defs.update(types)
    root["type"] = ["object", "null"]  # an empty file is an empty config
    return {
        "$schema": DIALECT,
        "title": "vppcfg configuration",
        "description": "The VPP dataplane as vppcfg configures it (`vppcfg schema`); "
        "`vppcfg check` adds the semantic rules.",
        **root,
        "$defs": defs,
    }


def _object(fields: dict[str, Any], walk: _Walk, include: str) -> Json:
    properties = {key: _value(v, walk, key, include) for key, v in fields.items()}
    required = [key for key, v in fields.items() if v.is_required]
    out: Json = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = required
    return out


def _value(v: yv.Validator, walk: _Walk, key: str, include: str) -> Json:
    if isinstance(v, yv.Include):
        ref: Json = {"$ref": f"#/$defs/{v.include_name}"}
        return {"anyOf": [ref, _NULL]} if not include and key in schema.SINGLE else ref
    if isinstance(v, yv.Map):
        return _map(v, walk, key, include)
    if isinstance(v, yv.List):
        out: Json = {"type": "array", "items": _one_of([_value(i, walk, "", "") for i in
                                                         v.validators])}
        return _limits(out, v, "minItems", "maxItems")
    if isinstance(v, yv.Enum):
        return {"enum": list(v.enums)}
    if isinstance(v, yv.Boolean):
        return {"type": "boolean"}
    if isinstance(v, yv.Integer):
        return _limits({"type": "integer"}, v, "minimum", "maximum")
    if isinstance(v, yv.String):
        return {"type": "string"}
    if v.tag in walk.types:
        return {"$ref": f"#/$defs/{v.tag}"}
    raise ValueError(f"no JSON Schema form for the yamale type {v.tag!r} (field {key!r})")


def _map(v: yv.Map, walk: _Walk, key: str, include: str) -> Json:
    body = _one_of([_value(i, walk, "", "") for i in v.validators]) if v.validators else {}
    names_of = key_names(key) if not include else (
        SUB_INTERFACE_IDS if key == "sub-interfaces" else None)
    if names_of is not None:  # a section or sub-interfaces: may be empty, named by rule
        empty_ok = all(isinstance(i, yv.Include) and i.include_name in walk.nullable
                       for i in v.validators)
        return {"type": ["object", "null"], "propertyNames": names_of,
                "additionalProperties": {"anyOf": [body, _NULL]} if empty_ok else body}
    return _limits({"type": "object", "additionalProperties": body}, v,
                   "minProperties", "maxProperties")


def _one_of(forms: list[Json]) -> Json:
    return forms[0] if len(forms) == 1 else {"anyOf": forms}


def _limits(out: Json, v: yv.Validator, low: str, high: str) -> Json:
    if "min" in v.kwargs:
        out[low] = v.kwargs["min"]
    if "max" in v.kwargs:
        out[high] = v.kwargs["max"]
    return out
