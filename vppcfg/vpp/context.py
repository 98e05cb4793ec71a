"""The executor's view of VPP: `vppcfg.ops.VppContext` over a VppConnection."""

from __future__ import annotations

from typing import Any

from vppcfg.vpp.dump import NONE
from vppcfg.vpp.plain import plain_list

# Messages that only read; everything else counts as a change (for fault
# injection, audit and "touching nothing" checks).
READ_ONLY_SUFFIXES = ("_dump", "_get", "_get_v2")
READ_ONLY = {"cli_inband", "control_ping", "show_version", "show_threads"}


def is_mutating(message: str) -> bool:
    return not (message in READ_ONLY or message.endswith(READ_ONLY_SUFFIXES))


class ApiContext:
    """Calls with retval checking, plus the name -> sw_if_index map.

    The map is read from VPP once, then kept up to date by the executor
    (`learn` after a create, `forget` after a delete), so executing a plan
    needs no extra dumps.
    """

    def __init__(self, conn: Any, index: dict[str, int] | None = None) -> None:
        self.conn = conn
        self._index: dict[str, int] = {}
        self.changes = 0  # mutating calls made through this context
        self.refresh(index)

    def refresh(self, index: dict[str, int] | None = None) -> None:
        """(Re-)read the name -> index maps from VPP, unless `index` is given."""
        if index is None:
            details = plain_list(self.conn.call("sw_interface_dump", sw_if_index=NONE))
            index = {d["interface_name"]: d["sw_if_index"] for d in details}
        self._index = dict(index)

    # -- VppContext ---------------------------------------------------------

    def call(self, message: str, **args: Any) -> Any:
        if is_mutating(message):
            self.changes += 1
        return self.conn.call(message, **args)

    def has_message(self, message: str) -> bool:
        return self.conn.has_message(message)

    def sw_if_index(self, name: str) -> int:
        return self._index[name]

    def learn(self, name: str, sw_if_index: int) -> None:
        self._index[name] = sw_if_index

    def forget(self, name: str) -> None:
        prefix = name + "."
        for known in [n for n in self._index if n == name or n.startswith(prefix)]:
            del self._index[known]

    def names(self) -> dict[str, int]:
        return dict(self._index)
