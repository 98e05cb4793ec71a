"""The config language: read, check and write vppcfg YAML files.

    load(path) / loads(text)  -> Dataplane, or raise ConfigError (ConfigIOError
                                 when the file cannot be read at all)
    to_dict(dp) / to_yaml(dp) -> the config-language form of a model

Checking runs in three layers, each reporting every problem it finds: YAML
(syntax, duplicate keys, size and nesting limits), structure (the yamale
schema in `schema/vppcfg.yaml`, object names) and semantics (the rules in
`vppcfg.config.rules`). Semantics run only on a structurally valid file, so
that a typo is not echoed by a dozen follow-up complaints.
"""

from __future__ import annotations

from vppcfg.config import loader, rules, schema
from vppcfg.config.build import build
from vppcfg.config.emit import to_dict, to_yaml
from vppcfg.config.problems import ConfigError, ConfigIOError, Problem
from vppcfg.model import Dataplane

__all__ = [
    "ConfigError",
    "ConfigIOError",
    "Problem",
    "load",
    "loads",
    "to_dict",
    "to_yaml",
]


def load(path: str) -> Dataplane:
    """Read and check a config file."""
    return loads(loader.read_text(path), filename=path)


def loads(text: str, filename: str = "<string>") -> Dataplane:
    """Check config text and return its model."""
    doc = loader.parse(text, filename)
    problems = schema.check(doc)
    if problems:
        raise ConfigError(problems)
    built = build(doc.data)
    problems = rules.run(built, doc)
    if problems:
        raise ConfigError(problems)
    return built.dataplane
