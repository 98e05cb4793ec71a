"""The read side of the descriptor seam: what VPP answered (RawDump) and the
model being rebuilt from it (Reading).

Each descriptor reads back what it writes, with four hooks (all optional):

- ``reads``: the tables it needs (needs.Dump), asked in one pipelined wave;
- ``follow_up(raw, reading)`` / ``take(raw, requests, results)``: requests
  that need the first wave's indexes (each interface's addresses, each bond's
  members), asked in a second wave, and how their results are kept;
- ``mark(raw, reading)``: what an interface index is (a bond, a tunnel, VPP's
  own plumbing) before interfaces are modelled;
- ``read(raw, reading)``: its part of the model, in registry order (the
  interface descriptor first: the others refine the interfaces it made).

vppcfg.vpp.dump drives them and knows no object type; building the model
from a RawDump is pure, so tests feed it recorded replies.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from vppcfg.model import Interface, InterfaceKind


class RawDump:
    """VPP's replies in plain form, by table: a dump's details (a list of
    dicts), a "get"'s reply (a dict), or a follow-up's results by the index
    they were asked for."""

    def __init__(self, **tables: Any) -> None:
        self.tables: dict[str, Any] = tables
        self.sources: dict[str, str] = {}  # table -> the message that read it

    def __getitem__(self, table: str) -> Any:
        return self.tables[table]

    def __setitem__(self, table: str, value: Any) -> None:
        self.tables[table] = value

    def __contains__(self, table: str) -> bool:
        return table in self.tables

    def rows(self, table: str) -> list[dict[str, Any]]:
        """A dump's details; none when the table was not read."""
        return self.tables.get(table) or []

    def keyed(self, table: str) -> dict[Any, Any]:
        """A table of results by index; none when it was not read (for the
        readers, which leave the RawDump as it is)."""
        return self.tables.get(table) or {}

    def by_index(self, table: str) -> dict[int, Any]:
        """A follow-up's results, to fill (made on first use)."""
        return self.tables.setdefault(table, {})

    def __repr__(self) -> str:
        return f"RawDump({', '.join(self.tables)})"


class Reading:
    """The model being rebuilt from one RawDump."""

    def __init__(self, raw: RawDump) -> None:
        interfaces = raw.rows("interfaces")
        self.details = {d["sw_if_index"]: d for d in interfaces}
        self.names = {d["sw_if_index"]: d["interface_name"] for d in interfaces}
        self.hidden: set[int] = {0}  # VPP's own plumbing (local0, lcp host taps)
        self.kinds: dict[int, InterfaceKind] = {}  # marked by the object types
        self.kept: dict[int, Interface] = {}  # sw_if_index -> the modelled interface
        self.foreign: set[str] = set()  # keys of objects vppcfg did not create
        self.sections: dict[str, Any] = {}  # Dataplane field -> its value

    def interface(self, index: int) -> Interface | None:
        return self.kept.get(index)

    def set(self, index: int, **changes: Any) -> None:
        """Set fields of a modelled interface (nothing for one not modelled)."""
        itf = self.kept.get(index)
        if itf is not None:
            self.kept[index] = replace(itf, **changes)

    def mark(self, rows: list[dict[str, Any]], kind: InterfaceKind) -> None:
        """The interfaces of these details (by sw_if_index) are of `kind`."""
        self.kinds.update((row["sw_if_index"], kind) for row in rows)

    def modelled(self, rows: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], Interface]]:
        """Each detail whose interface is modelled, with that interface."""
        for row in rows:
            itf = self.kept.get(row["sw_if_index"])
            if itf is not None:
                yield row, itf

    def foreign_interface(self, name: str) -> bool:
        return f"interfaces/{name}" in self.foreign


__all__ = ["RawDump", "Reading"]
