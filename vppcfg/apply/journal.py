"""The apply journal: what a running apply is doing, in the state directory.

Written (JSON, tmp + rename) before the first change and removed when the
apply ends cleanly (VPP matches the config, or is back as it was). An apply
killed outright (SIGKILL, a crash, a forced exit) leaves it behind, and the
next `vppcfg plan` or `apply` says so first. A forced exit also writes what
it left undone. The next apply moves the record aside (UNFINISHED) and
removes it only when it has itself made VPP match a config.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

JOURNAL = "apply-journal.json"
UNFINISHED = "unfinished-apply.json"


def start(state_dir: str, entry: dict[str, Any]) -> dict[str, Any]:
    """Record an apply about to change VPP (`entry`: config, planned, ...);
    the record written."""
    entry = {"pid": os.getpid(), "started": time.time(), "state": "applying",
             "left_undone": None, **entry}
    write(state_dir, entry)
    return entry


def write(state_dir: str, entry: dict[str, Any]) -> None:
    directory = Path(state_dir)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = directory / f".{JOURNAL}.tmp"
    tmp.write_text(json.dumps(entry, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, directory / JOURNAL)


def update(state_dir: str, entry: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """`entry` with `changes`, written over the journal; best effort (an
    apply must not fail, nor stop its rollback, for want of a note)."""
    entry = {**entry, **changes}
    with contextlib.suppress(OSError):
        write(state_dir, entry)
    return entry


def finish(state_dir: str, clean_slate: bool) -> None:
    """The apply ended cleanly: drop its journal; with `clean_slate` (VPP now
    matches a config) an earlier unfinished apply's record too."""
    names = (JOURNAL, UNFINISHED) if clean_slate else (JOURNAL,)
    for name in names:
        with contextlib.suppress(OSError):
            (Path(state_dir) / name).unlink()


def earlier(state_dir: str) -> dict[str, Any] | None:
    """The record of an earlier apply that did not finish, if any (the journal
    of a process that is gone, or one already moved aside)."""
    directory = Path(state_dir)
    for name in (JOURNAL, UNFINISHED):
        entry = _read(directory / name)
        if entry is not None and not (name == JOURNAL and _alive(entry.get("pid"))):
            return entry
    return None


def set_aside(state_dir: str) -> None:
    """Keep an earlier apply's journal as UNFINISHED (this apply's goes in its place)."""
    directory = Path(state_dir)
    with contextlib.suppress(OSError):
        if (directory / JOURNAL).exists():
            os.replace(directory / JOURNAL, directory / UNFINISHED)


def describe(entry: dict[str, Any]) -> list[str]:
    """Lines saying what the earlier apply was and what it may have left."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.get("started", 0)))
    lines = [f"an earlier apply did not finish: pid {entry.get('pid')}, config "
             f"{entry.get('config')}, started {when}, {entry.get('planned')} change(s) planned, "
             f"stopped while {entry.get('state', 'applying')}"]
    left, made = entry.get("left_undone"), entry.get("made")
    if made is not None:
        lines.append(f"  it made {len(made)} change(s) and did not roll them back"
                     + (f" ({entry.get('unanswered')} more call(s) got no reply)"
                        if entry.get("unanswered") else "") + ":")
        lines += [f"    {line}" for line in made[:20]]
        if len(made) > 20:
            lines.append(f"    ... and {len(made) - 20} more")
    elif left is None:
        lines.append("  what it changed is not known: VPP may differ from both that config "
                     "and the state before it (`vppcfg plan` shows the difference)")
    else:
        lines.append(f"  left undone ({len(left)}):")
        lines += [f"    {line}" for line in left[:20]]
        if len(left) > 20:
            lines.append(f"    ... and {len(left) - 20} more")
    return lines


def _read(path: Path) -> dict[str, Any] | None:
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return entry if isinstance(entry, dict) else None


def _alive(pid: Any) -> bool:
    # our own pid: an earlier apply of this process (tests run several in one)
    if not isinstance(pid, int) or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's live process
        return True
    return True
