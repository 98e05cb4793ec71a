#!/usr/bin/env python3
"""Generate the simulator's API definitions (vppcfg/sim/api/<release>/**/*.api.json).

    python scripts/gen_sim_api.py            # write the 26.10 set from sim_api.def
    python scripts/gen_sim_api.py --check    # exit 1 if the committed 26.10 set is stale
    python scripts/gen_sim_api.py --vpp-repo ~/src/vpp --release 24.10 [--python PY]

The syntax of sim_api.def is described at its top. The output has the layout and keys
of VPP's own *.api.json (module, types, messages, unions, enums, enumflags, services,
options, aliases, vl_api_version), one file per module, each carrying the types of the
modules it imports, so vpp_papi can load any subset of them.

With --vpp-repo and --release, the set of an older release is generated from FDio/vpp's
tag v<release> with that release's own vppapigen (run by --python, which needs `ply`):
the same modules and messages as sim_api.def lists, where the release has them, with the
release's own fields and CRCs; a module is a plugin when its .api file lives under
src/plugins in that release (tapv2 moved there in 26.02).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SOURCE = Path(__file__).resolve().parent / "sim_api.def"
API_ROOT = ROOT / "vppcfg" / "sim" / "api"
DEFINED_RELEASE = "26.10"  # the release sim_api.def describes
OUTPUT = API_ROOT / DEFINED_RELEASE

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


# -- a release's set, from FDio/vpp's tag ------------------------------------------------


def release_files(repo: Path, release: str, python: str, served: list[Module]
                  ) -> dict[Path, str]:
    """The modules of `served` as release `release` defines them (vppapigen of tag
    v<release>), each cut down to the messages `served` lists and the types they use."""
    tag = f"v{release}"
    paths = _git(repo, "ls-tree", "-r", "--name-only", tag, "src").split()
    apis = [p for p in paths if p.endswith(".api")]
    files: dict[Path, str] = {}
    with tempfile.TemporaryDirectory(prefix=f"vpp-{release}-") as tmp:
        tools = [p for p in paths if p.startswith("src/tools/vppapigen/")]
        archive = subprocess.run(["git", "-C", str(repo), "archive", tag, *tools, *apis],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        for module in served:
            source = _api_path(module.name, apis)
            if source is None:  # not in this release (sflow before 25.02)
                continue
            api = _vppapigen(Path(tmp), source, python)
            where = "plugins" if source.startswith("src/plugins/") else "core"
            text = json.dumps(_cut(module, api), indent=1) + "\n"
            files[Path(where) / f"{module.name}.api.json"] = text
    return files


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def _api_path(module: str, apis: list[str]) -> str | None:
    """The .api file of `module` (the one in src/vnet or src/vpp* first: a few
    plugins carry a file of the same name)."""
    found = sorted((p for p in apis if p.rsplit("/", 1)[-1] == f"{module}.api"),
                   key=lambda p: (not p.startswith(("src/vnet/", "src/vpp", "src/vlib")), p))
    return found[0] if found else None


def _vppapigen(src: Path, api: str, python: str) -> dict[str, Any]:
    out = src / "out"
    out.mkdir(exist_ok=True)
    target = out / (Path(api).name + ".json")
    subprocess.run([python, "src/tools/vppapigen/vppapigen.py", "--includedir", "src",
                    "--input", api, "--outputdir", str(out), "--output", str(target),
                    "--pluginpath", "src/tools/vppapigen", "JSON"],
                   cwd=src, check=True, capture_output=True)
    return json.loads(target.read_text(encoding="utf-8"))


def _cut(module: Module, api: dict[str, Any]) -> dict[str, Any]:
    """`api` with only the messages `module` lists (all of a types-only module's
    types) and the types, unions, enums and aliases those use."""
    listed = {m[0] for m in module.messages}
    messages = [m for m in api["messages"] if m[0] in listed]
    defs = {f"vl_api_{d[0]}_t": d for kind in ("types", "unions", "enums", "enumflags")
            for d in api.get(kind, ())}
    aliases = {f"vl_api_{k}_t": v for k, v in api.get("aliases", {}).items()}
    todo = [f[0] for m in messages for f in m[1:] if isinstance(f, list)]
    if not messages and module.typedefs:  # a *_types module: all of its types
        todo += [*defs, *aliases]
    used: set[str] = set()
    while todo:
        name = todo.pop()
        if name in used:
            continue
        used.add(name)
        if name in defs:
            todo += [f[0] for f in defs[name][1:] if isinstance(f, list) and isinstance(f[0], str)]
        elif name in aliases:
            todo.append(aliases[name]["type"])
    out: dict[str, Any] = {"module": module.name}
    for kind in ("types", "messages", "unions", "enums", "enumflags"):
        source = messages if kind == "messages" else api.get(kind, ())
        out[kind] = [d for d in source if kind == "messages" or f"vl_api_{d[0]}_t" in used]
    out["services"] = {k: v for k, v in api.get("services", {}).items() if k in listed}
    out["options"] = api.get("options", {})
    out["aliases"] = {k: v for k, v in api.get("aliases", {}).items()
                      if f"vl_api_{k}_t" in used}
    out["vl_api_version"] = api["vl_api_version"]
    return out


def _write_release(args: argparse.Namespace) -> int:
    served = parse(SOURCE.read_text(encoding="utf-8"))
    try:
        files = release_files(args.vpp_repo, args.release, args.python, served)
    except subprocess.CalledProcessError as err:
        print(f"gen_sim_api: {' '.join(map(str, err.cmd[:3]))}...: {err.stderr}", file=sys.stderr)
        return 1
    output = API_ROOT / args.release
    for path in output.rglob("*.api.json"):
        path.unlink()
    for path, text in files.items():
        (output / path).parent.mkdir(parents=True, exist_ok=True)
        (output / path).write_text(text, encoding="utf-8")
    print(f"gen_sim_api: {args.release}: {len(files)} modules written to {output}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the files are current")
    parser.add_argument("--output", type=Path, default=OUTPUT, help=f"default {OUTPUT}")
    parser.add_argument("--vpp-repo", type=Path, help="a clone of FDio/vpp with its tags")
    parser.add_argument("--release", help="with --vpp-repo: the release to generate (24.10)")
    parser.add_argument("--python", default=sys.executable,
                        help="the Python that runs vppapigen (needs ply)")
    args = parser.parse_args(argv)
    if args.vpp_repo or args.release:
        if not (args.vpp_repo and args.release):
            parser.error("--vpp-repo and --release go together")
        if args.release == DEFINED_RELEASE:  # would overwrite the set --check keeps in step
            parser.error(f"{DEFINED_RELEASE} is generated from {SOURCE.name}: run without "
                         "--vpp-repo and --release")
        return _write_release(args)
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
