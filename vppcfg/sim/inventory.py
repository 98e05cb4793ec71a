"""The simulated machine's physical ports: what VPP finds at start-up.

An inventory file is YAML, either a list of ports or a mapping with a ``phys`` list:

    phys:
      - name: GigabitEthernet3/0/0
        mac: "02:fe:00:00:00:01"   # quote MACs: YAML 1.1 reads 00:00:.. as a number
        mtu: 9000                  # optional, hardware MTU
        dev_type: dpdk             # optional, as sw_interface_dump reports it
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

MAC_RE = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
PHY_KEYS = ("name", "mac", "mtu", "dev_type")


class InventoryError(ValueError):
    """A bad inventory file or --phy option; the message names where."""


@dataclass(frozen=True)
class Phy:
    name: str  # VPP interface name, e.g. "GigabitEthernet3/0/0"
    mac: str  # "02:fe:00:00:00:01"
    mtu: int = 9000  # hardware MTU (max frame size) VPP starts with
    dev_type: str = "dpdk"  # as sw_interface_dump reports interface_dev_type


def default_inventory() -> list[Phy]:
    """Four DPDK ports, GigabitEthernet3/0/0 .. 3/0/3."""
    return [Phy(f"GigabitEthernet3/0/{n}", default_mac(n)) for n in range(4)]


def default_mac(position: int) -> str:
    """A locally administered MAC for the port at this position (0-based)."""
    return f"02:fe:00:00:{(position + 1) >> 8 & 0xFF:02x}:{(position + 1) & 0xFF:02x}"


def load_inventory(path: str | Path) -> list[Phy]:
    """Read an inventory YAML file; InventoryError names the file and the entry at fault."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise InventoryError(f"{path}: {err.strerror or err}") from err
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        problem = getattr(err, "problem", None) or err
        raise InventoryError(f"{path}{where}: not valid YAML: {problem}") from err
    entries = data.get("phys") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not entries:
        raise InventoryError(f"{path}: expected a list of phys (or a mapping with 'phys')")
    return check_inventory(
        [phy_from_dict(e, i, f"{path}: phy #{i + 1}") for i, e in enumerate(entries)], str(path)
    )


def phy_from_dict(entry: Any, position: int, where: str) -> Phy:
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict):
        raise InventoryError(f"{where}: expected a mapping with at least 'name'")
    unknown = sorted(set(entry) - set(PHY_KEYS))
    if unknown:
        raise InventoryError(f"{where}: unknown key(s) {', '.join(map(str, unknown))}")
    name = entry.get("name")
    if not isinstance(name, str) or not name or any(c.isspace() for c in name):
        raise InventoryError(f"{where}: 'name' must be an interface name without spaces")
    where = f"{where} ({name})"
    mac = entry.get("mac", default_mac(position))
    if not isinstance(mac, str):
        raise InventoryError(f"{where}: 'mac' must be a quoted string like \"02:fe:00:00:00:01\"")
    if not MAC_RE.match(mac):
        raise InventoryError(f"{where}: bad mac {mac!r}")
    mtu = entry.get("mtu", 9000)
    if isinstance(mtu, bool) or not isinstance(mtu, int) or not 64 <= mtu <= 65535:
        raise InventoryError(f"{where}: 'mtu' must be an integer 64..65535")
    dev_type = entry.get("dev_type", "dpdk")
    if not isinstance(dev_type, str) or not dev_type:
        raise InventoryError(f"{where}: 'dev_type' must be a string")
    return Phy(name=name, mac=mac.lower(), mtu=mtu, dev_type=dev_type)


def parse_phy_option(spec: str, position: int) -> Phy:
    """A --phy option: NAME[,mac=MAC][,mtu=N][,dev_type=T]."""
    name, *pairs = spec.split(",")
    entry: dict[str, Any] = {"name": name.strip()}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise InventoryError(f"--phy {spec}: expected key=value, got {pair!r}")
        key = key.strip()
        entry[key] = value.strip()
        if key == "mtu":
            try:
                entry[key] = int(value)
            except ValueError:
                raise InventoryError(f"--phy {spec}: mtu must be an integer") from None
    return phy_from_dict(entry, position, f"--phy {spec}")


def check_inventory(phys: list[Phy], where: str) -> list[Phy]:
    """Names and MACs must be unique, as on a real machine."""
    for attr in ("name", "mac"):
        seen: set[str] = set()
        for phy in phys:
            value = getattr(phy, attr)
            if value in seen:
                raise InventoryError(f"{where}: duplicate {attr} {value}")
            seen.add(value)
    return phys
