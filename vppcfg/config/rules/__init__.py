"""Semantic rules: what a running VPP needs for a config to be applied safely.

One module per object type; each has `check(ctx)`. The `Context` indexes the
model once (who is in which bridge, bond or cross-connect, the sub-interfaces
of each parent, ...) so every rule is a lookup and the whole run is linear in
the size of the config.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property
from typing import Any

from vppcfg.config.build import Built
from vppcfg.config.loader import Document
from vppcfg.config.problems import Path, Problem, format_path
from vppcfg.model import Interface


class Context:
    def __init__(self, built: Built, doc: Document, allowed: frozenset[str] = frozenset()) -> None:
        self.dp = built.dataplane
        # language rules (vppcfg.config.verdicts) the operator turned into warnings
        self.allowed = allowed
        self.raw = built.raw
        self.where = built.where
        self.addresses = built.addresses  # the interface addresses, read by the builder
        self.doc = doc
        self.problems: list[Problem] = []
        # Advice, not refusals: things VPP holds and works with but that are
        # most likely a mistake in a hand-written file (mismatched MTUs ...).
        self.warnings: list[Problem] = []
        # a plain dict: the rules look interfaces up several times each
        self.ifaces: dict[str, Interface] = self.dp.interfaces.to_dict()
        self.subs: dict[str, list[Interface]] = defaultdict(list)
        self.xc_targets: dict[str, list[str]] = defaultdict(list)
        for iface in self.ifaces.values():  # one pass, for every index by interface
            if iface.parent:
                self.subs[iface.parent].append(iface)
            if iface.l2xc:
                self.xc_targets[iface.l2xc].append(iface.name)
        self.bridge_of: dict[str, str] = {}
        self.bvi_of: dict[str, str] = {}
        for bridge in self.dp.bridge_domains.values():
            for member in bridge.members:
                self.bridge_of.setdefault(member, bridge.name)
            if bridge.bvi:
                self.bvi_of.setdefault(bridge.bvi, bridge.name)
        self.bond_of: dict[str, str] = {}
        for bond in self.dp.bonds.values():
            for member in bond.members:
                self.bond_of.setdefault(member, bond.name)
        # is_l2's answers in one set: bridge members, l2xc targets and sources
        # (the interface rules ask for every interface: one lookup, not three)
        self.l2_names: set[str] = {*self.bridge_of, *self.xc_targets}
        for sources in self.xc_targets.values():
            self.l2_names.update(sources)

    @cached_property
    def single_tagged(self) -> dict[tuple[str, int, int], Interface]:
        """Single-tagged sub-interfaces by (parent, dot1q, dot1ad): the middle
        of a QinQ. Made on first use: most files have no QinQ to ask."""
        found: dict[tuple[str, int, int], Interface] = {}
        for iface in self.ifaces.values():
            encap = iface.encapsulation
            if iface.parent and encap and not encap.inner_dot1q:
                found.setdefault((iface.parent, encap.dot1q, encap.dot1ad), iface)
        return found

    def is_l2(self, name: str) -> bool:
        """A bridge member, an l2xc source or an l2xc target."""
        return name in self.l2_names

    def path(self, key: str, *fields: Any) -> Path:
        return (*self.where.get(key, ()), *fields)

    def report(self, key: str, fields: tuple[Any, ...] | str, message: str) -> None:
        """A problem with the object `key` ("interfaces/loop0"), at one of its fields."""
        self.problems.append(self._at(key, fields, message))

    def warn(self, key: str, fields: tuple[Any, ...] | str, message: str) -> None:
        """Like report, for a state VPP accepts (so a dump of it must check)."""
        self.warnings.append(self._at(key, fields, message))

    def refuse(
        self, rule: str, key: str, fields: tuple[Any, ...] | str, why: str, fix: str
    ) -> None:
        """A state VPP accepts but the language refuses (rule `rule` of
        vppcfg.config.verdicts): an error saying why and what to write
        instead, or a warning when the operator allowed the rule."""
        if rule in self.allowed:
            self.warnings.append(self._at(key, fields, f"{why} (allowed: {rule})", rule))
        else:
            message = f"{why}; {fix} (or allow it: --allow {rule})"
            self.problems.append(self._at(key, fields, message, rule))

    def _at(
        self, key: str, fields: tuple[Any, ...] | str, message: str, rule: str = ""
    ) -> Problem:
        if isinstance(fields, str):
            fields = (fields,) if fields else ()
        path = self.path(key, *fields)
        line, column = self.doc.mark(path)
        return Problem(self.doc.filename, line, column, format_path(path), message, rule)

    def raw_of(self, key: str) -> dict[str, Any]:
        node: Any = self.raw
        for part in self.where.get(key, ()):
            if not isinstance(node, dict):
                return {}
            node = node.get(part, {})
        return node if isinstance(node, dict) else {}

    def others(self, names: list[str], but: str) -> str:
        """`a, b, c and 7 more`: the names other than `but` (listed once), kept short
        and cheap, since a name shared by thousands is reported for each of them."""
        shown: list[str] = []
        for name in names:
            if name != but:
                shown.append(name)
                if len(shown) == 3:
                    break
        more = len(names) - 1 - len(shown)
        return f"{', '.join(shown)} and {more} more" if more > 0 else ", ".join(shown)


def run(built: Built, doc: Document, allowed: frozenset[str] = frozenset()) -> list[Problem]:
    return run_all(built, doc, allowed)[0]


def run_all(
    built: Built, doc: Document, allowed: frozenset[str] = frozenset(), language_only: bool = False
) -> tuple[list[Problem], list[Problem]]:
    """(problems, warnings), each sorted by place; `allowed` rules warn.
    `language_only`: only the modules that hold language rules (what a dump
    needs to know, vppcfg.config.emit.needed_allows)."""
    from vppcfg.config.rules import (
        acls,
        addresses,
        bonds,
        bridges,
        interfaces,
        l2xc,
        lcp,
        limits,
        sflow,
        taps,
        vxlan,
    )

    ctx = Context(built, doc, allowed)
    modules = (interfaces, addresses, lcp, l2xc, bonds, bridges, vxlan, taps, acls, sflow, limits)
    if language_only:
        modules = (interfaces, l2xc, bonds, acls, limits)
    for module in modules:
        module.check(ctx)
    return sorted(set(ctx.problems), key=_order), sorted(set(ctx.warnings), key=_order)


def _order(p: Problem) -> tuple:
    return (p.line, p.column, p.path, p.message)
