"""One object type, one home (docs/design.md, "Adding an object type").

An object type's descriptor writes it, reads it back, names its messages,
their API files and what their refusals mean; VPP's numbers are written in
vppcfg/vpp_numbers.py only. These tests keep the generic layers (the backend,
apply, the planner) free of any object type, so that a new type touches its
descriptor, the language files and the simulator only.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from vppcfg.objects import DESCRIPTORS
from vppcfg.objects.needs import Dump
from vppcfg.vpp.definitions import BASICS

SOURCE = Path(__file__).resolve().parents[1] / "vppcfg"
GENERIC = sorted([*SOURCE.glob("vpp/*.py"), *SOURCE.glob("apply/*.py"),
                  SOURCE / "planner.py", SOURCE / "ops.py"])
# where the descriptor seam lives: the generic layers may use these
SEAM = {"vppcfg.objects", "vppcfg.objects.base", "vppcfg.objects.needs",
        "vppcfg.objects.reading"}


def _declared_messages() -> set[str]:
    return {m for d in DESCRIPTORS for need in (*d.uses, *d.reads) for m in need.messages}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("path", GENERIC, ids=lambda p: str(p.relative_to(SOURCE)))
def test_generic_layers_name_no_message_of_an_object_type(path: Path) -> None:
    words = set(re.findall(r"[\"']([a-z0-9_]+)[\"']", path.read_text(encoding="utf-8")))
    named = words & (_declared_messages() - BASICS)
    assert not named, f"{path.name} names {sorted(named)}: they belong in a descriptor"


@pytest.mark.parametrize("path", GENERIC, ids=lambda p: str(p.relative_to(SOURCE)))
def test_generic_layers_import_no_object_type_module(path: Path) -> None:
    typed = {m for m in _imports(path) if m.startswith("vppcfg.objects") and m not in SEAM}
    assert not typed, f"{path.name} imports {sorted(typed)}"


def test_no_object_type_imports_the_planner() -> None:
    """The adjust hooks see the plan through objects.base.PlanView."""
    for path in SOURCE.glob("objects/*.py"):
        assert "vppcfg.planner" not in _imports(path), path.name


# VPP's numbers as they would be written again: ~0, the zero MAC, the tag
NUMBERS = re.compile(r"0x[fF]{8}\b|4294967295|00:00:00:00:00:00|[\"']vppcfg[\"']\s*[,)]")


@pytest.mark.parametrize("area", ["objects", "vpp", "apply", "sim"])
def test_vpp_numbers_are_written_once(area: str) -> None:
    found = []
    for path in sorted((SOURCE / area).rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NUMBERS.search(line) and "name: str =" not in line:  # a client name, not a tag
                found.append(f"{path.relative_to(SOURCE)}:{number}: {line.strip()}")
    assert not found, "use vppcfg.vpp_numbers:\n" + "\n".join(found)


def test_each_descriptor_names_the_api_files_of_its_messages() -> None:
    from vppcfg.sim.codec import DEFAULT_API_DIR
    from vppcfg.vpp.connection import BASIC_MODULES, api_files

    module_of = {m[0]: Path(f).name.removesuffix(".api.json")
                 for f in api_files(DEFAULT_API_DIR)
                 for m in json.loads(Path(f).read_text(encoding="utf-8"))["messages"]}
    for desc in DESCRIPTORS:
        mine = BASIC_MODULES | set(desc.api_modules)
        for need in (*desc.uses, *desc.reads):
            # the newest is in 26.10's files (older fallbacks may be gone)
            newest = need.messages[0]
            assert module_of.get(newest) in mine, (desc.obj, newest, module_of.get(newest))
        unused = set(desc.api_modules) - {module_of.get(m) for need in (*desc.uses, *desc.reads)
                                          for m in need.messages}
        assert not unused, (desc.obj, unused)


def test_every_table_read_back_has_one_home() -> None:
    """Each RawDump table is declared by one object type (a table declared
    twice is the same type's older message)."""
    owner: dict[str, str] = {}
    for desc in DESCRIPTORS:
        for dump in desc.reads:
            if isinstance(dump, Dump):
                assert owner.setdefault(dump.table, desc.obj) == desc.obj, dump.table
    assert {"interfaces", "bonds", "taps", "vxlans", "bridge_domains", "acls"} <= set(owner)
