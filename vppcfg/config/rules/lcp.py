"""Linux interface names (lcp pairs and tap host sides) are unique on the host.

Their length is the schema's (15, as Linux and VPP 26.10 allow: a 15-character
`lcp create ... host-if` works on vpp-real through the CLI and every API
version, tests/test_real_dump.py)."""

from __future__ import annotations

from collections import Counter, defaultdict

from vppcfg.config.rules import Context


def check(ctx: Context) -> None:
    for name, owners in _shared(ctx).items():
        if len(owners) < 2:
            continue
        shown = [o.split("/", 1)[1] for o in owners]
        for owner in owners:
            field = "lcp" if owner.startswith("interfaces/") else ("host", "name")
            others = ctx.others(shown, owner.split("/", 1)[1])
            ctx.report(owner, field, f"Linux name {name} is also used by {others}")


def _shared(ctx: Context) -> dict[str, list[str]]:
    """The Linux names used more than once, each with the model keys of its
    users: interfaces, then taps. Counted first: nearly every name has one
    user, and needs no key made (nor counted, when a set shows no name twice)."""
    used = [iface.lcp for iface in ctx.ifaces.values() if iface.lcp]
    used += [tap.host.name for tap in ctx.dp.taps.values()]
    owners: dict[str, list[str]] = defaultdict(list)
    if len(set(used)) == len(used):
        return owners
    shared = {name for name, count in Counter(used).items() if count > 1}
    for iface in ctx.ifaces.values():
        if iface.lcp in shared:
            owners[iface.lcp].append(f"interfaces/{iface.name}")
    for tap in ctx.dp.taps.values():
        if tap.host.name in shared:
            owners[tap.host.name].append(f"taps/{tap.name}")
    return owners
