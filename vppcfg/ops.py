"""Operations: the planner's output, as plain data.

An Operation says *what* to change (create / update / delete one object or one
field of one object). How it is written as VPP CLI and how it is carried out
through the binary API is looked up by ``obj`` in the object-type registry
(vppcfg.objects), so rendering and execution stay in the object's own module.

Interfaces are referred to by name; the executor resolves names to
sw_if_index at run time, because objects created earlier in the same plan have
no index yet when the plan is made.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from vppcfg.model import FrozenDict


class Operation(NamedTuple):
    """One change (immutable; a named tuple, as plans hold tens of thousands)."""

    obj: str  # object type, e.g. "loopback", "sub-interface", "bridge-domain", "address"
    action: str  # "create" | "update" | "delete"
    key: str  # the object's key, e.g. "interfaces/loop0", "bridge_domains/bd10"
    params: FrozenDict[str, Any] = FrozenDict()
    reason: str = ""  # why, for the plan's comments ("mode changed: bond is recreated")

    def as_dict(self, plain: bool = True) -> dict[str, Any]:
        """The operation as JSON data; `plain=False` keeps the parameters as they
        are (FrozenDicts), for an encoder that writes them itself: a copy of
        every operation's parameters costs seconds in a large plan."""
        return {
            "obj": self.obj,
            "action": self.action,
            "key": self.key,
            "params": _plain(self.params) if plain else self.params,
            "reason": self.reason,
        }


class CreateRun(NamedTuple):
    """Plain creates of one object type that follow each other in a plan, as
    the planner listed them (see Descriptor.columns): each one is the
    Operation(obj, "create", key, value(source)) of its descriptor. Most of a
    large plan is such runs, and its CLI is written a run at a time
    (Descriptor.created_run), without an Operation per node."""

    obj: str
    keys: list[str]
    sources: list[Any]
    action: str = "create"


def _plain(value: Any) -> Any:
    """JSON-friendly copy of operation parameters."""
    if isinstance(value, FrozenDict | dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


class VppContext(Protocol):
    """What an object module needs to carry out an operation on a VPP.

    Implemented by the vpp_papi backend (vppcfg.vpp). Every call checks the
    reply's retval and raises VppApiError on a non-zero one.
    """

    def call(self, message: str, **args: Any) -> Any:
        """Call one API message (by its exact name) and return the reply."""
        ...

    def has_message(self, message: str) -> bool:
        """Whether the connected VPP offers this message (for version choice)."""
        ...

    def sw_if_index(self, name: str) -> int:
        """The sw_if_index of an interface by name (raises KeyError if unknown)."""
        ...

    def learn(self, name: str, sw_if_index: int) -> None:
        """Record the index of an interface this plan just created."""
        ...

    def forget(self, name: str) -> None:
        """Drop an interface this plan just deleted (and its sub-interfaces)."""
        ...
