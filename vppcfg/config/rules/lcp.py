"""Linux interface names (lcp pairs and tap host sides) are unique on the host."""

from __future__ import annotations

from vppcfg.config.rules import Context

# Real VPP (26.10) refuses a 15-character lcp host name although Linux allows 15.
LCP_MAX = 14


def check(ctx: Context) -> None:
    for name, owners in ctx.lcp_owners.items():
        shown = [o.split("/", 1)[1] for o in owners]
        for owner in owners:
            field = "lcp" if owner.startswith("interfaces/") else ("host", "name")
            if field == "lcp" and len(name) > LCP_MAX:
                ctx.report(owner, field, f"lcp name {name} is longer than {LCP_MAX} characters")
            if len(owners) > 1:
                others = ctx.others(shown, owner.split("/", 1)[1])
                ctx.report(owner, field, f"Linux name {name} is also used by {others}")
