"""sFlow: a polling interval of 0 is what VPP holds after `sflow polling-interval 0`,
but its sflow process takes the time modulo the interval for every sampling
interface, so VPP 26.10 dies (SIGFPE, seen on vpp-real) once one samples."""

from __future__ import annotations

from vppcfg.config.rules import Context


def check(ctx: Context) -> None:
    if ctx.dp.sflow.polling_interval != 0:
        return
    sampling = [i.name for i in ctx.ifaces.values() if i.sflow]
    if sampling:
        ctx.report(
            "sflow",
            "polling-interval",
            f"polling-interval 0 crashes VPP while an interface samples "
            f"({ctx.others(sampling, '')})",
        )
