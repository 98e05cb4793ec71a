#!/usr/bin/env python3
"""Generate the simulator's API definitions (vppcfg/sim/api/**/*.api.json) from sim_api.def.

    python scripts/gen_sim_api.py            # write the JSON files
    python scripts/gen_sim_api.py --check    # exit 1 if the committed files are stale

The syntax of sim_api.def is described at its top. The output has the layout and keys
of VPP's own *.api.json (module, types, messages, unions, enums, enumflags, services,
options, aliases, vl_api_version), one file per module, each carrying the types of the
modules it imports, so vpp_papi can load any subset of them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SOURCE = Path(__file__).resolve().parent / "sim_api.def"
OUTPUT = ROOT / "vppcfg" / "sim" / "api"

BASE_TYPES = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f64", "bool", "string"}
HEADERS = {
    "msg+": [["u16", "_vl_msg_id"], ["u32", "client_index"], ["u32", "context"]],
    "msg-": [["u16", "_vl_msg_id"], ["u32", "context"]],
    "msg": [["u16", "_vl_msg_id"]],
}
FIELD_RE = re.compile(
    r"^(?P<type>\w+)\s+(?P<name>\w+)(?:\[(?P<len>\w*)\])?"
    r"(?:\s*=\s*(?P<default>\S+)|\s+(?P<opts>\{.*\}))?$"
)
MSG_RE = re.compile(
    r"^(?P<name>\w+)\s+(?P<crc>0x[0-9a-f]+)(?:\s+(?P<opts>\{.*?\}))?(?::\s*(?P<fields>.*))?$"
)


class DefError(ValueError):
    pass


@dataclass
class Module:
    name: str
    version: str
    crc: str
    plugin: bool
    imports: list[str] = field(default_factory=list)
    # kind -> list of definitions in declaration order (kind: types/unions/enums/enumflags)
    typedefs: dict[str, list[Any]] = field(default_factory=dict)
    aliases: dict[str, dict[str, Any]] = field(default_factory=dict)
    messages: list[list[Any]] = field(default_factory=list)
    services: dict[str, dict[str, Any]] = field(default_factory=dict)


def api_type(name: str) -> str:
    return name if name in BASE_TYPES else f"vl_api_{name}_t"


def parse_field(text: str) -> list[Any]:
    match = FIELD_RE.match(text.strip())
    if not match:
        raise DefError(f"bad field {text!r}")
    out: list[Any] = [api_type(match["type"]), match["name"]]
    length = match["len"]
    if length is not None:
        if length == "":
            out.append(0)
        elif length.isdigit():
            out.append(int(length))
        else:
            out += [0, length]
    if match["default"] is not None:
        out.append({"default": json.loads(match["default"])})
    elif match["opts"]:
        out.append(json.loads(match["opts"]))
    return out


def parse_fields(text: str) -> list[list[Any]]:
    return [parse_field(f) for f in text.split(";") if f.strip()]


def parse(source: str) -> list[Module]:
    modules: list[Module] = []
    for lineno, raw in enumerate(source.splitlines(), 1):
        line = "" if raw.lstrip().startswith("#") else raw.strip()
        if not line:
            continue
        try:
            _statement(modules, line)
        except (DefError, json.JSONDecodeError, IndexError) as err:
            raise DefError(f"{SOURCE.name}:{lineno}: {err}") from err
    return modules


def _statement(modules: list[Module], line: str) -> None:
    word, _, rest = line.partition(" ")
    if word == "module":
        name, version, crc, *flags = rest.split()
        modules.append(Module(name, version, crc, plugin="plugin" in flags))
        return
    if not modules:
        raise DefError("statement before the first module")
    module = modules[-1]
    if word == "import":
        module.imports += rest.split()
    elif word == "alias":
        name, target = rest.split()
        m = re.fullmatch(r"(\w+)(?:\[(\d+)\])?", target)
        if not m:
            raise DefError(f"bad alias {rest!r}")
        alias: dict[str, Any] = {"type": api_type(m[1])}
        if m[2]:
            alias["length"] = int(m[2])
        module.aliases[name] = alias
    elif word in ("enum", "flags"):
        head, _, values = rest.partition(":")
        name, base = head.split()
        entries: list[Any] = [name]
        for item in values.split():
            symbol, value = item.split("=")
            entries.append([symbol, int(value)])
        entries.append({"enumtype": base})
        module.typedefs.setdefault("enums" if word == "enum" else "enumflags", []).append(entries)
    elif word in ("type", "union"):
        name, _, fields = rest.partition(":")
        kind = "types" if word == "type" else "unions"
        module.typedefs.setdefault(kind, []).append([name.strip(), *parse_fields(fields)])
    elif word.startswith("msg"):
        m = MSG_RE.match(rest)
        if not m or word not in HEADERS:
            raise DefError(f"bad message {line!r}")
        options = json.loads(m["opts"]) if m["opts"] else {}
        meta = {"crc": m["crc"], "options": options}
        fields = parse_fields(m["fields"] or "")
        module.messages.append([m["name"], *HEADERS[word], *fields, meta])
    elif word == "service":
        request, _, target = rest.partition("->")
        reply, *stream = target.split()
        service: dict[str, Any] = {"reply": reply}
        if stream:
            service["stream"] = True
            if len(stream) > 1:
                service["stream_msg"] = stream[1]
        module.services[request.strip()] = service
    else:
        raise DefError(f"unknown statement {word!r}")


def default_services(module: Module) -> dict[str, dict[str, Any]]:
    services: dict[str, dict[str, Any]] = {}
    for msg in module.messages:
        name = msg[0]
        if name.endswith(("_reply", "_details")):
            continue
        if name.endswith("_dump"):
            services[name] = {"reply": name.removesuffix("_dump") + "_details", "stream": True}
        else:
            services[name] = {"reply": name + "_reply"}
    services.update(module.services)
    return services


def imported(module: Module, by_name: dict[str, Module]) -> list[Module]:
    """The module's imports, transitively, dependencies first, then the module."""
    order: list[Module] = []

    def visit(m: Module) -> None:
        for dep in m.imports:
            if dep not in by_name:
                raise DefError(f"{m.name}: imports unknown module {dep}")
            visit(by_name[dep])
        if m not in order:
            order.append(m)

    visit(module)
    return order


