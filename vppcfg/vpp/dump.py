"""Read the live VPP into a `Dataplane` (see the conventions in vppcfg.model).

Two steps: `collect` asks VPP for what the object types declare and keeps the
replies in plain form (a RawDump); `build_dataplane` gives them to each object
type's reader (vppcfg.objects.reading) in one O(n) pass. Keeping the second
step pure lets tests feed it recorded replies. Nothing here knows an object
type: each descriptor says what it reads and how.
"""

from __future__ import annotations

from typing import Any

from vppcfg.model import Dataplane, FrozenDict
from vppcfg.objects import DESCRIPTORS
from vppcfg.objects.needs import Dump
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.vpp.errors import EAGAIN
from vppcfg.vpp.plain import plain, plain_list

# -- collecting ---------------------------------------------------------------


def collect(conn: Any) -> RawDump:
    """Ask VPP for everything the model holds. `conn` is a VppConnection.

    Two pipelined waves (VPP answers in order, so nothing waits for a round
    trip): every declared table at once, then the follow-ups that need their
    indexes (the addresses of each interface, the members of each bond).
    """
    raw = RawDump()
    dumps = _offered_dumps(conn)
    requests = [(message, dict(dump.args)) for dump, message in dumps]
    for (dump, message), result in zip(dumps, conn.call_many(requests), strict=True):
        raw[dump.table] = _kept(conn, dump, message, result)
        raw.sources[dump.table] = message
    _follow_ups(conn, raw)
    return raw


def _offered_dumps(conn: Any) -> list[tuple[Dump, str]]:
    """Each declared table with the first of its messages this VPP offers (a
    table declared twice, for messages that take other arguments, is read by
    the first declaration VPP offers; one none of whose messages VPP offers is
    not read)."""
    out: dict[str, tuple[Dump, str]] = {}
    for desc in DESCRIPTORS:
        for dump in desc.reads:
            if isinstance(dump, Dump) and dump.table not in out:
                message = next((m for m in dump.messages if conn.has_message(m)), None)
                if message is not None:
                    out[dump.table] = (dump, message)
    return list(out.values())


def _kept(conn: Any, dump: Dump, message: str, result: Any) -> Any:
    """A table's result in plain form, with the pages that follow a paged one."""
    args = dict(dump.args)
    if dump.paged:
        reply, details = result
        if reply.retval == EAGAIN:
            return plain_list([*details, *conn.dump_stream(message, cursor=reply.cursor, **{
                k: v for k, v in args.items() if k != "cursor"})])
        return plain_list(conn.check(message, args, result)[1])
    checked = conn.check(message, args, result)
    return plain(checked) if dump.reply else plain_list(checked)


def _follow_ups(conn: Any, raw: RawDump) -> None:
    """The second wave: every object type's follow-up requests in one batch."""
    reading = _marked(raw)
    asked: list[tuple[Any, list[tuple[str, dict[str, Any]]]]] = []
    for desc in DESCRIPTORS:
        requests = desc.follow_up(raw, reading)
        if requests and all(conn.has_message(m) for m, _ in requests):
            asked.append((desc, requests))
    results = conn.call_many([r for _, requests in asked for r in requests])
    start = 0
    for desc, requests in asked:
        desc.take(raw, requests, results[start:start + len(requests)])
        start += len(requests)


# -- building -----------------------------------------------------------------


def _marked(raw: RawDump) -> Reading:
    reading = Reading(raw)
    for desc in DESCRIPTORS:
        desc.mark(raw, reading)
    return reading


def build_dataplane(raw: RawDump) -> Dataplane:
    """The model of what `raw` holds: each object type reads its part, in
    registry order (interfaces first, then what refines them)."""
    reading = _marked(raw)
    for desc in DESCRIPTORS:
        desc.read(raw, reading)
    interfaces = sorted(reading.kept.values(), key=lambda itf: itf.name)
    return Dataplane(interfaces=FrozenDict((itf.name, itf) for itf in interfaces),
                     foreign=frozenset(reading.foreign), **reading.sections)


__all__ = ["RawDump", "build_dataplane", "collect"]
