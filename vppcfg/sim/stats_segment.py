"""VPP's stats segment (version 2) in shared memory, and the socket that hands it out.

This module knows the binary format only; which counters exist and what they
count is vppcfg.sim.stats_model's business. The layout, as VPP writes it and
vpp_papi's `VPPStats` reads it:

- a memfd, handed to each client that connects to a SOCK_SEQPACKET unix
  socket as SCM_RIGHTS ancillary data; the client maps it read-only;
- at offset 0 the shared header: version (2), base (the writer's address of the
  segment: every pointer inside is base + offset), epoch, in_progress, the
  directory vector's pointer and an error vector pointer (unused here);
- vectors are VPP vectors: the element count as a u32 8 bytes before the data;
- the directory is a vector of 144-byte entries: type (u32), a u64 value (a
  number, a pointer or a symlink's two u32 indexes) and a NUL-padded name;
- a simple counter points to a vector of per-thread pointers, each to a vector
  of u64; a combined counter likewise to (packets, bytes) pairs; a name vector
  to a vector of pointers to NUL-terminated string vectors.

Readers use optimistic locking: they note the epoch, wait while in_progress is
set, read, and retry if the epoch moved. So a change of the directory (an
interface created or deleted) is written with in_progress set and bumps the
epoch; counter values are updated in place without it, as VPP does.
"""

from __future__ import annotations

import array
import contextlib
import logging
import mmap
import os
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass

from vppcfg.sim.sockets import remove_stale_socket

log = logging.getLogger("vppcfg.sim.stats")

VERSION = 2
# Directory entry types (stat_directory_type_t)
SCALAR, SIMPLE, COMBINED, NAME_VECTOR, SYMLINK, GAUGE = 1, 2, 3, 4, 6, 9

HEADER = struct.Struct("<QQQQQQ")  # version, base, epoch, in_progress, directory, errors
EPOCH_AT, IN_PROGRESS_AT = 16, 24
ENTRY = struct.Struct("<I4xQ128s")  # 144 bytes, as the C struct with its padding
ENTRY_VALUE_AT = 8
VEC_HEADER = 8  # u32 length, then VPP's hdr_size/align/numa/grow bytes
U64 = struct.Struct("<Q")
PAIR = struct.Struct("<QQ")
BASE = 0x7F5100000000  # the address we claim the segment has in "our" address space
DEFAULT_SIZE = 64 << 20  # sparse: only the pages written take memory


class SegmentFull(Exception):
    """The layout does not fit in the segment."""


@dataclass(frozen=True)
class Entry:
    """One directory entry. `value` by kind: int (SCALAR, GAUGE); list of per-thread lists
    of int (SIMPLE) or of (packets, bytes) (COMBINED); list of str (NAME_VECTOR);
    (target entry name, index) (SYMLINK)."""

    name: str
    kind: int
    value: object


class _Image:
    """A segment image being laid out: a growing bytearray with VPP vectors in it."""

    def __init__(self) -> None:
        self.data = bytearray(64)  # the header, padded to a cache line

    def vector(self, count: int, size: int) -> int:
        """Room for a vector of `count` elements of `size` bytes; returns the data offset."""
        start = (len(self.data) + VEC_HEADER + 15) & ~15
        self.data.extend(bytes(start + count * size - len(self.data)))
        struct.pack_into("<I", self.data, start - VEC_HEADER, count)
        return start

    def text(self, value: str) -> int:
        raw = value.encode("ascii", "replace") + b"\0"
        at = self.vector(len(raw), 1)
        self.data[at:at + len(raw)] = raw
        return at


def _pointers(image: _Image, targets: list[int]) -> int:
    at = image.vector(len(targets), 8)
    for i, target in enumerate(targets):
        U64.pack_into(image.data, at + 8 * i, BASE + target)
    return at


def _counter_rows(image: _Image, rows: list[list], combined: bool) -> int:
    """Per-thread vectors of counters; returns the offset of the thread pointer vector."""
    element = PAIR if combined else U64
    offsets = []
    for row in rows:
        at = image.vector(len(row), element.size)
        for i, value in enumerate(row):
            if combined:
                PAIR.pack_into(image.data, at + 16 * i, *value)
            else:
                U64.pack_into(image.data, at + 8 * i, value)
        offsets.append(at)
    return _pointers(image, offsets)


def _entry_value(image: _Image, entry: Entry, index_of: dict[str, int]) -> int:
    if entry.kind in (SCALAR, GAUGE):
        return int(entry.value) & (2**64 - 1)
    if entry.kind == SYMLINK:
        target, index = entry.value
        return index_of[target] | (index << 32)
    if entry.kind == NAME_VECTOR:
        return BASE + _pointers(image, [image.text(name) for name in entry.value])
    if entry.kind in (SIMPLE, COMBINED):
        return BASE + _counter_rows(image, entry.value, entry.kind == COMBINED)
    raise ValueError(f"stats entry {entry.name}: unknown type {entry.kind}")


