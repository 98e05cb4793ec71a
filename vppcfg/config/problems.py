"""Problems found in a config file, and the errors that carry them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# A location inside the parsed document: map keys and list indices.
Path = tuple[Any, ...]


def format_path(path: Path) -> str:
    """`interfaces.GigabitEthernet3/0/0.sub-interfaces.100.mtu`; list items as `[2]`."""
    out = ""
    for part in path:
        if out and isinstance(part, _Index):
            out += f"[{part}]"
        else:
            text = str(part)
            if not text.isprintable() or " " in text or not text:
                text = repr(text)  # make hidden characters visible
            out += ("." if out else "") + text
    return out


class _Index(int):
    """A list position (as opposed to an integer map key such as a sub-interface id)."""


def index(i: int) -> int:
    return _Index(i)


@dataclass(frozen=True)
class Problem:
    file: str
    line: int  # 1-based; 0 when unknown
    column: int  # 1-based; 0 when unknown
    path: str  # dotted object path, "" for the whole file
    message: str
    # the name of the language rule that refused (or, allowed, warned): see
    # vppcfg.config.verdicts; "" for every other problem
    rule: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class ConfigError(Exception):
    """The config is invalid; `problems` lists every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class ConfigIOError(ConfigError):
    """The config could not be read at all (missing, a directory, not UTF-8, too big)."""