def render(module: Module, by_name: dict[str, Module]) -> dict[str, Any]:
    kinds: dict[str, list[Any]] = {"types": [], "unions": [], "enums": [], "enumflags": []}
    aliases: dict[str, Any] = {}
    for m in imported(module, by_name):
        for kind, defs in m.typedefs.items():
            kinds[kind] += [d for d in defs if d not in kinds[kind]]
        aliases.update(m.aliases)
    return {
        "module": module.name,
        "types": kinds["types"],
        "messages": module.messages,
        "unions": kinds["unions"],
        "enums": kinds["enums"],
        "enumflags": kinds["enumflags"],
        "services": default_services(module),
        "options": {"version": module.version},
        "aliases": aliases,
        "vl_api_version": module.crc,
    }


def generate(source: str) -> dict[Path, str]:
    modules = parse(source)
    by_name = {m.name: m for m in modules}
    files = {}
    for module in modules:
        where = "plugins" if module.plugin else "core"
        text = json.dumps(render(module, by_name), indent=1) + "\n"
        files[Path(where) / f"{module.name}.api.json"] = text
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the files are current")
    parser.add_argument("--output", type=Path, default=OUTPUT, help=f"default {OUTPUT}")
    args = parser.parse_args(argv)
    try:
        files = generate(SOURCE.read_text(encoding="utf-8"))
    except DefError as err:
        print(f"gen_sim_api: {err}", file=sys.stderr)
        return 1
    stale = [p for p, text in files.items() if _read(args.output / p) != text]
    existing = {p.relative_to(args.output) for p in args.output.rglob("*.api.json")}
    extra = sorted(existing - files.keys())
    if args.check:
        for path in [*stale, *extra]:
            print(f"gen_sim_api: {args.output / path} is stale", file=sys.stderr)
        return 1 if stale or extra else 0
    for path in stale:
        (args.output / path).parent.mkdir(parents=True, exist_ok=True)
        (args.output / path).write_text(files[path], encoding="utf-8")
    for path in extra:
        (args.output / path).unlink()
    print(f"gen_sim_api: {len(files)} modules, {len(stale)} written, {len(extra)} removed")
    return 0


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


if __name__ == "__main__":
    sys.exit(main())
