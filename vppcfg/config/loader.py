"""A safe YAML reader that keeps where every value came from.

It builds plain Python data from the parser's event stream (not PyYAML's
recursive composer) so that it can refuse, with a clear message and without
running out of stack or time: duplicate keys, deep nesting, alias bombs,
custom tags, several documents, files that are too big or not UTF-8.
Scalars follow YAML 1.1 as PyYAML reads them (so existing files mean the same
thing), except that ``12:34:56`` style base-60 numbers stay strings: a MAC
address such as ``10:20:30:40:50:51`` must never turn into an integer.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any, BinaryIO

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import BaseResolver, Resolver

from vppcfg.config.problems import (
    ConfigError,
    ConfigIOError,
    Path,
    Problem,
    format_path,
    index,
)
from vppcfg.gcpause import gc_paused

# The size limit keeps a runaway file (or a wrong path) from eating memory; a
# config of about 100,000 objects is 12 MB, so the default leaves room for five
# times that. An operator with more raises it: VPPCFG_MAX_CONFIG_MB.
MAX_MB = 64
MAX_BYTES = MAX_MB * 1024 * 1024
MAX_ENV = "VPPCFG_MAX_CONFIG_MB"
MAX_DEPTH = 32  # the language nests at most 6 levels
MAX_ALIAS_NODES = 1_000_000  # nodes reachable through aliases before we call it a bomb
# No field takes a number near this; far larger ones (`mtu: 0x` and 100,000 digits)
# cannot even be printed in a problem (Python refuses int -> str past 4300 digits).
MAX_INT_BITS = 1024

_ParserLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Resolver(BaseResolver):
    """PyYAML's YAML 1.1 implicit types, minus base-60 ints and floats."""

    # Its own table: the inherited one is BaseResolver's, shared by every PyYAML user.
    yaml_implicit_resolvers: dict = {}


_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
for _first, _pairs in Resolver.yaml_implicit_resolvers.items():
    for _tag, _regexp in _pairs:
        if _tag not in (_INT, _FLOAT):
            _Resolver.yaml_implicit_resolvers.setdefault(_first, []).append((_tag, _regexp))
_Resolver.add_implicit_resolver(
    _INT,
    re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"),
    list("-+0123456789"),
)
_Resolver.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)

_RESOLVER = _Resolver()
_IMPLICIT_FIRST = frozenset(k for k in _Resolver.yaml_implicit_resolvers if k)
_CONSTRUCTOR = SafeConstructor()
_BUILDERS = {
    "tag:yaml.org,2002:str": lambda v: v,
    "tag:yaml.org,2002:null": lambda v: None,
    "tag:yaml.org,2002:bool": lambda v: _CONSTRUCTOR.construct_yaml_bool(_node("bool", v)),
    "tag:yaml.org,2002:int": lambda v: _CONSTRUCTOR.construct_yaml_int(_node("int", v)),
    "tag:yaml.org,2002:float": lambda v: _CONSTRUCTOR.construct_yaml_float(_node("float", v)),
    # Dates and the like are not part of the language; keep the text.
    "tag:yaml.org,2002:timestamp": lambda v: v,
    "tag:yaml.org,2002:merge": lambda v: v,
    "tag:yaml.org,2002:value": lambda v: v,
}
_MERGE = "<<"
_COLLECTIONS = (dict, list)  # what the builder makes of maps and sequences
_COLLECTION_TAGS = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")
_SCALAR_EVENT, _ALIAS_EVENT = yaml.ScalarEvent, yaml.AliasEvent
_MAP_START, _MAP_END = yaml.MappingStartEvent, yaml.MappingEndEvent
_SEQ_START, _SEQ_END = yaml.SequenceStartEvent, yaml.SequenceEndEvent


def _node(kind: str, value: str) -> ScalarNode:
    return ScalarNode(f"tag:yaml.org,2002:{kind}", value)


@dataclass
class Document:
    """Parsed data plus the 1-based (line, column) of every value and key.

    The positions are only needed to report a problem, so parse() leaves them
    out (a path and a position per value: a fifth of reading a large file)
    and the first call of mark() reads `text` again to find them."""

    filename: str
    data: Any
    marks: dict[Path, tuple[int, int]] | None = None  # None: not read yet, see marks_of()
    empty: bool = False  # no content at all: blank, only comments or `---`
    text: str = ""
    # False when the parser made no null: then no value in `data` is None, and
    # the schema need not look for one (a walk of every value of a large file)
    nulls: bool = True

    def mark(self, path: Path) -> tuple[int, int]:
        """Where `path` is, or the nearest enclosing object that exists."""
        marks = self.marks_of()
        path = tuple(path)
        while path:
            found = marks.get(path)
            if found:
                return found
            path = path[:-1]
        return marks.get((), (1, 1))

    def marks_of(self) -> dict[Path, tuple[int, int]]:
        if self.marks is None:
            self.marks = _parse(self.text, self.filename, track=True).marks or {}
        return self.marks


