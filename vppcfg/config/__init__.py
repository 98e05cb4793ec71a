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
from typing import TYPE_CHECKING

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


def load(path: str) -> Dataplane:
    """Read and check a config file."""
    from vppcfg.config import loader

    return loads(loader.read_text(path), filename=path)


def loads(text: str, filename: str = "<string>") -> Dataplane:
    """Check config text and return its model."""
    return check_text(text, filename)[0]


def check_text(text: str, filename: str = "<string>") -> tuple[Dataplane, list[Problem]]:
    """Check config text: its model and the warnings (likely mistakes that VPP
    accepts, so that a dump of such a VPP still checks); raise ConfigError."""
    with gc_paused():  # parse, structure, build and rules: many objects, no cycles
        return _check_text(text, filename)


def _check_text(text: str, filename: str) -> tuple[Dataplane, list[Problem]]:
    from vppcfg.config import loader, rules, schema
    from vppcfg.config.build import build

    doc = loader.parse(text, filename)
    if doc.empty:
        raise ConfigError([Problem(filename, 0, 0, "", EMPTY)])
    problems, broken = schema.check_detailed(doc)
    if problems:
        problems += _semantics_of_the_rest(doc, broken)
        raise ConfigError(sorted(problems, key=lambda p: (p.line, p.column)))
    built = build(doc.data)
    problems, warnings = rules.run_all(built, doc)
    if problems:
        raise ConfigError(problems)
    return built.dataplane, warnings


def _semantics_of_the_rest(doc: Document, broken: set[Path]) -> list[Problem]:
    """Semantic problems among the well-formed objects of a file that also has
    malformed ones, leaving out any that mention a malformed object."""
    from vppcfg.config import loader, rules, schema
    from vppcfg.config.build import build

    if any(len(key) < 2 and key != ("sflow",) for key in broken):
        return []  # a whole section is unusable: every reference into it would echo that
    data = {}
    for section, body in doc.data.items():
        if section == "sflow" and (section,) not in broken:
            data[section] = body
        elif section in schema.SECTIONS and (section,) not in broken:
            data[section] = {k: v for k, v in body.items() if (section, k) not in broken}
    names = sorted({str(key[1]) for key in broken if len(key) == 2}, key=len, reverse=True)
    found = rules.run(build(data), loader.Document(doc.filename, data, doc.marks_of()))
    if not names:
        return found
    mention = re.compile(r"(?<![\w/-])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w/-])")
    return [p for p in found if not mention.search(f"{p.path} {p.message}")]
