"""A Dataplane as plain JSON, and back: the commit-confirmed rollback target.

The root rollback timer reads what `apply --confirm` recorded. That file was a
pickle, and loading a pickle runs whatever code it names; JSON loading cannot.
The encoding follows the model's own type hints (dataclasses, FrozenDict,
tuples, enums, optionals), so a field added to the model is carried without
a change here, and decoding checks every value against its declared type: a
foreign or damaged file is refused (FormatError), never half trusted.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from typing import Any, Union

from vppcfg import model
from vppcfg.model import Dataplane, FrozenDict

_SCALARS = (str, int, float, bool)


class FormatError(ValueError):
    """The JSON is not a Dataplane as this vppcfg writes it."""


def encode(value: Any) -> Any:
    """A model value as JSON-ready data (dicts, lists, strings, numbers)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, FrozenDict | dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, frozenset):
        return sorted(encode(v) for v in value)
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if value is None or isinstance(value, _SCALARS):
        return value
    raise TypeError(f"cannot encode {type(value).__name__}")


def decode_dataplane(data: Any) -> Dataplane:
    """The Dataplane that `encode` wrote; FormatError for anything else."""
    return _decode(Dataplane, data, "dataplane")


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(model))


def _decode(hint: Any, data: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return _decode_union(hint, data, where)
    if origin in (tuple, frozenset, FrozenDict):
        return _decode_collection(hint, origin, data, where)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _decode_dataclass(hint, data, where)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(data)
        except ValueError:
            raise FormatError(f"{where}: {data!r} is not a {hint.__name__}") from None
    if hint is typing.Any or hint in _SCALARS:
        return _scalar(hint, data, where)
    raise FormatError(f"{where}: unsupported type {hint!r}")


def _scalar(hint: Any, data: Any, where: str) -> Any:
    if hint is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if hint is typing.Any or (type(data) is hint):
        return data
    raise FormatError(f"{where}: expected {getattr(hint, '__name__', hint)}, "
                      f"got {type(data).__name__}")


def _decode_union(hint: Any, data: Any, where: str) -> Any:
    args = typing.get_args(hint)
    if data is None and type(None) in args:
        return None
    for arg in args:
        if arg is type(None):
            continue
        try:
            return _decode(arg, data, where)
        except FormatError:
            continue
    raise FormatError(f"{where}: {type(data).__name__} fits none of {hint}")


def _decode_collection(hint: Any, origin: Any, data: Any, where: str) -> Any:
    args = typing.get_args(hint)
    if origin is FrozenDict:
        if not isinstance(data, dict):
            raise FormatError(f"{where}: expected an object")
        return FrozenDict.adopt({_decode(args[0], k, where): _decode(args[1], v, f"{where}.{k}")
                                 for k, v in data.items()})
    if not isinstance(data, list):
        raise FormatError(f"{where}: expected a list")
    item = args[0]
    values = (_decode(item, v, f"{where}[{i}]") for i, v in enumerate(data))
    return frozenset(values) if origin is frozenset else tuple(values)


def _decode_dataclass(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected an object for {cls.__name__}")
    hints = _hints(cls)
    names = {f.name for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(data) - names)
    if unknown:
        raise FormatError(f"{where}: unknown field(s) {', '.join(map(str, unknown))}")
    kwargs = {name: _decode(hints[name], data[name], f"{where}.{name}")
              for name in names if name in data}
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as err:
        raise FormatError(f"{where}: {err}") from None
