"""The refusals of the vppcfg language that an operator may turn into warnings.

VPP itself accepts each of these states, but IPng's vppcfg language refuses
them because the config then does not do what it says (an address on a bond
member is never used, an oversize sub-interface MTU drops frames the parent
refuses ...). They are refused by default; `--allow RULE` on check, plan and
apply, or a `vppcfg: {allow: [RULE, ...]}` section in the file, makes one a
warning again (for an operator who knowingly runs such a state, and for
`vppcfg dump` of a VPP that holds one).

This module is plain data: the command line lists the names without loading
the checker.
"""

from __future__ import annotations

# rule name -> what it refuses (shown by `vppcfg check --list-rules` and in
# docs/config-guide.md; tests keep the two in step). Names are stable: files
# and scripts name them.
RULES: dict[str, str] = {
    "bond-interface": "a bond under 'bondethernets' with no entry under 'interfaces'",
    "bond-member-address": "a bond member with addresses or unnumbered",
    "bond-member-lcp": "a bond member with an lcp",
    "bond-member-mtu": "a bond member whose MTU differs from the bond's",
    "bond-member-sub-interfaces": "a bond member with sub-interfaces",
    "l2-address": "a bridge-domain member or l2xc source/target with addresses",
    "l2-lcp": "a bridge-domain member or l2xc source/target with an lcp",
    "l2xc-mtu": "an l2xc source and target of different MTUs",
    "l2xc-sub-interfaces": "an l2xc source that has sub-interfaces",
    "l2xc-target-bridged": "an l2xc target that is a bridge-domain member",
    "l2xc-target-shared": "an l2xc target that is the target of more than one source",
    "sub-mtu": "a sub-interface MTU above its parent's (or its QinQ outer tag's)",
    "sub-up-parent-down": "a sub-interface up under a parent that is down",
    "sub-empty": "a sub-interface with no settings at all",
    "mtu-range": "an MTU outside the language's 128-9216",
    "loopback-instance": "a loopback instance above 4095",
    "tap-instance": "a tap instance above 1024",
    "bridgedomain-instance": "a bridge domain above bd65535",
    "tap-address": "a tap with addresses (its host side has them)",
    "tap-lcp": "a tap with an lcp (it has a Linux side already)",
    "tap-mtu": "a tap whose MTU differs from its host MTU",
    "unnumbered-chain": "an unnumbered interface whose target is itself unnumbered",
    "acl-ports": "an ACL term with ports but a protocol other than tcp or udp",
    "acl-icmp": "an ACL term with icmp-type/code but a protocol other than icmp or ipv6-icmp",
}


def unknown(names: list[str]) -> list[str]:
    """The names among `names` that are no rule."""
    return [name for name in names if name not in RULES]


def listing() -> str:
    """One line per rule, for --list-rules and --help."""
    width = max(len(name) for name in RULES)
    return "\n".join(f"  {name:<{width}}  {what}" for name, what in sorted(RULES.items()))
