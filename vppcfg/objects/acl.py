"""ACLs (identified by their VPP tag = name) and their binding to interfaces.

A config term expands to VPP rules (one per address family, one per
prefix-list member); both sides are compared as the list of VPP rules.
ACL indexes are VPP's, so API execution looks ACLs up by tag; the CLI needs
indexes, which render_cli predicts where they can be known (RenderContext:
VPP reuses the most recently freed slot).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator
from typing import Any

from vppcfg.model import AclTerm, Dataplane, PrefixList
from vppcfg.objects.base import (
    NONE_INDEX,
    Descriptor,
    Node,
    NodeContext,
    RenderContext,
    comment_text,
    fd,
    field_of,
    token,
)
from vppcfg.objects.needs import ACL, DELETE, Uses
from vppcfg.ops import Operation, VppContext

ACTIONS = {"deny": 0, "permit": 1, "permit+reflect": 2}
ICMP_PROTOCOLS = (1, 58)
ANY = {4: "0.0.0.0/0", 6: "::/0"}


def _prefixes(ref: str | None, lists: dict[str, PrefixList], version: int) -> list[str]:
    if ref is None:
        return [ANY[version]]
    members = lists[ref].members if ref in lists else (ref,)
    out = []
    for prefix in members:
        itf = ipaddress.ip_interface(prefix)
        if itf.version == version:
            out.append(str(itf))
    return out


def expand(term: AclTerm, lists: dict[str, PrefixList]) -> Iterator[tuple[Any, ...]]:
    """The VPP rules of one term, as hashable tuples (the rule's API fields)."""
    versions = {"ipv4": (4,), "ipv6": (6,)}.get(term.family, (4, 6))
    if term.protocol in ICMP_PROTOCOLS:
        first, second = term.icmp_type, term.icmp_code
    else:
        first, second = term.source_port, term.destination_port
    for version in versions:
        for src in _prefixes(term.source, lists, version):
            for dst in _prefixes(term.destination, lists, version):
                yield (term.action, src, dst, term.protocol, first.first, first.last,
                       second.first, second.last)


def acl_key(name: str) -> str:
    return f"acls/{name}"


class Acl(Descriptor):
    obj = "acl"
    uses = (Uses(("acl_add_replace",), ACL, ("create", "update")),
            Uses(("acl_del",), ACL, DELETE), Uses(("acl_dump",), ACL))
    reads = (Uses(("acl_dump",), ACL),)
    # An ACL bound to an interface vppcfg leaves alone is kept: unbinding it
    # would silently drop filtering on an interface the config does not manage.
    kept_while_used = True

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        lists = dict(dp.prefixlists)
        for acl in dp.acls.values():
            rules = tuple(rule for term in acl.terms for rule in expand(term, lists))
            yield Node(acl_key(acl.name), self.obj, fd(name=acl.name, rules=rules),
                       owner=acl_key(acl.name))

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        name = op.params["name"]
        if op.action == "delete":
            return [f"delete acl-plugin acl index {rc.release_acl(name)}"]
        index = f"index {rc.acl_index(name)} " if op.action == "update" else ""
        if op.action == "create":  # where VPP will put it, for the bindings below
            rc.new_acl(name)
        rules = ", ".join(_rule_cli(rule) for rule in op.params["rules"])
        return [f"set acl-plugin acl {index}{rules} tag {token(name)}"]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        name = op.params["name"]
        if op.action == "delete":
            ctx.call("acl_del", acl_index=find_acl(ctx, name))
            return
        index = find_acl(ctx, name) if op.action == "update" else NONE_INDEX
        rules = [_rule_api(rule) for rule in op.params["rules"]]
        ctx.call("acl_add_replace", acl_index=index, tag=name, count=len(rules), r=rules)


def _rule_cli(rule: tuple[Any, ...]) -> str:
    action, src, dst, proto, sf, sl, df, dl = rule
    words = [token(action), "src", token(src), "dst", token(dst)]
    if proto:
        words += ["proto", str(int(proto)), "sport", f"{int(sf)}-{int(sl)}",
                  "dport", f"{int(df)}-{int(dl)}"]
    return " ".join(words)


def _rule_api(rule: tuple[Any, ...]) -> dict[str, Any]:
    action, src, dst, proto, sf, sl, df, dl = rule
    return {"is_permit": ACTIONS[action], "src_prefix": src, "dst_prefix": dst, "proto": proto,
            "srcport_or_icmptype_first": sf, "srcport_or_icmptype_last": sl,
            "dstport_or_icmpcode_first": df, "dstport_or_icmpcode_last": dl,
            "tcp_flags_mask": 0, "tcp_flags_value": 0}


def find_acl(ctx: VppContext, name: str) -> int:
    for details in ctx.call("acl_dump", acl_index=NONE_INDEX):
        if field_of(details, "tag") == name:
            return int(field_of(details, "acl_index"))
    raise KeyError(f"acls/{name}: no ACL with this tag in VPP")


class InterfaceAcls(Descriptor):
    """The ordered input/output ACL lists of one interface."""

    obj = "interface-acls"
    uses = (Uses(("acl_interface_set_acl_list",), ACL), Uses(("acl_dump",), ACL))
    reads = (Uses(("acl_interface_list_dump",), ACL),)

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, itf in ctx.keyed:
            acls = itf.acls
            if acls.input or acls.output:
                deps = (key, *(acl_key(n) for n in dict.fromkeys(acls.input + acls.output)))
                yield Node(f"{key}/acls", self.obj,
                           fd(name=itf.name, input=acls.input, output=acls.output),
                           deps=deps, owner=key)

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        name = token(op.params["name"])
        old = op.params if op.action == "delete" else op.params.get("previous", {})
        lines = [f"set acl-plugin interface {name} {direction} acl {rc.acl_index(acl)} del"
                 for direction in ("input", "output") for acl in old.get(direction, ())]
        if op.action == "delete":
            return lines
        # an update re-adds only the directions that changed
        add = [(direction, acl) for direction in ("input", "output")
               if op.action == "create" or direction in old for acl in op.params[direction]]
        unknown = [acl for _, acl in add if not rc.knows_acl(acl)]
        if unknown:  # created by this plan at an index VPP picks (see RenderContext)
            return [*lines, f"comment {{ {comment_text(op.key)}: ACL {comment_text(unknown[0])} "
                    "is created above at an index VPP chooses: run vppcfg plan again to bind it }"]
        return [*lines, *(f"set acl-plugin interface {name} {direction} acl {rc.acl_index(acl)}"
                          for direction, acl in add)]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        inputs = () if op.action == "delete" else op.params["input"]
        outputs = () if op.action == "delete" else op.params["output"]
        acls = [find_acl(ctx, n) for n in (*inputs, *outputs)]
        ctx.call("acl_interface_set_acl_list", sw_if_index=ctx.sw_if_index(op.params["name"]),
                 count=len(acls), n_input=len(inputs), acls=acls)
