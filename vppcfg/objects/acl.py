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

from vppcfg.model import Acl as AclModel
from vppcfg.model import AclTerm, Dataplane, FrozenDict, PortRange, PrefixList
from vppcfg.model import InterfaceAcls as AclLists
from vppcfg.objects.base import (
    Descriptor,
    Node,
    NodeContext,
    RenderContext,
    comment_text,
    fd,
    field_of,
    token,
)
from vppcfg.objects.interface import canonical_prefix
from vppcfg.objects.needs import ACL, DELETE, EVERY_INTERFACE, Dump, Uses
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext
from vppcfg.vpp_numbers import ACL_ACTION, NONE_INDEX

# The model's actions are VPP's words: ACL_ACTION writes, its inverse reads.
ACTION_NAMES = {number: word for word, number in ACL_ACTION.items()}
MAX_NAME = 56  # the config language's limit on an ACL name
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
    api_modules = ("acl",)
    uses = (Uses(("acl_add_replace",), ACL, ("create", "update")),
            Uses(("acl_del",), ACL, DELETE), Uses(("acl_dump",), ACL))
    reads = (Dump("acls", ("acl_dump",), ACL, args=(("acl_index", NONE_INDEX),)),)
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


    def read(self, raw: RawDump, reading: Reading) -> None:
        acls: dict[str, AclModel] = {}
        details = sorted(raw.rows("acls"), key=lambda a: a["acl_index"])
        names = acl_names(details)
        for a in details:
            name = names[a["acl_index"]]
            acls[name] = AclModel(name=name, terms=tuple(_term(r) for r in a["r"]))
            if not looks_like_ours(a["tag"]) or name != a["tag"]:
                reading.foreign.add(acl_key(name))
        reading.sections["acls"] = FrozenDict(acls)


def _rule_cli(rule: tuple[Any, ...]) -> str:
    action, src, dst, proto, sf, sl, df, dl = rule
    words = [token(action), "src", token(src), "dst", token(dst)]
    if proto:
        words += ["proto", str(int(proto)), "sport", f"{int(sf)}-{int(sl)}",
                  "dport", f"{int(df)}-{int(dl)}"]
    return " ".join(words)


def _rule_api(rule: tuple[Any, ...]) -> dict[str, Any]:
    action, src, dst, proto, sf, sl, df, dl = rule
    return {"is_permit": ACL_ACTION[action], "src_prefix": src, "dst_prefix": dst, "proto": proto,
            "srcport_or_icmptype_first": sf, "srcport_or_icmptype_last": sl,
            "dstport_or_icmpcode_first": df, "dstport_or_icmpcode_last": dl,
            "tcp_flags_mask": 0, "tcp_flags_value": 0}


def _term(rule: dict[str, Any]) -> AclTerm:
    """The inverse of _rule_api."""
    src, dst, proto = rule["src_prefix"], rule["dst_prefix"], rule["proto"]
    first = PortRange(rule["srcport_or_icmptype_first"], rule["srcport_or_icmptype_last"])
    second = PortRange(rule["dstport_or_icmpcode_first"], rule["dstport_or_icmpcode_last"])
    ports: dict[str, PortRange] = (
        # ICMP types and codes are 8 bits: a CLI rule without them holds 0-65535, i.e. any
        {"icmp_type": _icmp(first), "icmp_code": _icmp(second)}
        if proto in ICMP_PROTOCOLS
        else {"source_port": first, "destination_port": second}
    )
    return AclTerm(action=ACTION_NAMES.get(rule["is_permit"], "deny"),
                   family="ipv6" if ":" in src else "ipv4",
                   source=canonical_prefix(src), destination=canonical_prefix(dst),
                   protocol=proto, **ports)


def _icmp(values: PortRange) -> PortRange:
    return PortRange(min(values.first, 255), min(values.last, 255))


def acl_names(details: list[dict[str, Any]]) -> dict[int, str]:
    """acl_index -> the ACL's name in the model: its tag, or ``acl-index-N``
    when it has none or an ACL with a lower index has the same tag. Every
    ACL gets a name, so CLI rendering knows every index that is taken."""
    names: dict[int, str] = {}
    seen: set[str] = set()
    for a in sorted(details, key=lambda a: a["acl_index"]):
        tag = a["tag"]
        name = tag if tag and tag not in seen else f"acl-index-{a['acl_index']}"
        seen.add(name)
        names[a["acl_index"]] = name
    return names


def looks_like_ours(tag: str) -> bool:
    """An ACL tag vppcfg could have written: a valid config ACL name."""
    from vppcfg.config.names import LIST_NAME_RE

    return len(tag) <= MAX_NAME and bool(LIST_NAME_RE.fullmatch(tag))


def acl_indexes(conn: Any) -> dict[str, int]:
    """ACL name -> index of every ACL in VPP, named as the dump names them,
    for rendering CLI that addresses ACLs by index (untagged ones too: the
    index a new ACL gets is predicted from all the taken ones). `conn` is a
    vppcfg.vpp.VppConnection."""
    from vppcfg.vpp.plain import plain_list

    if not conn.has_message("acl_dump"):
        return {}
    details = plain_list(conn.call("acl_dump", acl_index=NONE_INDEX))
    return {name: index for index, name in acl_names(details).items()}


def find_acl(ctx: VppContext, name: str) -> int:
    for details in ctx.call("acl_dump", acl_index=NONE_INDEX):
        if field_of(details, "tag") == name:
            return int(field_of(details, "acl_index"))
    raise KeyError(f"acls/{name}: no ACL with this tag in VPP")


class InterfaceAcls(Descriptor):
    """The ordered input/output ACL lists of one interface."""

    obj = "interface-acls"
    api_modules = ("acl",)
    uses = (Uses(("acl_interface_set_acl_list",), ACL), Uses(("acl_dump",), ACL))
    reads = (Dump("acl_interfaces", ("acl_interface_list_dump",), ACL, args=EVERY_INTERFACE),)

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
            rc.deferred.append(f"{op.key} (ACL {unknown[0]})")
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

    def read(self, raw: RawDump, reading: Reading) -> None:
        names = acl_names(raw.rows("acls"))
        for entry in raw.rows("acl_interfaces"):
            if not entry["acls"]:
                continue
            named = [names.get(a, f"acl-index-{a}") for a in entry["acls"]]
            n_in = entry["n_input"]
            reading.set(entry["sw_if_index"],
                        acls=AclLists(input=tuple(named[:n_in]), output=tuple(named[n_in:])))
