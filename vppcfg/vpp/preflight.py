"""Preflight: before any change, check that the connected VPP offers every
message the plan will send.

Each object type declares the messages its operations send and the dumps
that read it back, with the plugin they belong to (`uses` and `reads` of the
descriptors, vppcfg.objects.needs). Once the live state is read and the plan
made, every planned operation's needs are compared with what VPP offers (its
message table, name and CRC, as the client saw it when connecting). A need is
met when any of its messages is offered (the executor sends the newest one).

An unmet need is one of two things, told apart because the fixes differ:
the plugin is not loaded or does not exist in this release (VPP's table has
no message of that name), or the API definitions vppcfg loaded are not the
running VPP's (VPP has a message of that name, with another CRC, or the
definitions lack it).

Plain data in, plain data out: `Offer` is taken from a connection once,
`Finding`s are what the commands print and `apply` refuses on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from vppcfg.objects.needs import Plugin, Uses
from vppcfg.ops import Operation

ABSENT = "absent"  # VPP has no message of that name: plugin not loaded, or too old
MISMATCH = "mismatch"  # VPP has it under another CRC, or our definitions lack it


@dataclass(frozen=True)
class Offer:
    """What a connected VPP offers, as the client saw it when connecting."""

    usable: frozenset[str]  # messages the client can send (name and CRC agree)
    vpp: dict[str, str]  # every message in VPP's table -> its CRC ("1a2b3c4d")
    ours: dict[str, str]  # messages in the loaded definitions -> their CRC
    json_dir: str = ""

    def status(self, message: str) -> str:
        """"" when usable, else ABSENT or MISMATCH."""
        if message in self.usable:
            return ""
        return MISMATCH if message in self.vpp else ABSENT

    def explain(self, message: str) -> str:
        """Why a MISMATCH message cannot be used, in one phrase."""
        if message not in self.ours:
            return f"VPP has {message}, the definitions in {self.json_dir or 'use'} lack it"
        return (f"VPP has {message} with CRC 0x{self.vpp[message]}, the definitions in "
                f"{self.json_dir or 'use'} say {self.ours[message]}")


@dataclass
class Finding:
    """What one plugin lacks (or whose definitions do not match), the
    messages concerned and what needs them."""

    plugin: Plugin
    status: str  # ABSENT or MISMATCH
    needs: list[tuple[str, ...]] = field(default_factory=list)  # each: the choices, newest first
    details: list[str] = field(default_factory=list)  # MISMATCH: per message, why
    needed_by: list[str] = field(default_factory=list)  # "file:line: action obj key"
    operations: list[tuple[str, str, str]] = field(default_factory=list)  # (obj, action, key)

    def add(self, need: Uses, offer: Offer) -> None:
        if need.messages in self.needs:
            return
        self.needs.append(need.messages)
        wrong = [m for m in need.messages if offer.status(m) == MISMATCH]
        if wrong:
            self.details.append(offer.explain(wrong[0]))

    @property
    def messages(self) -> list[str]:
        return [m for need in self.needs for m in need]

    def headline(self) -> str:
        if self.status == MISMATCH:
            return (f"the API definitions are not the running VPP's: {'; '.join(self.details)}; "
                    "point --vpp-json-dir at the *.api.json this VPP was built with")
        lacking = ", ".join(" / ".join(need) for need in self.needs)
        if self.plugin.so:
            return f"this VPP lacks {self.plugin.describe()}: no {lacking}"
        return f"this VPP lacks {lacking} ({self.plugin.describe()})"

    def remedy(self) -> str:
        """What to do about it ("" when the headline says it)."""
        if self.status == MISMATCH or not self.plugin.so:
            return ""
        if self.plugin.since:
            return (f"VPP {self.plugin.since} or later has it; enable it in startup.conf: "
                    f"{self.plugin.stanza}")
        if self.plugin.core_before:
            return (f"from VPP {self.plugin.core_before} it is a plugin; enable it in "
                    f"startup.conf: {self.plugin.stanza}")
        return f"enable it in startup.conf: {self.plugin.stanza}"

    def lines(self, limit: int = 10) -> list[str]:
        out = [self.headline()]
        if self.remedy():
            out.append(f"  {self.remedy()}")
        out += [f"  needed by {where}" for where in self.needed_by[:limit]]
        if len(self.needed_by) > limit:
            out.append(f"  ... and {len(self.needed_by) - limit} more")
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"plugin": self.plugin.name, "so": self.plugin.so, "since": self.plugin.since,
                "core_before": self.plugin.core_before, "status": self.status,
                "messages": self.messages, "detail": "; ".join(self.details),
                "stanza": self.plugin.stanza, "needed_by": list(self.needed_by)}


Locate = Callable[[Operation], str]  # "file:line" of the config lines behind an operation


def check(ops: Iterable[Operation], offer: Offer, locate: Locate | None = None
          ) -> list[Finding]:
    """The unmet needs of the planned operations, one Finding per plugin
    (and per kind: missing, or definitions mismatch)."""
    from vppcfg.objects import descriptor

    found: dict[tuple[str, str], Finding] = {}
    unmet: dict[tuple[str, str], list[Uses]] = {}  # per (object type, action): plans repeat them
    for op in ops:
        kind = (op.obj, op.action)
        needs = unmet.get(kind)
        if needs is None:
            needs = unmet[kind] = [n for n in descriptor(op.obj).uses
                                   if op.action in n.actions and not _met(n, offer)]
        for need in needs:
            status = _status(need, offer)
            finding = found.setdefault((need.plugin.name, status), Finding(need.plugin, status))
            finding.add(need, offer)
            where = locate(op) if locate else ""
            text = f"{where + ': ' if where else ''}{op.action} {op.obj} {op.key}"
            if not finding.needed_by or finding.needed_by[-1] != text:
                finding.needed_by.append(text)
                finding.operations.append(op[:3])
    return list(found.values())


def unread(offer: Offer) -> list[tuple[str, Finding]]:
    """(object type, why) for every object type the dump cannot read here
    (the dump leaves such a section out)."""
    from vppcfg.objects import DESCRIPTORS

    out: list[tuple[str, Finding]] = []
    for desc in DESCRIPTORS:
        for need in desc.reads:
            if not _met(need, offer):
                out.append((desc.obj, _finding(need, offer)))
                break
    return out


def plugin_of(message: str) -> Plugin | None:
    """The plugin a message belongs to, as the object types declare it."""
    from vppcfg.objects import DESCRIPTORS

    for desc in DESCRIPTORS:
        for need in (*desc.uses, *desc.reads):
            if message in need.messages:
                return need.plugin
    return None


def _met(need: Uses, offer: Offer) -> bool:
    return any(m in offer.usable for m in need.messages)


def _status(need: Uses, offer: Offer) -> str:
    """ABSENT only when VPP has none of the choices under any CRC: a choice
    that VPP has under another CRC means our definitions are the problem."""
    return MISMATCH if any(offer.status(m) == MISMATCH for m in need.messages) else ABSENT


def _finding(need: Uses, offer: Offer) -> Finding:
    finding = Finding(need.plugin, _status(need, offer))
    finding.add(need, offer)
    return finding


def by_operation(findings: list[Finding]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    """(obj, action, key) of each operation named -> the findings naming it, as
    dicts whose "needed_by" is that operation's own entry."""
    out: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for finding in findings:
        plain = finding.as_dict()
        # each operation carries its own line only: all of them would make the JSON grow
        # with the square of the operations named
        for key, where in zip(finding.operations, finding.needed_by, strict=True):
            out.setdefault(key, []).append({**plain, "needed_by": [where]})
    return out