def layout(entries: list[Entry]) -> bytearray:
    """The segment image (header epoch and in_progress left 0) for these entries."""
    image = _Image()
    directory = image.vector(len(entries), ENTRY.size)
    index_of = {entry.name: i for i, entry in enumerate(entries)}
    for i, entry in enumerate(entries):
        name = entry.name.encode("ascii", "replace")[:127]
        value = _entry_value(image, entry, index_of)
        ENTRY.pack_into(image.data, directory + i * ENTRY.size, entry.kind, value, name)
    HEADER.pack_into(image.data, 0, VERSION, BASE, 0, 0, BASE + directory, 0)
    return image.data


def shape(entries: list[Entry]) -> tuple:
    """What decides the layout: names, types and vector lengths (not counter values)."""
    out = []
    for e in entries:
        if e.kind in (SIMPLE, COMBINED):
            out.append((e.name, e.kind, tuple(len(row) for row in e.value)))
        elif e.kind in (NAME_VECTOR, SYMLINK):
            out.append((e.name, e.kind, tuple(e.value)))
        else:
            out.append((e.name, e.kind))
    return tuple(out)


class StatsSegment:
    """The shared memory: write a list of entries into it, as often as counters change."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self.size = size
        self.fd = os.memfd_create("vppcfg-sim-stats", os.MFD_CLOEXEC)
        os.ftruncate(self.fd, size)
        self.map = mmap.mmap(self.fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self.epoch = 0
        self._shape: tuple | None = None
        self._index: dict[str, int] = {}  # entry name -> directory index, as published
        self._lock = threading.Lock()

    def publish(self, entries: list[Entry]) -> None:
        """Make the segment show these entries. A new directory shape is written under
        in_progress and bumps the epoch; same shape: values overwritten in place."""
        image = memoryview(layout(entries))  # slices of it copy nothing
        if len(image) > self.size:
            raise SegmentFull(f"stats segment: {len(image)} bytes needed, {self.size} available")
        new_shape = shape(entries)
        with self._lock:
            if new_shape == self._shape:
                # the same layout byte for byte but the counter values: readers may be
                # reading, and see each u64 either old or new, as with VPP
                self.map[64:len(image)] = image[64:]
                return
            U64.pack_into(self.map, IN_PROGRESS_AT, 1)
            self.map[HEADER.size:len(image)] = image[HEADER.size:]
            self.map[:EPOCH_AT] = image[:EPOCH_AT]
            self.epoch += 1
            U64.pack_into(self.map, EPOCH_AT, self.epoch)
            U64.pack_into(self.map, 32, U64.unpack_from(image, 32)[0])  # directory pointer
            U64.pack_into(self.map, IN_PROGRESS_AT, 0)
            self._shape = new_shape
            self._index = {entry.name: i for i, entry in enumerate(entries)}

    def set_simple(self, name: str, row: list[int]) -> bool:
        """Overwrite thread 0's values of a simple counter in place; False (nothing
        written) when the published vector has another length: publish() instead."""
        return self._set_row(name, row, 1)

    def set_combined(self, name: str, row: list[tuple[int, int]]) -> bool:
        """The same for a combined counter: (packets, bytes) pairs."""
        return self._set_row(name, [v for pair in row for v in pair], 2)

    def _set_row(self, name: str, values: list[int], width: int) -> bool:
        if name not in self._index:
            return False
        with self._lock:
            directory = U64.unpack_from(self.map, 32)[0] - BASE
            at = directory + self._index[name] * ENTRY.size + ENTRY_VALUE_AT
            threads = U64.unpack_from(self.map, at)[0] - BASE
            data = U64.unpack_from(self.map, threads)[0] - BASE
            if struct.unpack_from("<I", self.map, data - VEC_HEADER)[0] * width != len(values):
                return False
            struct.pack_into(f"<{len(values)}Q", self.map, data, *values)
            return True

    def set_scalar(self, name: str, value: int) -> None:
        """Update one scalar or gauge in place (no new layout: cheap at any size)."""
        if name not in self._index:
            return  # nothing published yet
        with self._lock:
            directory = U64.unpack_from(self.map, 32)[0] - BASE
            at = directory + self._index[name] * ENTRY.size + ENTRY_VALUE_AT
            U64.pack_into(self.map, at, value & (2**64 - 1))

    def close(self) -> None:
        with contextlib.suppress(BufferError, ValueError):
            self.map.close()
        with contextlib.suppress(OSError):
            os.close(self.fd)


class StatsSocket:
    """VPP's stats socket: each client that connects gets the segment's fd, then EOF."""

    def __init__(self, segment: StatsSegment, path: str,
                 before_handover: Callable[[], None] | None = None) -> None:
        self.segment = segment
        self.path = path
        self.before_handover = before_handover  # bring the segment up to date first
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> StatsSocket:
        remove_stale_socket(self.path, socket.SOCK_SEQPACKET, "stats server")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        listener.bind(self.path)
        listener.listen(16)
        self._listener = listener
        self._thread = threading.Thread(target=self._accept, name="vppcfg-sim-stats",
                                        daemon=True)
        self._thread.start()
        return self

    def _accept(self) -> None:
        assert self._listener is not None
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # closed by stop()
            with conn:
                try:
                    if self.before_handover:
                        self.before_handover()
                    fds = array.array("i", [self.segment.fd])
                    conn.sendmsg([b"\0"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
                except OSError as err:
                    log.debug("stats client went away: %s", err)

    def stop(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        if self._thread is not None:
            self._thread.join(2.0)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


