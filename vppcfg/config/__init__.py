"""The config language: read, check and write vppcfg YAML files.

    load(path) / loads(text)  -> Dataplane, or raise ConfigError (ConfigIOError
                                 when the file cannot be read at all)
    to_dict(dp) / to_yaml(dp) -> the config-language form of a model

Checking runs in three layers, each reporting every problem it finds: YAML
(syntax, duplicate keys, size and nesting limits), structure (the yamale
schema in `schema/vppcfg.yaml`, object names) and semantics (the rules in
`vppcfg.config.rules`). When some objects are malformed, the semantic rules
still run over the well-formed rest, and their findings that involve a
malformed object are left out (they would only echo the first problem).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from vppcfg.config.emit import to_dict, to_yaml
from vppcfg.config.problems import ConfigError, ConfigIOError, Path, Problem
from vppcfg.gcpause import gc_paused
from vppcfg.model import Dataplane

if TYPE_CHECKING:
    from vppcfg.config.loader import Document

# The checking layers (the loader, yamale and the rules) are imported where
# they are used: `vppcfg dump` writes configs and never checks one.

__all__ = [
    "ConfigError",
    "ConfigIOError",
    "Problem",
    "check_file",
    "check_text",
    "load",
    "loads",
    "to_dict",
    "to_yaml",
]


# A truncated or blanked file must never mean "remove everything vppcfg owns".
EMPTY = (
    "empty file (only blank lines or comments): refused, as applying it would remove "
    "everything vppcfg created; to configure nothing, say so: 'interfaces: {}'"
)


def load(path: str, allow: Iterable[str] = ()) -> Dataplane:
    """Read and check a config file."""
    from vppcfg.config import loader

    return loads(loader.read_text(path), filename=path, allow=allow)


def check_file(path: str, allow: Iterable[str] = ()) -> tuple[Dataplane, list[Problem]]:
    """Read and check a config file: its model and warnings (as check_text)."""
    from vppcfg.config import loader

    return check_text(loader.read_text(path), path, allow)


def loads(text: str, filename: str = "<string>", allow: Iterable[str] = ()) -> Dataplane:
    """Check config text and return its model."""
    return check_text(text, filename, allow)[0]


def check_text(
    text: str, filename: str = "<string>", allow: Iterable[str] = (),
    options: dict[str, Any] | None = None,
) -> tuple[Dataplane, list[Problem]]:
    """Check config text: its model and the warnings (likely mistakes that VPP
    accepts, and the language rules allowed by `allow` or the file's own
    `vppcfg: {allow: [...]}`); raise ConfigError. `options` gets the file's
    other `vppcfg:` settings (how vppcfg works, not the dataplane)."""
    with gc_paused():  # parse, structure, build and rules: many objects, no cycles
        return _check_text(text, filename, frozenset(allow), options)


def allowed_in(data: object) -> frozenset[str]:
    """The rules a parsed file allows in its `vppcfg:` section."""
    options = data.get("vppcfg") if isinstance(data, dict) else None
    names = options.get("allow") if isinstance(options, dict) else None
    if not isinstance(names, list):
        return frozenset()
    return frozenset(n for n in names if isinstance(n, str))


def _check_text(
    text: str, filename: str, allow: frozenset[str], options: dict[str, Any] | None = None,
) -> tuple[Dataplane, list[Problem]]:
    from vppcfg.config import loader, rules, schema
    from vppcfg.config.build import build

    doc = loader.parse(text, filename)
    if doc.empty:
        raise ConfigError([Problem(filename, 0, 0, "", EMPTY)])
    problems, broken = schema.check_detailed(doc)
    allow = allow | allowed_in(doc.data)
    if problems:
        problems += _semantics_of_the_rest(doc, broken, allow)
        raise ConfigError(sorted(problems, key=lambda p: (p.line, p.column)))
    built = build(doc.data)
    problems, warnings = rules.run_all(built, doc, allow)
    if problems:
        raise ConfigError(problems)
    if options is not None:
        section = doc.data.get("vppcfg")
        options.update((k, v) for k, v in (section or {}).items() if k != "allow")
    return built.dataplane, warnings


def _semantics_of_the_rest(
    doc: Document, broken: set[Path], allow: frozenset[str]
) -> list[Problem]:
    """Semantic problems among the well-formed objects of a file that also has
    malformed ones, leaving out any that mention a malformed object."""
    from vppcfg.config import loader, rules, schema
    from vppcfg.config.build import build

    if any(len(key) < 2 and key[0] not in schema.SINGLE for key in broken if key):
        return []  # a whole section is unusable: every reference into it would echo that
    if () in broken:
        return []
    data = {}
    for section, body in doc.data.items():
        if section in schema.SINGLE and (section,) not in broken:
            data[section] = body
        elif section in schema.SECTIONS and (section,) not in broken:
            data[section] = {k: v for k, v in body.items() if (section, k) not in broken}
    names = sorted({str(key[1]) for key in broken if len(key) == 2}, key=len, reverse=True)
    found = rules.run(build(data), loader.Document(doc.filename, data, doc.marks_of()), allow)
    if not names:
        return found
    mention = re.compile(r"(?<![\w/-])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w/-])")
    return [p for p in found if not mention.search(f"{p.path} {p.message}")]