def format_findings(findings: list[Finding], limit: int = 10) -> list[str]:
    return [line for f in findings for line in f.lines(limit)]


# -- where in the config ------------------------------------------------------------



def locator(filename: str, interface_names: Iterable[str], text: str | None = None) -> Locate:
    """A Locate for the config file: the line of the object (or of its field)
    an operation comes from. The file (or `text`) is read again only when
    first asked: positions are needed only to report a problem."""
    names = frozenset(interface_names)
    docs: list[Any] = []

    def locate(op: Operation) -> str:
        from vppcfg.config import loader

        if not docs:
            docs.append(loader.parse(loader.read_text(filename) if text is None else text,
                                     filename))
        doc = docs[0]
        path = _config_path(op.key, names, doc.marks_of())
        return f"{filename}:{doc.mark(path)[0]}" if path else filename

    return locate


def _config_path(key: str, names: frozenset[str], marks: dict[Any, Any]) -> tuple[Any, ...]:
    if key == "sflow":
        return ("sflow",)
    from vppcfg.config.sections import FIELDS, SECTIONS

    collection, _, rest = key.partition("/")
    if collection != "interfaces":
        return (SECTIONS[collection], rest.split("/")[0]) if collection in SECTIONS else ()
    # the longest interface name the key starts with (names may hold "/")
    parts = rest.split("/")
    name = next((n for n in ("/".join(parts[:i]) for i in range(len(parts), 0, -1))
                 if n in names), "")
    if not name:
        return ()
    fieldname = FIELDS.get(rest[len(name) + 1:].split("/")[0], "")
    for base in _interface_paths(name):
        if base in marks:
            return (*base, fieldname) if fieldname else base
    return ()


def _interface_paths(name: str) -> list[tuple[Any, ...]]:
    from vppcfg.config.sections import INTERFACE_SECTIONS

    paths: list[tuple[Any, ...]] = [(s, name) for s in INTERFACE_SECTIONS]
    parent, dot, sub = name.rpartition(".")
    if dot and sub.isdigit():
        paths += [(s, parent, "sub-interfaces", int(sub)) for s in INTERFACE_SECTIONS]
    return paths
