"""The semantic rules' shortcuts (issue 20) change no verdict: each rule
module first asks, in C, whether a large file has anything for it to say,
and walks its objects only if so. With every shortcut turned off (always
"maybe"), the rules must give the same problems and warnings, on random
configs and on those configs broken the ways the rules look for."""

from __future__ import annotations

import copy
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.walk import random_config, to_text
from vppcfg.config import ConfigError, loader, rules, schema
from vppcfg.config.build import build
from vppcfg.config.rules import addresses, bridges, interfaces, vxlan

ROOT = Path(__file__).resolve().parents[1]
PHYS = [f"GigabitEthernet3/0/{i}" for i in range(6)]
BROKEN_ADDRESSES = ["10.0.0.1/24", "10.0.0.0/16", "10.0.0.5/30", "192.0.2.1/32", "2001:db8::1/64",
                    "2001:db8::/48", "fe80::1/64", "febf::1/16", "0.0.0.0/0", "::/0"]


def _subs(cfg: dict[str, Any]) -> Iterator[tuple[dict[str, Any], int, dict[str, Any]]]:
    for body in cfg.get("interfaces", {}).values():
        for sub_id, sub in (body or {}).get("sub-interfaces", {}).items():
            yield body, sub_id, sub


def _bodies(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    found = [b for b in cfg.get("interfaces", {}).values() if isinstance(b, dict)]
    return found + [sub for _, _, sub in _subs(cfg)] + list(cfg.get("loopbacks", {}).values())


def _address(rng: random.Random, cfg: dict[str, Any]) -> None:
    rng.choice(_bodies(cfg)).setdefault("addresses", []).append(rng.choice(BROKEN_ADDRESSES))


def _sub_field(rng: random.Random, cfg: dict[str, Any]) -> None:
    subs = list(_subs(cfg))
    if not subs:
        return
    parent, sub_id, sub = rng.choice(subs)
    change = rng.randrange(10)
    if change == 0:
        sub["mtu"] = parent.get("mtu", 1500) + 1
    elif change == 1:
        parent["state"], sub["state"] = "down", "up"
    elif change == 2:
        sub["encapsulation"] = {"dot1q": rng.choice((1, 5, 100)), "exact-match": rng.random() < .5}
    elif change == 3:
        sub["encapsulation"] = {"dot1ad": 7, "inner-dot1q": 9, "exact-match": True}
        sub["lcp"] = "qinq0"
    elif change == 4:
        sub.clear()
    elif change == 5:
        parent.pop("lcp", None)
        sub["lcp"] = "orphan0"
    elif change == 6:  # an outer tag past 4095, implied by the id
        parent["sub-interfaces"][5000 + sub_id] = {"description": "implied tag"}
    elif change == 7:
        sub["encapsulation"] = {"dot1q": 10, "dot1ad": 20}
    elif change == 8:
        sub["unnumbered"] = rng.choice(("loop999", *cfg.get("loopbacks", {"loop0": 0})))
    else:
        sub["mac"] = "02:fe:00:00:00:01"


def _bridge(rng: random.Random, cfg: dict[str, Any]) -> None:
    bds = cfg.get("bridgedomains")
    if not bds:
        return
    bd = bds[rng.choice(list(bds))]
    names = list(cfg.get("interfaces", {})) + list(cfg.get("loopbacks", {}))
    change = rng.randrange(4)
    if change == 0 and names:
        bd.setdefault("interfaces", []).append(rng.choice(names))
    elif change == 1:
        bd["mtu"] = rng.choice((1500, 9000, 9216))
    elif change == 2 and names:
        bd["bvi"] = rng.choice(names)
    elif bd.get("interfaces"):
        bd["interfaces"].append(bd["interfaces"][0])


def _tunnel(rng: random.Random, cfg: dict[str, Any]) -> None:
    tunnels = cfg.get("vxlan_tunnels")
    if not tunnels:
        return
    tunnel = tunnels[rng.choice(list(tunnels))]
    tunnel["remote"] = rng.choice((tunnel["local"], "239.1.1.1", "0.0.0.0", "2001:db8::9",
                                   "192.0.2.77"))


MUTATIONS: list[Callable[[random.Random, dict[str, Any]], None]] = [
    _address, _sub_field, _bridge, _tunnel]


def _verdicts(text: str, name: str) -> tuple[list[str], list[str]] | None:
    """The rules' problems and warnings (as text) of a file the schema takes."""
    try:
        doc = loader.parse(text, name)
    except ConfigError:
        return None
    problems, _ = schema.check_detailed(doc)
    if problems or doc.empty:
        return None
    found, warnings = rules.run_all(build(doc.data), doc, frozenset())
    return [str(p) for p in found], [str(w) for w in warnings]


def _configs(seed: int) -> Iterator[tuple[str, str]]:
    rng = random.Random(seed)
    base = random_config(rng, PHYS)
    yield f"walk-{seed}", to_text(base)
    for n in range(12):
        cfg = copy.deepcopy(base)
        for _ in range(rng.randint(1, 3)):
            rng.choice(MUTATIONS)(rng, cfg)
        yield f"walk-{seed}-{n}", to_text(cfg)


def _scale(objects: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "bench"))
    from scale_config import generate

    return yaml.safe_load(generate(objects))


@pytest.mark.parametrize("seed", range(12))
def test_the_rules_say_the_same_without_their_shortcuts(monkeypatch, seed: int) -> None:
    said = []
    configs = list(_configs(seed))
    if seed % 4 == 0:  # a large file's shapes: many subs per parent, bridges, tunnels
        rng, scale = random.Random(seed), _scale(300)
        for n in range(6):
            cfg = copy.deepcopy(scale)
            rng.choice(MUTATIONS)(rng, cfg)
            configs.append((f"scale-{n}", to_text(cfg)))
    for name, text in configs:
        with monkeypatch.context() as off:
            for module, shortcut in ((addresses, "_all_apart"), (bridges, "_members_fine"),
                                     (bridges, "_bvis_fine"), (interfaces, "_one_plain_tag"),
                                     (vxlan, "_v4_unicast")):
                off.setattr(module, shortcut, lambda *_: False)
            off.setattr(interfaces, "_with_own_checks", lambda ctx: iter(ctx.ifaces.values()))
            walked = _verdicts(text, name)
        assert _verdicts(text, name) == walked, name
        said.append(walked)
    # the mutations reach the rules: most files are checked, many with something to say
    checked = [v for v in said if v is not None]
    assert len(checked) > len(said) // 2
    assert any(problems or warnings for problems, warnings in checked)
