"""model.new_interface: the builder's fast Interface(...) makes the same value
as the dataclass's own constructor, frozen like it."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

from vppcfg.model import (
    Encapsulation,
    Interface,
    InterfaceAcls,
    InterfaceKind,
    new_interface,
)

SETTINGS = [
    {"name": "GigabitEthernet3/0/0", "kind": InterfaceKind.PHY},
    {"name": "loop0", "kind": InterfaceKind.LOOPBACK, "description": "d",
     "mac": "02:00:00:00:00:01", "mtu": 9000, "state": "down", "lcp": "lo0",
     "addresses": ("192.0.2.1/24",), "mpls": True, "acls": InterfaceAcls(("a",), ("b", "c")),
     "unnumbered": "loop1", "l2xc": "loop2"},
    {"name": "GigabitEthernet3/0/0.100", "kind": InterfaceKind.SUB,
     "parent": "GigabitEthernet3/0/0", "sub_id": 100,
     "encapsulation": Encapsulation(100, 0, 5, False), "sflow": True, "device_type": "dpdk"},
]


def test_it_takes_the_dataclass_parameters_with_the_same_defaults() -> None:
    fast = inspect.signature(new_interface).parameters
    assert list(fast) == [f.name for f in dataclasses.fields(Interface)]
    for field in dataclasses.fields(Interface):
        default = field.default_factory() if callable(field.default_factory) else field.default
        assert fast[field.name].default in (default, inspect.Parameter.empty), field.name


@pytest.mark.parametrize("settings", SETTINGS)
def test_it_makes_the_same_value_as_the_dataclass(settings: dict) -> None:
    fast, plain = new_interface(**settings), Interface(**settings)
    assert type(fast) is Interface
    assert fast == plain and hash(fast) == hash(plain) and repr(fast) == repr(plain)
    assert dataclasses.astuple(fast) == dataclasses.astuple(plain)
    assert pickle.loads(pickle.dumps(fast)) == plain
    assert dataclasses.replace(fast, mtu=1234) == dataclasses.replace(plain, mtu=1234)


def test_what_it_makes_is_frozen() -> None:
    fast = new_interface("loop0", InterfaceKind.LOOPBACK)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.mtu = 9000  # type: ignore[misc]
    assert fast.mtu == 1500