class _Untracked(Exception):
    """A problem found while positions are not tracked: parse again, tracking."""


class _Fail(Exception):
    def __init__(self, mark: Any, message: str) -> None:
        super().__init__(message)
        self.mark = mark
        self.message = message


def max_bytes() -> int:
    """The size limit: $VPPCFG_MAX_CONFIG_MB MiB, or 64 MiB; ConfigIOError when
    the variable is not a positive whole number."""
    text = os.environ.get(MAX_ENV, "").strip()
    if not text:
        return MAX_BYTES
    if not text.isdigit() or int(text) == 0:
        message = f"{MAX_ENV}={text!r} is not a positive whole number of MiB"
        raise ConfigIOError([Problem(MAX_ENV, 0, 0, "", message)])
    return int(text) * 1024 * 1024


def read_text(path: str) -> str:
    """Read a config file, turning every I/O problem into a ConfigIOError."""
    fs = FsPath(path)
    limit = max_bytes()

    def fail(message: str) -> ConfigIOError:
        return ConfigIOError([Problem(path, 0, 0, "", message)])

    try:
        if fs.is_dir():
            return _raise(fail("is a directory, not a config file"))
        with open(fs, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                return _raise(fail(_too_big(f"file is {size} bytes", limit)))
            raw = handle.read(limit + 1)
    except FileNotFoundError:
        raise fail("no such file") from None
    except PermissionError:
        raise fail("permission denied") from None
    except IsADirectoryError:
        raise fail("is a directory, not a config file") from None
    except OSError as err:
        raise fail(f"cannot read: {err.strerror or err}") from None
    except ValueError:  # e.g. a NUL character in the path
        raise fail("is not a usable file name") from None
    if len(raw) > limit:
        raise fail(_too_big(f"file is {len(raw)} bytes", limit))
    return decode(raw, path)


def read_stream(handle: BinaryIO, name: str) -> str:
    """A config from a stream (stdin), under the same size limit as a file."""
    limit = max_bytes()
    raw = handle.read(limit + 1)
    if len(raw) > limit:
        raise ConfigIOError([Problem(name, 0, 0, "", _too_big(
            f"more than {limit // (1024 * 1024)} MiB", limit))])
    return decode(raw, name)


def _raise(err: Exception) -> str:
    raise err


def _too_big(what: str, limit: int) -> str:
    return (
        f"{what}; configs are limited to {limit // (1024 * 1024)} MiB "
        f"(raise the limit with the environment variable {MAX_ENV}=<MiB>)"
    )


def decode(raw: bytes, filename: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        column = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        byte = raw[err.start]
        message = f"not valid UTF-8 (byte 0x{byte:02x}); save the file as UTF-8"
        raise ConfigIOError([Problem(filename, line, column, "", message)]) from None


def parse(text: str, filename: str) -> Document:
    """Parse YAML text into a Document; raise ConfigError on any YAML problem."""
    with gc_paused():
        return _parse(text, filename)


def _parse(text: str, filename: str, track: bool = False) -> Document:
    """The document; `track`: with the position of every value."""
    limit = max_bytes()
    if len(text) > limit:
        size = f"file is {len(text.encode())} bytes"
        raise ConfigIOError([Problem(filename, 0, 0, "", _too_big(size, limit))])
    builder = _Builder(filename, track)
    again = False
    try:
        _feed_all(text, builder)
    except _Untracked:  # a problem to report: its path and position are needed
        again = True  # (outside this handler, so its errors do not chain to it)
    except _Fail as err:
        line, column = _pos(err.mark)
        raise ConfigError([Problem(filename, line, column, "", err.message)]) from None
    except yaml.MarkedYAMLError as err:
        raise ConfigError([_syntax_problem(err, text, filename)]) from None
    except yaml.reader.ReaderError as err:  # a control character: no mark, a position
        raise ConfigError([_reader_problem(err, text, filename)]) from None
    except yaml.YAMLError as err:
        raise ConfigError([Problem(filename, 0, 0, "", f"YAML error: {err}")]) from None
    if again:
        return _parse(text, filename, track=True)
    if builder.problems:
        raise ConfigError(builder.problems)
    empty = builder.root is None
    marks = builder.marks if track else None
    data = {} if empty else builder.root
    return Document(filename, data, marks, empty, text, nulls=builder.nulls)


def _feed_all(text: str, builder: _Builder) -> None:
    """Every parser event to the builder: yaml.parse's loop without its
    generator, which costs a tenth of reading a large file."""
    parser = _ParserLoader(text)
    try:
        if not builder.track:
            _feed_untracked(parser, builder)
            return
        next_event, feed = parser.get_event, builder.feed
        event = next_event()
        while event is not None:
            feed(event)
            event = next_event()
    finally:
        parser.dispose()


_MISSING = object()


def _feed_untracked(parser: Any, builder: _Builder) -> None:
    """_feed_all's loop while positions are not tracked (every file, at first):
    the usual events (a plain scalar, the end of a map or list, one opened in
    a list or as a map's value) are handled here, with feed()'s steps and
    without its calls (a tenth of reading a large file); feed() takes the rest."""
    next_event, feed, scalar = parser.get_event, builder.feed, builder._scalar
    stack, plain, first, new_frame = builder.stack, builder.plain, _IMPLICIT_FIRST, _Frame
    # stack[-1] (None at the root), kept in step with the stack: most events read it
    frame: _Frame | None = None
    event = next_event()
    while event is not None:
        kind = type(event)
        if kind is _SCALAR_EVENT and frame is not None and not event.anchor:
            tag, value = event.tag, event.value
            if tag is not None and tag != "!":
                value = scalar(event)
            elif event.implicit[0] and (not value or value[0] in first) and "/" not in value:
                value = plain.get(value, _MISSING)  # may be a number, bool or null
                if value is _MISSING:
                    value = scalar(event)
            if frame.is_map and not frame.have_key:  # a key: its mark is for tracking only
                frame.key, frame.have_key = value, True
                event = next_event()
                continue
        elif kind is _MAP_END or kind is _SEQ_END:  # _end's steps
            done = stack.pop()
            if done.merges:
                builder._merge(done)
            if done.anchor:
                builder.anchors[done.anchor] = (done.container, done.size)
            if stack:
                frame = stack[-1]
                frame.size += done.size
            else:
                frame = None
            event = next_event()
            continue
        elif (  # a map or list that _start puts in place without a path:
            (kind is _MAP_START or kind is _SEQ_START)
            and frame is not None  # not the root,
            and (event.tag is None or event.tag == "!")  # untagged, not too deep,
            and len(stack) < MAX_DEPTH  # in a list or as a map's value (not a key, nor a merge)
            and not (frame.is_map and (not frame.have_key or frame.key == _MERGE))
        ):
            value = {} if kind is _MAP_START else []
            stack.append(new_frame(value, (), event.anchor))
        else:
            feed(event)
            frame = stack[-1] if stack else None
            event = next_event()
            continue
        if frame.is_map:  # _put's steps (a start adds no size of its own)
            key, container = frame.key, frame.container
            if key in container:
                raise _Untracked
            frame.have_key = False
            container[key] = value
        else:
            frame.container.append(value)
        if kind is _SCALAR_EVENT:
            frame.size += 1
        else:
            frame = stack[-1]
        event = next_event()


def _short(text: str, keep: int = 20) -> str:
    """A scalar's text for a message: a long one is cut (with an ellipsis)."""
    return text if len(text) <= keep else text[:keep] + "..."


def _pos(mark: Any) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)


def _reader_problem(err: yaml.reader.ReaderError, text: str, filename: str) -> Problem:
    # libyaml counts the position in UTF-8 bytes, PyYAML's own reader in characters.
    if _ParserLoader is yaml.SafeLoader:
        before = text[: err.position]
    else:
        before = text.encode("utf-8")[: err.position].decode("utf-8", "ignore")
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    what = f"character U+{err.character:04X}" if isinstance(err.character, int) else "character"
    return Problem(
        filename, line, column, "", f"{what} is not allowed in YAML (a control character)"
    )


def _syntax_problem(err: yaml.MarkedYAMLError, text: str, filename: str) -> Problem:
    mark = err.problem_mark or err.context_mark
    line, column = _pos(mark)
    if mark is not None and 0 <= mark.index < len(text) and text[mark.index] == "\t":
        return Problem(filename, line, column, "", "tab character: YAML indentation uses spaces")
    what = err.problem or "invalid YAML"
    if err.context:
        what = f"{err.context}, {what}"
    return Problem(filename, line, column, "", f"YAML syntax error: {what}")


class _Frame:
    """A map or sequence being built."""

    __slots__ = (
        "anchor",
        "container",
        "have_key",
        "is_map",
        "key",
        "key_lines",
        "key_mark",
        "merges",
        "path",
        "size",
    )

    def __init__(self, container: Any, path: Path, anchor: str | None) -> None:
        self.container = container  # dict or list
        self.path = path
        self.anchor = anchor
        self.size = 1
        self.key: Any = None
        self.key_mark: Any = None
        self.have_key = False
        self.is_map = type(container) is dict
        # made when first needed: most maps have neither
        self.merges: list[Any] | None = None
        self.key_lines: dict[Any, int] | None = None


class _Builder:
    """Turns parser events into data, marks and problems, iteratively."""

    def __init__(self, filename: str, track: bool) -> None:
        self.filename = filename
        self.track = track  # paths and positions of values: only to report problems
        self.root: Any = None
        self.marks: dict[Path, tuple[int, int]] = {(): (1, 1)}
        self.problems: list[Problem] = []
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.expanded = 0
        self.documents = 0
        self.plain: dict[str, Any] = {}
        # whether a scalar was read as null (each one is constructed here once:
        # the plain cache and aliases hand out values made by _construct)
        self.nulls = False
        self.huge: yaml.ScalarEvent | None = None  # a number too large, to report

    def feed(self, event: yaml.Event) -> None:
        kind = type(event)
        if kind is _SCALAR_EVENT:
            value = self._scalar(event)
            if event.anchor:
                self.anchors[event.anchor] = (value, 1)
            frame = self.stack[-1] if self.stack else None
            if frame is None or self.track:
                path = self._value(value, event, 1)
                if self.huge is not None:
                    self._report_huge(path or (frame.path if frame else ()))
            elif frame.is_map and not frame.have_key:
                # a map key (the most frequent event): _key() without its check,
                # as a scalar is never a map or a list
                frame.key, frame.key_mark, frame.have_key = value, event.start_mark, True
            else:
                self._put(frame, value, 1)
        elif kind is _MAP_START or kind is _SEQ_START:
            self._start(event)
        elif kind is _MAP_END or kind is _SEQ_END:
            self._end()
        elif kind is _ALIAS_EVENT:
            self._alias(event)
        elif kind is yaml.DocumentStartEvent:
            self.documents += 1
            if self.documents > 1:
                raise _Fail(event.start_mark, "only one YAML document per file (found '---')")

    def _put(self, frame: _Frame, value: Any, size: int) -> None:
        """_value() for a value (not a key) while positions are not tracked,
        in the usual case: no merge key (most values of a file come here)."""
        frame.size += size
        container = frame.container
        if not frame.is_map:
            container.append(value)
            return
        key = frame.key
        if key in container:
            raise _Untracked
        frame.have_key = False
        container[key] = value

    def _scalar(self, event: yaml.ScalarEvent) -> Any:
        tag = event.tag
        if tag is None or tag == "!":
            text = event.value
            if not event.implicit[0]:  # quoted: always a string
                return text
            if text and text[0] not in _IMPLICIT_FIRST:  # cannot be a number, bool or null
                return text
            if "/" in text:  # no implicit type has a slash: an address or a prefix
                return text
            if text in self.plain:  # the same words recur (mtu: 9000, true, ...)
                return self.plain[text]
            tag = _RESOLVER.resolve(ScalarNode, event.value, (True, False))
            value = self._construct(tag, event)
            self.plain[event.value] = value
            return value
        return self._construct(tag, event)

    def _construct(self, tag: str, event: yaml.ScalarEvent) -> Any:
        build = _BUILDERS.get(tag)
        if build is None:
            raise _Fail(event.start_mark, f"unsupported YAML tag {tag!r}")
        try:
            value = build(event.value)
        except (ValueError, yaml.YAMLError):
            if tag.endswith(":int") and len(event.value) > MAX_INT_BITS // 4:
                return self._too_large(event)  # decimal digits past Python's own limit
            raise _Fail(event.start_mark, f"{_short(event.value)!r} is not a valid {tag}"
                        ) from None
        if type(value) is int and value.bit_length() > MAX_INT_BITS:
            return self._too_large(event)
        if value is None:
            self.nulls = True
        return value

    def _too_large(self, event: yaml.ScalarEvent) -> str:
        """A number too large for any field: a problem at its path (found on
        the tracked pass), and its text in its place so nothing prints it."""
        if not self.track:
            raise _Untracked
        self.huge = event
        return event.value

    def _report_huge(self, path: Path) -> None:
        event, self.huge = self.huge, None
        assert event is not None
        self.problems.append(Problem(
            self.filename, *_pos(event.start_mark), format_path(path),
            f"{_short(event.value)} ({len(event.value)} characters) is too large a number: "
            f"no field takes one above 2^{MAX_INT_BITS}"))

    def _start(self, event: yaml.NodeEvent) -> None:
        tag = event.tag
        if tag is not None and tag != "!" and tag not in _COLLECTION_TAGS:
            raise _Fail(event.start_mark, f"unsupported YAML tag {tag!r}")
        stack = self.stack
        if len(stack) >= MAX_DEPTH:
            raise _Fail(event.start_mark, f"nested deeper than {MAX_DEPTH} levels")
        container: Any = {} if type(event) is _MAP_START else []
        frame = stack[-1] if stack else None
        # the root, a tracked file, a map as a key (refused) or a merge: the general way
        usual = frame is not None and not self.track and not (
            frame.is_map and (not frame.have_key or frame.key == _MERGE))
        if not usual:
            path = self._value(container, event, 0)
        else:
            self._put(frame, container, 0)
            path = ()
        stack.append(_Frame(container, path, event.anchor))

    def _end(self) -> None:
        frame = self.stack.pop()
        if frame.merges:
            self._merge(frame)
        if frame.anchor:
            self.anchors[frame.anchor] = (frame.container, frame.size)
        if self.stack:
            self.stack[-1].size += frame.size

    def _alias(self, event: yaml.AliasEvent) -> None:
        if event.anchor not in self.anchors:
            raise _Fail(event.start_mark, f"alias *{event.anchor} refers to no complete anchor")
        value, size = self.anchors[event.anchor]
        self.expanded += size
        if self.expanded > MAX_ALIAS_NODES:
            raise _Fail(event.start_mark, "aliases expand to too many values (an alias bomb?)")
        self._value(value, event, size)

    def _value(self, value: Any, event: yaml.Event, size: int) -> Path:
        """Attach a value (or a map key) to the container being built; the
        value's path (a key's path is not used: keys are never containers)."""
        if not self.stack:
            self.root = value
            return ()
        frame = self.stack[-1]
        if type(frame.container) is list:
            frame.container.append(value)
            frame.size += size
            if not self.track:
                return ()
            path = (*frame.path, index(len(frame.container) - 1))
            self.marks[path] = _pos(event.start_mark)
            return path
        if not frame.have_key:
            self._key(frame, value, event)
            return ()
        frame.have_key = False
        key = frame.key
        frame.size += size
        if key == _MERGE and not isinstance(event, yaml.ScalarEvent):
            if frame.merges is None:
                frame.merges = []
            frame.merges.append(value)
            return (*frame.path, key) if self.track else ()
        if not self.track:
            if key in frame.container:
                raise _Untracked
            frame.container[key] = value
            return ()
        path = (*frame.path, key)
        if key in frame.container:
            first = frame.key_lines[key]
            self.problems.append(
                Problem(
                    self.filename,
                    *_pos(frame.key_mark),
                    format_path(path),
                    f"duplicate key {key!r} (first given on line {first})",
                )
            )
            return (*path, "<duplicate>")
        frame.container[key] = value
        if frame.key_lines is None:
            frame.key_lines = {}
        frame.key_lines[key] = frame.key_mark.line + 1
        # Collections point at their key; scalar values at themselves.
        self.marks[path] = _pos(
            frame.key_mark if value is None or type(value) in _COLLECTIONS else event.start_mark
        )
        return path

    def _key(self, frame: _Frame, value: Any, event: yaml.Event) -> None:
        if type(value) in _COLLECTIONS:
            raise _Fail(event.start_mark, "map keys must be plain values, not maps or lists")
        frame.key, frame.key_mark, frame.have_key = value, event.start_mark, True

    def _merge(self, frame: _Frame) -> None:
        """YAML 1.1 merge keys: `<<: *defaults` adds keys not given explicitly."""
        sources: list[Any] = []
        for value in frame.merges:
            sources.extend(value if isinstance(value, list) else [value])
        for source in sources:
            if not isinstance(source, dict):
                if not self.track:
                    raise _Untracked
                self.problems.append(
                    Problem(
                        self.filename,
                        *self.marks.get(frame.path, (0, 0)),
                        format_path(frame.path),
                        "'<<' merges only maps",
                    )
                )
                continue
            for key, value in source.items():
                frame.container.setdefault(key, value)
