"""Linux interface names (lcp pairs and tap host sides) are unique on the host.

Their length is the schema's (15, as Linux and VPP 26.10 allow: a 15-character
`lcp create ... host-if` works on vpp-real through the CLI and every API
version, tests/test_real_dump.py)."""

from __future__ import annotations

from vppcfg.config.rules import Context


def check(ctx: Context) -> None:
    for name, owners in ctx.lcp_owners.items():
        if len(owners) < 2:
            continue
        shown = [o.split("/", 1)[1] for o in owners]
        for owner in owners:
            field = "lcp" if owner.startswith("interfaces/") else ("host", "name")
            others = ctx.others(shown, owner.split("/", 1)[1])
            ctx.report(owner, field, f"Linux name {name} is also used by {others}")
