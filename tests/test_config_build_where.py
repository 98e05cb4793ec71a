"""Built.where: every model key's place in the file, a sub-interface's made
from the model when asked."""

from __future__ import annotations

import pytest

from vppcfg.config import loader
from vppcfg.config.build import build

TEXT = """
loopbacks:
  loop1: {}
interfaces:
  GigabitEthernet3/0/0:
    sub-interfaces:
      100: {}
      7: {description: seven}
  BondEthernet0:
    sub-interfaces:
      5: {}
  loop2: {}
bondethernets:
  BondEthernet0: {}
  BondEthernet1: {}
taps:
  tap0: {host: {name: t0}}
bridgedomains:
  bd1: {}
"""

EXPECTED = {
    "interfaces/loop1": ("loopbacks", "loop1"),
    "interfaces/GigabitEthernet3/0/0": ("interfaces", "GigabitEthernet3/0/0"),
    "interfaces/GigabitEthernet3/0/0.100":
        ("interfaces", "GigabitEthernet3/0/0", "sub-interfaces", 100),
    "interfaces/GigabitEthernet3/0/0.7":
        ("interfaces", "GigabitEthernet3/0/0", "sub-interfaces", 7),
    "interfaces/BondEthernet0": ("interfaces", "BondEthernet0"),
    "interfaces/BondEthernet0.5": ("interfaces", "BondEthernet0", "sub-interfaces", 5),
    "interfaces/BondEthernet1": ("bondethernets", "BondEthernet1"),
    "interfaces/tap0": ("taps", "tap0"),
    "bonds/BondEthernet0": ("bondethernets", "BondEthernet0"),
    "bonds/BondEthernet1": ("bondethernets", "BondEthernet1"),
    "taps/tap0": ("taps", "tap0"),
    "bridge_domains/bd1": ("bridgedomains", "bd1"),
    "sflow": ("sflow",),
}


def test_every_key_has_its_place() -> None:
    where = build(loader.parse(TEXT, "w.yaml").data).where
    assert dict(where.items()) == EXPECTED
    assert len(where) == len(EXPECTED) and sorted(where) == sorted(EXPECTED)


@pytest.mark.parametrize("key", [
    "interfaces/loop2",  # a loopback under `interfaces` is not built
    "interfaces/GigabitEthernet3/0/0.8", "interfaces/nothing", "bonds/BondEthernet9", "nothing",
])
def test_a_key_not_in_the_model_has_no_place(key: str) -> None:
    where = build(loader.parse(TEXT, "w.yaml").data).where
    assert where.get(key) is None and where.get(key, ()) == () and key not in where
    with pytest.raises(KeyError):
        where[key]
