"""What the commands say of the Linux side of the lcp pairs (vppcfg.linux,
vppcfg.objects.linux): its differences when another tool owns it, and the
steps a printed CLI cannot carry when linux-cp runs without lcp-sync."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import replace

from vppcfg.model import Dataplane
from vppcfg.objects.linux import describe_step, is_linux_step
from vppcfg.ops import Operation
from vppcfg.planner import plan


def linux_steps(desired: Dataplane, live: Dataplane) -> list[str]:
    """The Linux-side steps that would make `live`'s pairs match `desired`, in
    words, whoever owns the Linux side (none when it was not read)."""
    if live.linux is None:
        return []
    owned = replace(live, linux=replace(live.linux, managed=True))
    return [describe_step(op) for op in plan(desired, owned) if is_linux_step(op)]


def warn_unowned(desired: Dataplane, live: Dataplane, prog: str) -> int:
    """With the Linux side owned by another tool: each difference it leaves,
    once, on stderr; their number."""
    if live.linux is None or live.linux.managed:
        return 0
    steps = linux_steps(desired, live)
    for step in steps:
        print(f"{prog}: warning: Linux side left to its owner: {step}", file=sys.stderr)
    return len(steps)


def warn_cli_linux(ops: Iterable[Operation], live: Dataplane, prog: str) -> None:
    """The Linux-side steps a printed CLI cannot make (they are in it as
    comments, for `vppcfg apply`): all of them without lcp-sync, the address
    removals with it (linux-cp's sync adds a pair's addresses, removes none)."""
    if live.linux is None:
        return
    sync = live.linux.settings.sync
    count = sum(1 for op in ops if is_linux_step(op) and (
        not sync or (op.obj == "linux-address" and op.action == "delete")))
    if not count:
        return
    if sync:
        print(f"{prog}: warning: {count} Linux-side address removal(s) are comments in this "
              "CLI: linux-cp's lcp-sync adds addresses but removes none; `vppcfg apply` "
              "removes them through netlink", file=sys.stderr)
    else:
        print(f"{prog}: warning: {count} Linux-side step(s) are comments in this CLI: linux-cp "
              "runs without lcp-sync, so VPP cannot carry them; `vppcfg apply` makes them "
              "through netlink (or start VPP with `linux-cp { lcp-sync }`)", file=sys.stderr)
