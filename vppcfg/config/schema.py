"""The structure layer: section names, object names, then yamale per object.

yamale checks one object at a time against its part of `schema/vppcfg.yaml`
(compiled once per process), so the cost grows with the size of the file and
an error message can name the exact object and field.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from typing import Any

import yamale
import yamale.util
from yamale import validators as yv
from yamale.schema.datapath import DataPath

from vppcfg.config import names, tables, verdicts
from vppcfg.config.loader import Document
from vppcfg.config.problems import Path, Problem, format_path, index
from vppcfg.gcpause import gc_paused

SECTIONS = {
    # section: (include name, how its keys are spelled, key check)
    "interfaces": ("interface", "a VPP interface name such as GigabitEthernet3/0/0"),
    "bondethernets": ("bondethernet", "BondEthernetN with N from 0 to 4294967294"),
    "loopbacks": ("loopback", "loopN with N from 0 to 16383"),
    "bridgedomains": ("bridgedomain", "bdN with N from 1 to 16777215"),
    "vxlan_tunnels": ("vxlan", "vxlan_tunnelN with N from 0 to 2147483647"),
    "taps": ("tap", "tapN with N from 0 to 8192"),
    "prefixlists": ("prefixlist", "lower-case letters, digits and '-', starting with a letter"),
    "acls": ("acl", "lower-case letters, digits and '-', starting with a letter"),
}
# sections that are one object, not a map of named ones: section -> include
SINGLE = {"sflow": "sflow", "vppcfg": "vppcfg-options"}
_KEY_CHECKS = {
    "interfaces": lambda k: names.interface_kind(k) is not None,
    "bondethernets": lambda k: names.numbered(names.BOND_RE, "BondEthernet", k),
    "loopbacks": lambda k: names.numbered(names.LOOPBACK_RE, "loop", k),
    "bridgedomains": lambda k: names.numbered(names.BRIDGE_RE, "bd", k),
    "vxlan_tunnels": lambda k: names.numbered(names.VXLAN_RE, "vxlan_tunnel", k),
    "taps": lambda k: names.numbered(names.TAP_RE, "tap", k),
    "prefixlists": lambda k: bool(names.LIST_NAME_RE.fullmatch(k)) and len(k) <= 64 and k != "any",
    "acls": lambda k: bool(names.LIST_NAME_RE.fullmatch(k)) and len(k) <= 56,
}


# --- custom yamale types -------------------------------------------------------


class _Check(yv.Validator):
    """A yamale type defined by a predicate and a plain-words description."""

    what = ""

    def _ok(self, value: Any) -> bool:
        raise NotImplementedError

    def _is_valid(self, value: Any) -> bool:
        return self._ok(value)

    def fail(self, value: Any) -> str:
        return f"{_show(value)} is not {self.what}"


def _printable(value: Any, limit: int) -> bool:
    return (
        isinstance(value, str)
        and 0 < len(value) <= limit
        and value.isprintable()
        and not any(c in value for c in " ;'\"\\`$")
    )


class IfName(_Check):
    tag = "ifname"
    what = "an interface name (such as GigabitEthernet3/0/0, loop0 or BondEthernet0.100)"

    def _ok(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        base, dot, sub = value.partition(".")
        if dot and not re.fullmatch(r"[1-9][0-9]{0,9}", sub):
            return False
        return names.interface_kind(base) is not None


class LinuxName(_Check):
    tag = "linuxname"
    what = "a Linux interface name (1-15 of a-z A-Z 0-9 . _ -, not starting with . or -)"

    def _ok(self, value: Any) -> bool:
        return (
            isinstance(value, str)
            and len(value) <= names.LINUX_IFNAME_MAX
            and bool(names.LINUX_IFNAME_RE.fullmatch(value))
        )


class NsName(_Check):
    tag = "nsname"
    what = "a network namespace name (1-64 of a-z 0-9 _ -, starting with a letter)"

    def _ok(self, value: Any) -> bool:
        return (
            isinstance(value, str)
            and len(value) <= 64
            and bool(names.LINUX_NAME_RE.fullmatch(value))
        )


class Text(_Check):
    tag = "text"
    # No length limit: IPng's schema has none (its `len=64` is no yamale
    # keyword), and a description never reaches VPP.
    what = "a description: printable characters, without quotes"

    def _ok(self, value: Any) -> bool:
        return (
            isinstance(value, str)
            and value.isprintable()
            and not any(c in value for c in "'\"")
        )


class Mac(_Check):
    tag = "mac"
    what = "a MAC address (such as 02:00:00:00:00:01)"

    def _ok(self, value: Any) -> bool:
        return names.mac(value) is not None


class IpInterface(_Check):
    tag = "ip_interface"
    what = "an address with prefix length (such as 192.0.2.1/24 or 2001:db8::1/64)"
    # the test itself, not a method calling it: each address of a file is tested
    _ok = staticmethod(names.is_ip_interface)


class IpAddress(_Check):
    tag = "ip_address"
    what = "an IPv4 or IPv6 address (without prefix length)"

    def _ok(self, value: Any) -> bool:
        return names.ip_address(value) is not None


class Prefix(_Check):
    tag = "prefix"
    what = "an IPv4 or IPv6 address or prefix"

    def _ok(self, value: Any) -> bool:
        return names.ip_prefix(value) is not None


class Endpoint(_Check):
    tag = "endpoint"
    what = "an address, a prefix, 'any' or the name of a prefix list"

    def _ok(self, value: Any) -> bool:
        return names.ip_prefix(value) is not None or (
            isinstance(value, str)
            and len(value) <= 56
            and bool(names.LIST_NAME_RE.fullmatch(value))
        )


class Protocol(_Check):
    tag = "protocol"
    what = "a protocol number (1-255) or name (" + ", ".join(sorted(tables.PROTOCOLS)) + ")"

    def _ok(self, value: Any) -> bool:
        return tables.protocol(value) is not None and value != 0


class Port(_Check):
    tag = "port"
    what = (
        "a port (1-65535), a service name (such as www), "
        "a range ('1024-', '-1023', '80-88') or 'any'"
    )

    def _ok(self, value: Any) -> bool:
        return tables.value_range(value, 65535, tables.SERVICES) is not None


class Icmp(_Check):
    tag = "icmp"
    what = "an ICMP type or code (0-255), a range ('3-5', '-10', '10-') or 'any'"

    def _ok(self, value: Any) -> bool:
        return tables.value_range(value, 255) is not None


class AclRefs(_Check):
    tag = "aclrefs"
    what = "an ACL name or a list of ACL names"

    def _ok(self, value: Any) -> bool:
        refs = value if isinstance(value, list) else [value]
        return bool(refs) and all(
            isinstance(r, str) and len(r) <= 56 and names.LIST_NAME_RE.fullmatch(r) for r in refs
        )


class RuleName(_Check):
    tag = "rulename"
    what = "a rule name (`vppcfg check --list-rules`: " + ", ".join(sorted(verdicts.RULES)) + ")"

    def _ok(self, value: Any) -> bool:
        return isinstance(value, str) and value in verdicts.RULES


VALIDATORS = dict(yv.DefaultValidators)
for _cls in (
    RuleName,
    IfName,
    LinuxName,
    NsName,
    Text,
    Mac,
    IpInterface,
    IpAddress,
    Prefix,
    Endpoint,
    Protocol,
    Port,
    Icmp,
    AclRefs,
):
    VALIDATORS[_cls.tag] = _cls


@lru_cache(maxsize=1)
def compiled() -> yamale.schema.Schema:
    """The schema, parsed once per process."""
    text = resources.files("vppcfg.schema").joinpath("vppcfg.yaml").read_text(encoding="utf-8")
    return yamale.make_schema(content=text, validators=VALIDATORS)


# --- the structure check ---------------------------------------------------------


def check_detailed(doc: Document) -> tuple[list[Problem], set[Path]]:
    """The structural problems, and which objects ((section, name)) or whole
    sections ((section,)) they make unusable.

    Null object bodies (`loop0:` with nothing under it) are made empty maps in
    place, since they mean "all defaults"."""
    with gc_paused():  # many small, short-lived objects: no cycles to find
        return _check_detailed(doc)


def _check_detailed(doc: Document) -> tuple[list[Problem], set[Path]]:
    problems: list[Problem] = []
    broken: set[Path] = set()
    data = doc.data
    if not isinstance(data, dict):
        message = "the file must be a map of sections (interfaces, loopbacks, ...)"
        return [_problem(doc, (), message)], {()}
    for section, body in data.items():
        if section in SINGLE:
            body = {} if body is None else body
            found = _checked(doc, SINGLE[section], body, (section,), _nulls(doc, body, (section,)))
            problems += found
            if found:
                broken.add((section,))
            continue
        if section not in SECTIONS:
            problems.append(
                _problem(doc, (section,), _unknown(section, [*SECTIONS, *SINGLE], "section"))
            )
            continue
        if body is None:
            data[section] = {}
            continue
        if not isinstance(body, dict):
            problems.append(
                _problem(doc, (section,), f"must be a map of objects by name, not {_kind(body)}")
            )
            broken.add((section,))
            continue
        for name, obj in body.items():
            found = _check_object(doc, section, name, obj)
            if found:
                problems += found
                broken.add((section, name))
    return sorted(problems, key=lambda p: (p.line, p.column)), broken


def _check_object(doc: Document, section: str, name: Any, obj: Any) -> list[Problem]:
    include, spelling = SECTIONS[section]
    path = (section, name)
    if not isinstance(name, str) or not _KEY_CHECKS[section](name):
        return [_problem(doc, path, f"{_show(name)} is not a valid name here: use {spelling}")]
    if obj is None:
        doc.data[section][name] = obj = {}
    nulls = _nulls(doc, obj, path)
    if section == "interfaces":
        nulls += _sub_ids(doc, obj, path)
    return _checked(doc, include, obj, path, nulls)


def _checked(
    doc: Document, include: str, obj: Any, path: Path, nulls: list[Problem]
) -> list[Problem]:
    """The null problems, then yamale's, leaving out yamale's at the same spots
    (one message per spot is enough)."""
    if accepts(include, obj):  # yamale would find nothing: skip its slow walk
        return nulls
    said = {p.path for p in nulls}
    found = _validate(doc, compiled().includes[include], obj, path)
    return nulls + [p for p in found if p.path not in said]


# --- a fast yes/no with yamale's semantics ------------------------------------------
# yamale builds a path object and an error string for every field it visits,
# which is most of the time of a check. The same schema compiled into closures
# answers only "would yamale find an error?", following Schema._validate step
# by step and calling the same validators (types and constraints); objects it
# rejects still go through yamale, for yamale's own messages.

Accept = Callable[[Any], bool]


def accepts(include: str, obj: Any) -> bool:
    """Whether yamale finds no error in `obj` as an instance of `include`."""
    return _acceptors()[(include, True)](obj)


@lru_cache(maxsize=1)
def _acceptors() -> dict[tuple[str, bool], Accept]:
    """(include, strict) -> its acceptor, compiled on first use (includes may
    refer to themselves: a sub-interface's body)."""
    schema = compiled()
    table: dict[tuple[str, bool], Accept] = {}

    def include(name: str, strict: bool) -> Accept:
        key = (name, strict)
        if key not in table:
            table[key] = lambda data: table[key](data)  # a forward reference while compiling
            table[key] = _compile(schema.includes[name]._schema, strict, include)
        return table[key]

    for name in schema.includes:
        include(name, True)
    return table


def _compile(node: Any, strict: bool, include: Callable[[str, bool], Accept]) -> Accept:
    test = _compile_value(node, strict, include)
    if _nullable(node):
        return lambda data: data is None or test(data)
    return test


def _nullable(node: Any) -> bool:
    """An optional field that may be null: yamale takes a null there untested."""
    return isinstance(node, yv.Validator) and node.is_optional and node.can_be_none


def _compile_value(node: Any, strict: bool, include: Callable[[str, bool], Accept]) -> Accept:
    """_compile without the null an optional field may be."""
    if yamale.util.is_map(node) or yamale.util.is_list(node):
        return _static(node, strict, include)
    validator: yv.Validator = node
    if isinstance(validator, yv.Map | yv.List) and len(validator.validators) == 1:
        return _every(validator, _compile(validator.validators[0], strict, include))
    then = _then(validator, strict, include)
    valid = _valid(validator)
    if then is None:
        return valid
    if valid is _ALWAYS:  # an include: only its body is checked
        return then
    return lambda data: valid(data) and then(data)


def _always(data: Any) -> bool:
    return True


_ALWAYS: Accept = _always
# Constraints whose failure always makes an error of yamale's (a message, never
# an empty list): checked by their own test instead of through validate().
_PLAIN_CONSTRAINTS = (yv.constraints.Min, yv.constraints.Max,
                      yv.constraints.LengthMin, yv.constraints.LengthMax)


def _valid(validator: yv.Validator) -> Accept:
    """Whether yamale's validate() finds nothing: its type test, then its
    active constraints' tests (as validate() runs them, without making the
    messages); a validator with other constraints or its own validate()
    goes through validate()."""
    if type(validator).validate is not yv.Validator.validate:
        return lambda data: not validator.validate(data)
    constraints = [c for c in validator._constraints_inst if c.is_active]
    plain = yv.constraints.Constraint.is_valid
    if not all(type(c) in _PLAIN_CONSTRAINTS and type(c).is_valid is plain for c in constraints):
        return lambda data: not validator.validate(data)
    own = _type_test(validator)
    if not constraints:
        return own
    if len(constraints) == 1:  # the usual case (a min or a max): no loop over one test
        (test,) = [c._is_valid for c in constraints]
        return lambda data: own(data) and test(data)
    tests = [c._is_valid for c in constraints]
    return lambda data: own(data) and all(t(data) for t in tests)


def _type_test(validator: yv.Validator) -> Accept:
    """The validator's _is_valid, or the same answer sooner: a plain dict is a
    Mapping and a plain list a Sequence (the loader makes only those)."""
    cls = type(validator)
    if cls._is_valid is yv.Include._is_valid:
        return _ALWAYS
    if isinstance(validator, _Check) and cls._is_valid is _Check._is_valid:
        return validator._ok
    if cls._is_valid is yv.Map._is_valid:
        slow = validator._is_valid
        return lambda data: type(data) is dict or slow(data)
    if cls._is_valid is yv.List._is_valid:
        slow = validator._is_valid
        return lambda data: type(data) is list or slow(data)
    return validator._is_valid


def _then(validator: yv.Validator, strict: bool,
          include: Callable[[str, bool], Accept]) -> Accept | None:
    """What yamale checks after a validator's own test passed."""
    if isinstance(validator, yv.Include):
        inner = validator.strict
        return include(validator.include_name, strict if inner is None else inner)
    subs = [_compile(v, strict, include) for v in getattr(validator, "validators", ())]
    if not subs:
        return None
    if isinstance(validator, yv.Map | yv.List):  # (one kind of item: _every)
        return lambda data: all(any(s(item) for s in subs) for item in _items(data))
    if isinstance(validator, yv.Any):
        return lambda data: any(s(data) for s in subs)
    if isinstance(validator, yv.Subset):
        def each(data: Any) -> list[Any]:
            if yamale.util.is_map(data):
                return [{k: v} for k, v in data.items()]
            return list(data) if yamale.util.is_list(data) else [data]
        return lambda data: all(any(s(x) for s in subs) for x in each(data))
    return None


def _every(validator: yv.Map | yv.List, sub: Accept) -> Accept:
    """map(x) or list(x): the validator's own test, then x on every item, in
    one call and a loop (every address list of a file comes here, and a
    generator or a call per step costs more than the tests)."""
    valid = _valid(validator)

    def accept(data: Any) -> bool:
        if not valid(data):
            return False
        for item in _items(data):  # noqa: SIM110 (the point: no generator)
            if not sub(item):
                return False
        return True

    return accept


def _items(data: Any) -> Any:
    """The values of a map or the items of a list, as yamale visits them."""
    if type(data) is dict:
        return data.values()
    if type(data) is list:
        return data
    keys = yamale.util.get_keys(data)
    return [data[k] for k in keys]


def _static(node: Any, strict: bool, include: Callable[[str, bool], Accept]) -> Accept:
    """A literal map or list in the schema: its keys are fixed."""
    if yamale.util.is_map(node):
        return _static_map(node, strict, include)
    items = [(key, _compile(sub, strict, include),
              isinstance(sub, yv.Validator) and sub.is_optional)
             for key, sub in yamale.util.get_iter(node)]
    is_list = yamale.util.is_list
    known = set(yamale.util.get_keys(node))

    def accept(data: Any) -> bool:
        if not is_list(data) or (strict and not known.issuperset(yamale.util.get_keys(data))):
            return False
        for key, sub, optional in items:
            try:
                item = data[key]
            except (KeyError, IndexError):
                if optional:
                    continue
                return False
            if not sub(item):
                return False
        return True

    return accept


def _static_map(node: Any, strict: bool, include: Callable[[str, bool], Accept]) -> Accept:
    """A literal map: the keys the data has are checked, then the required
    ones looked for (the same answer as trying every key of the schema, which
    raised a KeyError for each optional field left out). The null of an
    optional field is let through here, not by a call around its test."""
    by_key: dict[Any, Accept] = {}
    nullable: set[Any] = set()
    required: list[Any] = []
    for key, sub in yamale.util.get_iter(node):
        by_key[key] = _compile_value(sub, strict, include)
        if _nullable(sub):
            nullable.add(key)
        if not (isinstance(sub, yv.Validator) and sub.is_optional):
            required.append(key)
    is_map = yamale.util.is_map

    def accept(data: Any) -> bool:
        if type(data) is not dict and not is_map(data):
            return False
        for key, item in data.items():
            test = by_key.get(key)
            if test is None:
                if strict:
                    return False
            elif item is None and key in nullable:
                continue
            elif not test(item):
                return False
        return not required or all(key in data for key in required)

    return accept


def _sub_ids(doc: Document, obj: Any, path: Path) -> list[Problem]:
    """Sub-interface ids are map keys, checked here so that each bad one is named."""
    subs = obj.get("sub-interfaces") if isinstance(obj, dict) else None
    if not isinstance(subs, dict):
        return []
    found = []
    for sub in list(subs):
        if isinstance(sub, bool) or not isinstance(sub, int) or not 1 <= sub <= 4294967295:
            message = f"sub-interface id {_show(sub)} must be a whole number from 1 to 4294967295"
            found.append(_problem(doc, (*path, "sub-interfaces", sub), message))
            del subs[sub]
    return found


def _nulls(doc: Document, obj: Any, path: Path) -> list[Problem]:
    """yamale lets an optional field be null; the language does not (`mtu:` alone).
    Null sub-interface lists and bodies are made empty maps in place."""
    if not doc.nulls or _null_free(obj):  # the usual cases, found without making paths
        return []
    return _null_problems(doc, obj, path)


def _null_free(value: Any) -> bool:
    """No null anywhere inside this map or list (nothing for _nulls to do)."""
    for item in value.values() if type(value) is dict else value if type(value) is list else ():
        if item is None:
            return False
        if (type(item) is dict or type(item) is list) and not _null_free(item):
            return False
    return True


def _null_problems(doc: Document, obj: Any, path: Path) -> list[Problem]:
    found = []
    if isinstance(obj, dict):
        for key, value in list(obj.items()):
            if value is None and key == "sub-interfaces":
                obj[key] = {}  # an empty list of sub-interfaces
            elif value is None:
                found.append(_problem(doc, (*path, key), "has no value"))
            elif key == "sub-interfaces" and isinstance(value, dict):
                for sub, body in value.items():
                    if body is None:
                        value[sub] = {}
                    else:
                        found += _null_problems(doc, body, (*path, key, sub))
            elif isinstance(value, dict | list):  # a scalar holds no null
                found += _null_problems(doc, value, (*path, key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            if value is None:
                found.append(_problem(doc, (*path, index(i)), "has no value"))
            elif isinstance(value, dict | list):
                found += _null_problems(doc, value, (*path, index(i)))
    return found


def _validate(doc: Document, include: Any, obj: Any, path: Path) -> list[Problem]:
    # yamale's public validate() walks a whole document; this per-object entry
    # point is the one its includes use internally (yamale ~= 6.1).
    errors = include._validate(include._schema, obj, DataPath(), True)
    return [_translate(doc, obj, path, error) for error in errors]


_MESSAGES = [
    (re.compile(r"Required field missing"), lambda m: "is required but missing"),
    (re.compile(r"Unexpected element"), None),  # handled with a suggestion
    (re.compile(r"'(.*)' is not a map\.?", re.S), lambda m: "must be a map of settings"),
    (re.compile(r"'(.*)' is not a list\.?", re.S), lambda m: "must be a list"),
    (re.compile(r"'(.*)' is not a int\.", re.S), lambda m: f"{_show(m[1])} is not a whole number"),
    (re.compile(r"'(.*)' is not a bool\.", re.S), lambda m: f"{_show(m[1])} is not true or false"),
    (re.compile(r"'(.*)' is not a str\.", re.S), lambda m: f"{_show(m[1])} is not a string"),
    (  # a one-value enum prints as a one-element tuple: `('dpdk',)`
        re.compile(r"'(.*)' not in \((.*?),?\)", re.S),
        lambda m: f"{_show(m[1])} is not one of {m[2]}",
    ),
    # Before the plain "greater/less than" patterns, which would also match these
    # (and print the whole list).
    (
        re.compile(r"Length of (.*) is greater than (.*)", re.S),
        lambda m: f"may have at most {m[2]} entries",
    ),
    (
        re.compile(r"Length of (.*) is less than (.*)", re.S),
        lambda m: f"needs at least {m[2]} {'entry' if m[2] == '1' else 'entries'}",
    ),
    (
        re.compile(r"(.*) is greater than (.*)", re.S),
        lambda m: f"{m[1]} is above the maximum {m[2]}",
    ),
    (re.compile(r"(.*) is less than (.*)", re.S), lambda m: f"{m[1]} is below the minimum {m[2]}"),
]


_UNEXPECTED = ": Unexpected element"


def _translate(doc: Document, obj: Any, base: Path, error: str) -> Problem:
    """Turn `a.b.c: message` from yamale into a Problem with a real location."""
    where, _, message = error.partition(": ")
    if error.endswith(_UNEXPECTED):  # the unknown key itself may contain ": "
        where, message = error[: -len(_UNEXPECTED)], _UNEXPECTED[2:]
    elif " : " in error and not message.strip():
        where, _, message = error.partition(" : ")
    where = where.strip()
    rel = _resolve(obj, where.split(".") if where else [])
    path = (*base, *rel)
    if message == "Unexpected element":
        allowed = _allowed_keys(base, rel)
        return _problem(doc, path, _unknown(rel[-1] if rel else "?", allowed, "key"))
    for regex, render in _MESSAGES:
        found = regex.fullmatch(message)
        if found and render:
            message = render(found)
            break
    return _problem(doc, path, message)


def _allowed_keys(base: Path, rel: Path) -> list[str]:
    """The keys the schema allows where an unknown key was found (for hints)."""
    include = SECTIONS.get(base[0], (SINGLE.get(base[0], "sflow"),))[0] if base else ""
    node: Any = compiled().includes[include]._schema if include in compiled().includes else {}
    skip = False  # the next part is a map key or list index of a collection
    for part in rel[:-1]:
        if skip:
            skip = False
            continue
        node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, yv.Map | yv.List) and node.validators:
            node, skip = node.validators[0], True
        if isinstance(node, yv.Include):
            node = compiled().includes[node.include_name]._schema
    return list(node) if isinstance(node, dict) else []


def _resolve(obj: Any, parts: list[str]) -> Path:
    """Map yamale's dotted path back to real keys (ints stay ints)."""
    path: list[Any] = []
    node = obj
    i = 0
    while i < len(parts):
        found = False
        if isinstance(node, dict):
            for j in range(len(parts), i, -1):  # keys may contain dots
                text = ".".join(parts[i:j])
                for key in (text, _int(text)):
                    if key is not None and key in node:
                        path.append(key)
                        node, i, found = node[key], j, True
                        break
                if found:
                    break
        elif isinstance(node, list) and _int(parts[i]) is not None and _int(parts[i]) < len(node):
            path.append(index(_int(parts[i])))
            node, i, found = node[path[-1]], i + 1, True
        if not found:
            path.extend(_int(p) if _int(p) is not None else p for p in parts[i:])
            break
    return tuple(path)


def _int(text: str) -> int | None:
    return int(text) if re.fullmatch(r"-?[0-9]+", text) else None


def _unknown(key: Any, allowed: list[str], what: str) -> str:
    message = f"unknown {what} {_show(key)}"
    close = difflib.get_close_matches(str(key), allowed, n=1)
    if close:
        return f"{message}; did you mean {close[0]!r}?"
    if allowed:
        return f"{message}; expected one of: {', '.join(allowed)}"
    return message


def _problem(doc: Document, path: Path, message: str) -> Problem:
    line, column = doc.mark(path)
    return Problem(doc.filename, line, column, format_path(path), message)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", int: "a number", bool: "true/false"}.get(
        type(value), "a value"
    )
