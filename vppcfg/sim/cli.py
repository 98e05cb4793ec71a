"""The simulator's VPP CLI (cli_inband): each command becomes API calls on the same model.

So the CLI and the API cannot disagree about behaviour: `set interface state X up`
is sw_interface_set_flags on the model, its retval decides the outcome. Like VPP,
a command that fails stops the rest of the input and answers retval -1 with the
error text in ``reply`` (vlib_cli_input: ``rv = error->code ? error->code : -1``);
success answers retval 0 with what VPP would print (the name of a new interface).
Blank lines, ``#`` lines and ``comment { ... }`` are ignored.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Callable
from typing import Any

from vppcfg.sim.codec import ApiDefinitions
from vppcfg.sim.protocol import Handler, Response
from vppcfg.vpp_numbers import (
    ACL_ACTION,
    BOND_LB,
    BOND_MODE,
    SUB_DEFAULT,
    SUB_DOT1AD,
    SUB_INNER_ANY,
    SUB_NO_TAGS,
    SUB_ONE_TAG,
    SUB_OUTER_ANY,
    SUB_TWO_TAGS,
    ZERO_MAC,
)
from vppcfg.vpp_numbers import NONE_INDEX as NONE
from vppcfg.vpp_numbers import SUB_EXACT_MATCH as SUB_EXACT

CLI_ERROR = -1

# vnet/error.h texts of the retvals the model answers with.
ERROR_TEXT = {
    -1: "Unspecified Error", -2: "Invalid sw_if_index", -3: "No such FIB / VRF",
    -6: "No such entry", -7: "Invalid value", -8: "Invalid value #2", -9: "Unimplemented",
    -10: "Invalid sw_if_index #2", -11: "System call error #1", -12: "System call error #2",
    -13: "System call error #3", -30: "Feature disabled by configuration",
    -31: "Invalid registration", -55: "Invalid VLAN", -56: "VLAN subif already exists",
    -60: "Address not found for interface", -71: "Invalid interface", -73: "Invalid argument",
    -75: "Tunnel already exists", -79: "Interface already exists", -81: "Value already exists",
    -82: "Source and destination are the same", -98: "Invalid sub-interface sw_if_index",
    -105: "Address in use", -114: "Address found for interface",
    -119: "Bridge domain already exists", -120: "Bridge domain has member interfaces",
    -121: "Bridge domain 0 can't be deleted/modified",
    -122: "Bridge domain ID exceeds 16M limit", -126: "Unsupported", -127: "Address in use",
    -142: "ACL in use", -144: "Initialization Failed", -145: "Netlink error",
    -147: "Instance in use", -152: "Bridge domain already has a BVI interface",
}

# What l2_bd.c's "create bridge-domain" says instead of the API error text.
BD_ERRORS = {
    -120: "bridge domain in use - remove members",
    -6: "bridge domain ID does not exist",
    -121: "bridge domain 0 can not be modified",
}
BD_FLAGS = {"learn": 1, "forward": 2, "flood": 4, "uu-flood": 8, "arp-term": 16, "arp-ufwd": 32}
TAP_FLAGS = {"gso": 1, "csum-offload": 2, "persist": 4, "attach": 8, "tun": 16,
             "gro-coalesce": 32, "packed": 64, "in-order": 128, "consistent-qp": 256}
VTR_POP = {"1": 3, "2": 4}
MTU_PROTOS = {"packet": 0, "ip4": 1, "ip6": 2, "mpls": 3}
SFLOW_DIRECTIONS = {"rx": 1, "tx": 2, "both": 3}


class CliError(Exception):
    """A command failed; the text is what VPP would print."""


class Words:
    """The words of one command after its path, consumed left to right."""

    def __init__(self, path: str, words: list[str]) -> None:
        self.path = path
        self.words = words
        self.pos = 0

    def peek(self) -> str | None:
        return self.words[self.pos] if self.pos < len(self.words) else None

    def accept(self, *words: str) -> str | None:
        if self.peek() in words:
            self.pos += 1
            return self.words[self.pos - 1]
        return None

    def take(self, what: str) -> str:
        word = self.peek()
        if word is None:
            raise CliError(f"{self.path}: missing {what}")
        self.pos += 1
        return word

    def number(self, what: str, limit: int = NONE) -> int:
        word = self.take(what)
        try:
            value = int(word, 0)
        except ValueError:
            raise self.unknown(back=1) from None
        if not 0 <= value <= limit:
            raise CliError(f"{self.path}: {what} {word} out of range")
        return value

    def rest(self) -> str:
        return " ".join(self.words[self.pos:])

    def unknown(self, back: int = 0) -> CliError:
        self.pos -= back
        return CliError(f"{self.path}: unknown input `{self.rest()}'")

    def done(self) -> None:
        if self.peek() is not None:
            raise self.unknown()


Command = Callable[["SimCli", Words], str]
COMMANDS: dict[tuple[str, ...], Command] = {}


def command(path: str) -> Callable[[Command], Command]:
    def register(fn: Command) -> Command:
        COMMANDS[tuple(path.split())] = fn
        return fn

    return register


class SimCli:
    """Runs VPP CLI text against a behaviour model."""

    def __init__(self, handler: Handler, api: ApiDefinitions | None = None) -> None:
        self.handler = handler
        self.api = api or _default_definitions()

    def handle(self, args: dict[str, Any]) -> Response:
        """The cli_inband request."""
        output, retval = self.run(args.get("cmd", ""))
        return Response(reply={"retval": retval, "reply": output})

    def run(self, text: str) -> tuple[str, int]:
        """(output, retval) of some CLI lines; the first failure stops the rest."""
        out = []
        for line in _lines(text):
            try:
                out.append(self.execute(line))
            except CliError as err:
                out.append(f"{err}\n")
                return "".join(out), CLI_ERROR
        return "".join(out), 0

    def execute(self, line: str) -> str:
        words = line.split()
        for size in range(len(words), 0, -1):
            fn = COMMANDS.get(tuple(words[:size]))
            if fn:
                return fn(self, Words(" ".join(words[:size]), words[size:]))
        known = max((n for n in range(len(words), 0, -1) if _is_prefix(words[:n])), default=0)
        if known:
            raise CliError(f"{' '.join(words[:known])}: unknown input `{' '.join(words[known:])}'")
        raise CliError(f"unknown input `{line}'")

    # -- talking to the model ---------------------------------------------------------

    def ask(self, path: str, message: str, **args: Any) -> Response:
        """Call the model with a full request (defaults filled in as the wire would)."""
        _, full = self.api.decode(self.api.encode(message, args))
        full = {k: v for k, v in full.items() if k not in ("_vl_msg_id", "client_index", "context")}
        try:
            return self.handler.handle(message, full)
        except KeyError:
            raise CliError(f"{path}: not supported by this simulator ({message})") from None

    def call(
        self, path: str, message: str, errors: dict[int, str] | None = None, **args: Any
    ) -> dict[str, Any]:
        """The reply of a call; a failure raises the command's error (its own text if known)."""
        reply = self.ask(path, message, **args).reply or {}
        retval = reply.get("retval", 0)
        if retval and errors and retval in errors:
            raise CliError(f"{path}: {errors[retval]}")
        if retval:
            raise CliError(f"{path}: {ERROR_TEXT.get(retval, 'error')} ({retval})")
        return reply

    def dump(self, path: str, message: str, **args: Any) -> list[dict[str, Any]]:
        return self.ask(path, message, **args).details

    def interfaces(self, path: str) -> list[dict[str, Any]]:
        return self.dump(path, "sw_interface_dump", sw_if_index=NONE)

    def sw_if_index(self, words: Words, what: str = "interface") -> int:
        """Resolve a name like VPP's unformat_vnet_sw_interface (a lookup, not an API call)."""
        name = words.take(what)
        by_name = getattr(getattr(self.handler, "state", None), "by_name", None)
        if callable(by_name):  # the model's own index: constant time on big models
            itf = by_name(name)
            if itf is not None:
                return int(itf.sw_if_index)
        else:
            found = self.dump(words.path, "sw_interface_dump", sw_if_index=NONE,
                              name_filter_valid=True, name_filter=name)
            for itf in found or self.interfaces(words.path):
                if itf["interface_name"] == name:
                    return int(itf["sw_if_index"])
        raise CliError(f"{words.path}: unknown interface `{name}'")

    def name_of(self, path: str, sw_if_index: int) -> str:
        for itf in self.dump(path, "sw_interface_dump", sw_if_index=sw_if_index):
            if itf["sw_if_index"] == sw_if_index:
                return str(itf["interface_name"])
        return str(sw_if_index)

    def created(self, path: str, reply: dict[str, Any]) -> str:
        """VPP prints the name of the interface a command created."""
        return self.name_of(path, int(reply["sw_if_index"])) + "\n"


@functools.cache
def _default_definitions() -> ApiDefinitions:
    return ApiDefinitions()


def _lines(text: str) -> list[str]:
    out = []
    skipping = False
    for raw in text.splitlines():
        line = raw.strip()
        if skipping:  # inside a multi-line comment { ... }
            skipping = "}" not in line
            continue
        if not line or line.startswith("#"):
            continue
        if line.split()[0] == "comment":
            skipping = "{" in line and "}" not in line
            continue
        out.append(line)
    return out


def _is_prefix(words: list[str]) -> bool:
    return any(path[: len(words)] == tuple(words) for path in COMMANDS)


def _flag(words: Words, what: str) -> bool:
    value = words.take(what)
    if value not in ("0", "1"):
        raise words.unknown(back=1)
    return value == "1"


def _mac(words: Words, what: str) -> str:
    mac = words.take(what)
    if not re.fullmatch(r"[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}", mac):
        raise CliError(f"{words.path}: bad {what} `{mac}'")
    return mac.lower()


def _ip(words: Words, what: str) -> str:
    value = words.take(what)
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise CliError(f"{words.path}: bad {what} `{value}'") from None


def _prefix(words: Words, what: str, strict: bool = False) -> str:
    value = words.take(what)
    try:
        itf = ipaddress.ip_interface(value)
    except ValueError:
        raise CliError(f"{words.path}: bad {what} `{value}'") from None
    if "/" not in value:
        raise CliError(f"{words.path}: {what} `{value}' needs a prefix length")
    return str(itf.network) if strict else str(itf)


# -- interfaces ---------------------------------------------------------------------------


@command("set interface state")
def _set_state(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    state = w.take("up|down")
    if state not in ("up", "down"):
        raise w.unknown(back=1)
    w.done()
    cli.call(w.path, "sw_interface_set_flags", sw_if_index=index, flags=1 if state == "up" else 0)
    return ""


@command("set interface mtu")
def _set_mtu(cli: SimCli, w: Words) -> str:
    proto = w.accept(*MTU_PROTOS)
    mtu = w.number("mtu", 65535)
    index = cli.sw_if_index(w)
    w.done()
    if proto is None:  # the hardware MTU
        cli.call(w.path, "hw_interface_set_mtu", sw_if_index=index, mtu=mtu)
    else:
        per_proto = [0, 0, 0, 0]
        per_proto[MTU_PROTOS[proto]] = mtu
        cli.call(w.path, "sw_interface_set_mtu", sw_if_index=index, mtu=per_proto)
    return ""


@command("set interface mac address")
def _set_mac(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    mac = _mac(w, "mac address")
    w.done()
    cli.call(w.path, "sw_interface_set_mac_address", sw_if_index=index, mac_address=mac)
    return ""


@command("set interface tag")
def _set_tag(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    tag = w.take("tag")
    w.done()
    cli.call(w.path, "sw_interface_tag_add_del", is_add=True, sw_if_index=index, tag=tag)
    return ""


@command("clear interface tag")
def _clear_tag(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    w.done()
    cli.call(w.path, "sw_interface_tag_add_del", is_add=False, sw_if_index=index)
    return ""


@command("set interface ip address")
def _set_address(cli: SimCli, w: Words) -> str:
    is_add = not w.accept("del")
    index = cli.sw_if_index(w)
    if not is_add and w.accept("all"):
        w.done()
        cli.call(w.path, "sw_interface_add_del_address", sw_if_index=index, is_add=False,
                 del_all=True)
        return ""
    prefix = _prefix(w, "address")
    w.done()
    cli.call(w.path, "sw_interface_add_del_address", sw_if_index=index, is_add=is_add,
             prefix=prefix)
    return ""


@command("set interface unnumbered")
def _set_unnumbered(cli: SimCli, w: Words) -> str:
    if w.accept("del"):
        index = cli.sw_if_index(w)
        w.done()
        lender = next((u["ip_sw_if_index"] for u in cli.dump(w.path, "ip_unnumbered_dump",
                                                              sw_if_index=NONE)
                       if u["sw_if_index"] == index), None)
        if lender is not None:
            cli.call(w.path, "sw_interface_set_unnumbered", sw_if_index=lender,
                     unnumbered_sw_if_index=index, is_add=False)
        return ""
    index = cli.sw_if_index(w)
    if not w.accept("use"):
        raise w.unknown()
    lender = cli.sw_if_index(w)
    w.done()
    cli.call(w.path, "sw_interface_set_unnumbered", sw_if_index=lender,
             unnumbered_sw_if_index=index, is_add=True)
    return ""


@command("set interface mpls")
def _set_mpls(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    state = w.take("enable|disable")
    if state not in ("enable", "disable"):
        raise w.unknown(back=1)
    w.done()
    cli.call(w.path, "sw_interface_set_mpls_enable", sw_if_index=index, enable=state == "enable")
    return ""


@command("mpls table")
def _mpls_table(cli: SimCli, w: Words) -> str:
    verb = w.take("add|delete")
    if verb not in ("add", "delete", "del"):
        raise w.unknown(back=1)
    table = w.number("table id")
    w.done()
    cli.call(w.path, "mpls_table_add_del", mt_is_add=verb == "add",
             mt_table={"mt_table_id": table, "mt_name": ""})
    return ""


# -- sub-interfaces and loopbacks ---------------------------------------------------------


@command("create sub-interfaces")
def _create_sub(cli: SimCli, w: Words) -> str:
    parent = cli.sw_if_index(w)
    sub_id = w.number("sub-interface id")
    flags, outer, inner = _encapsulation(w, sub_id)
    w.done()
    # VPP's texts for the -1 of ethernet_sw_interface_add_del
    error = "not implemented yet" if flags & SUB_OUTER_ANY else "vlan is already in use"
    reply = cli.call(w.path, "create_subif", errors={-1: error}, sw_if_index=parent,
                     sub_id=sub_id, sub_if_flags=flags, outer_vlan_id=outer, inner_vlan_id=inner)
    return cli.created(w.path, reply)


def _encapsulation(w: Words, sub_id: int) -> tuple[int, int, int]:
    """(sub_if_flags, outer, inner) of `[dot1q|dot1ad V [inner-dot1q V] [exact-match]]`."""
    if w.peek() is None:  # "<id>" alone: dot1q <id> exact-match
        return SUB_ONE_TAG | SUB_EXACT, sub_id, 0
    if w.accept("untagged"):
        return SUB_NO_TAGS | SUB_EXACT, 0, 0
    if w.accept("default"):
        return SUB_DEFAULT, 0, 0
    tag = w.accept("dot1q", "dot1ad")
    if tag is None:
        raise w.unknown()
    flags, inner = SUB_ONE_TAG | (SUB_DOT1AD if tag == "dot1ad" else 0), 0
    outer = 0
    if w.accept("any"):
        flags |= SUB_OUTER_ANY
    else:
        outer = w.number("vlan", 4095)
    if w.accept("inner-dot1q"):
        flags = (flags & ~SUB_ONE_TAG) | SUB_TWO_TAGS
        if w.accept("any"):
            flags |= SUB_INNER_ANY
        else:
            inner = w.number("inner vlan", 4095)
    if w.accept("exact-match"):
        flags |= SUB_EXACT
    return flags, outer, inner


@command("delete sub-interface")
def _delete_sub(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    w.done()
    cli.call(w.path, "delete_subif", sw_if_index=index)
    return ""


@command("create loopback interface")
def _create_loopback(cli: SimCli, w: Words) -> str:
    mac, instance = ZERO_MAC, None
    while w.peek() is not None:
        if w.accept("mac"):
            mac = _mac(w, "mac")
        elif w.accept("instance"):
            instance = w.number("instance")
        else:
            raise w.unknown()
    reply = cli.call(w.path, "create_loopback_instance", mac_address=mac,
                     is_specified=instance is not None, user_instance=instance or 0)
    return cli.created(w.path, reply)


@command("delete loopback interface")
def _delete_loopback(cli: SimCli, w: Words) -> str:
    if not w.accept("intfc"):
        raise w.unknown()
    index = cli.sw_if_index(w)
    w.done()
    cli.call(w.path, "delete_loopback", sw_if_index=index)
    return ""


# -- bonds --------------------------------------------------------------------------------


@command("create bond")
def _create_bond(cli: SimCli, w: Words) -> str:
    args: dict[str, Any] = {"mode": 0, "lb": 0, "id": NONE}
    while w.peek() is not None:
        if w.accept("mode"):
            args["mode"] = _choice(w, BOND_MODE, "mode")
        elif w.accept("load-balance"):
            args["lb"] = _choice(w, BOND_LB, "load-balance")
        elif w.accept("id"):
            args["id"] = w.number("id")
        elif w.accept("hw-addr"):
            args.update(use_custom_mac=True, mac_address=_mac(w, "hw-addr"))
        elif w.accept("gso"):
            args["enable_gso"] = True
        elif w.accept("numa-only"):
            args["numa_only"] = True
        else:
            raise w.unknown()
    if not args["mode"]:
        raise CliError(f"{w.path}: Missing bond mode")
    return cli.created(w.path, cli.call(w.path, "bond_create2", **args))


def _choice(w: Words, choices: dict[str, int], what: str) -> int:
    word = w.take(what)
    if word not in choices:
        raise w.unknown(back=1)
    return choices[word]


@command("bond add")
def _bond_add(cli: SimCli, w: Words) -> str:
    bond = cli.sw_if_index(w, "bond interface")
    member = cli.sw_if_index(w, "member interface")
    passive = long_timeout = False
    while w.peek() is not None:
        if w.accept("passive"):
            passive = True
        elif w.accept("long-timeout"):
            long_timeout = True
        else:
            raise w.unknown()
    cli.call(w.path, "bond_add_member", sw_if_index=member, bond_sw_if_index=bond,
             is_passive=passive, is_long_timeout=long_timeout)
    return ""


@command("bond del")
def _bond_del(cli: SimCli, w: Words) -> str:
    member = cli.sw_if_index(w, "member interface")
    w.done()
    cli.call(w.path, "bond_detach_member", sw_if_index=member)
    return ""


@command("delete bond")
def _delete_bond(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    w.done()
    cli.call(w.path, "bond_delete", sw_if_index=index)
    return ""


# -- bridge domains, l2 -------------------------------------------------------------------


@command("create bridge-domain")
def _create_bd(cli: SimCli, w: Words) -> str:
    bd_id = w.number("bridge-domain id")
    args: dict[str, Any] = {"learn": True, "forward": True, "uu_flood": True, "flood": True,
                            "arp_term": False, "arp_ufwd": False, "mac_age": 0, "bd_tag": ""}
    is_add = True
    while w.peek() is not None:
        word = w.take("option")
        if word in BD_FLAGS:
            args[word.replace("-", "_")] = _flag(w, word)
        elif word == "mac-age":
            args["mac_age"] = w.number("mac-age", 255)
        elif word == "bd-tag":
            args["bd_tag"] = w.take("bd-tag")
        elif word == "del":
            is_add = False
        else:
            raise w.unknown(back=1)
    cli.call(w.path, "bridge_domain_add_del_v2", BD_ERRORS, bd_id=bd_id, is_add=is_add, **args)
    return f"bridge-domain {bd_id}\n" if is_add else ""


def _bd_id(w: Words) -> int:
    """The bridge-domain id argument, checked as l2_bd.c's setters check it."""
    word = w.peek()
    if word is None or not word.isdigit():
        raise CliError(f"{w.path}: expecting bridge-domain id but got `{w.rest()}'")
    bd_id = w.number("bridge-domain id")
    if bd_id == 0:
        raise CliError(f"{w.path}: No operations on the default bridge domain are supported")
    return bd_id


def _bd_errors(bd_id: int) -> dict[int, str]:
    return {-6: f"No such bridge domain {bd_id}",
            -121: "No operations on the default bridge domain are supported"}


@command("set bridge-domain mac-age")
def _set_bd_mac_age(cli: SimCli, w: Words) -> str:
    bd_id = _bd_id(w)
    word = w.peek()
    if word is None or not word.isdigit():
        raise CliError(f"{w.path}: expecting ageing time in minutes but got `{w.rest()}'")
    age = w.number("mac-age")
    if age > 255:
        raise CliError(f"{w.path}: mac aging time cannot be bigger than 255")
    w.done()
    cli.call(w.path, "bridge_domain_set_mac_age", _bd_errors(bd_id), bd_id=bd_id, mac_age=age)
    return ""


def _bd_flag_command(flag: int) -> Command:
    def set_flag(cli: SimCli, w: Words) -> str:
        bd_id = _bd_id(w)
        enable = not w.accept("disable")
        w.done()
        cli.call(w.path, "bridge_flags", _bd_errors(bd_id), bd_id=bd_id, is_set=enable,
                 flags=flag)
        return ""

    return set_flag


for _word, _bit in BD_FLAGS.items():
    command(f"set bridge-domain {_word.replace('arp-term', 'arp term')}")(_bd_flag_command(_bit))


@command("set interface l2 bridge")
def _set_l2_bridge(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    bd_id = w.number("bridge-domain id")
    port_type, shg = 0, 0
    while w.peek() is not None:
        if w.accept("bvi"):
            port_type = 1
        elif w.accept("uu-fwd"):
            port_type = 2
        else:
            w.accept("shg")
            shg = w.number("split-horizon group", 255)
    cli.call(w.path, "sw_interface_set_l2_bridge", rx_sw_if_index=index, bd_id=bd_id,
             port_type=port_type, shg=shg, enable=True)
    return ""


@command("set interface l2 xconnect")
def _set_l2_xconnect(cli: SimCli, w: Words) -> str:
    rx = cli.sw_if_index(w)
    tx = cli.sw_if_index(w, "tx interface")
    w.done()
    cli.call(w.path, "sw_interface_set_l2_xconnect", rx_sw_if_index=rx, tx_sw_if_index=tx,
             enable=True)
    return ""


@command("set interface l3")
def _set_l3(cli: SimCli, w: Words) -> str:
    """Leave whatever l2 mode the interface is in (bridge or xconnect)."""
    index = cli.sw_if_index(w)
    w.done()
    for bd in cli.dump(w.path, "bridge_domain_dump", bd_id=NONE, sw_if_index=NONE):
        members = {m["sw_if_index"] for m in bd.get("sw_if_details", [])}
        if index in members or bd.get("bvi_sw_if_index") == index:
            cli.call(w.path, "sw_interface_set_l2_bridge", rx_sw_if_index=index,
                     bd_id=bd["bd_id"], enable=False)
            return ""
    for xc in cli.dump(w.path, "l2_xconnect_dump"):
        if xc["rx_sw_if_index"] == index:
            cli.call(w.path, "sw_interface_set_l2_xconnect", rx_sw_if_index=index,
                     tx_sw_if_index=xc["tx_sw_if_index"], enable=False)
    return ""


@command("set interface l2 tag-rewrite")
def _set_tag_rewrite(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    args = {"vtr_op": 0, "push_dot1q": 0, "tag1": 0, "tag2": 0}
    if w.accept("pop"):
        count = w.take("1|2")
        if count not in VTR_POP:
            raise w.unknown(back=1)
        args["vtr_op"] = VTR_POP[count]
    elif w.accept("push"):
        args["push_dot1q"] = int(_choice(w, {"dot1q": 1, "dot1ad": 0}, "dot1q|dot1ad"))
        args["tag1"] = w.number("vlan", 4095)
        args["vtr_op"] = 1
        if w.peek() is not None:
            args.update(tag2=w.number("inner vlan", 4095), vtr_op=2)
    elif not w.accept("disable"):
        raise w.unknown()
    w.done()
    cli.call(w.path, "l2_interface_vlan_tag_rewrite", sw_if_index=index, **args)
    return ""


# -- tunnels, taps, linux-cp --------------------------------------------------------------


@command("create vxlan tunnel")
def _create_vxlan(cli: SimCli, w: Words) -> str:
    args: dict[str, Any] = {"instance": NONE, "mcast_sw_if_index": NONE, "encap_vrf_id": 0,
                            "decap_next_index": NONE, "src_port": 0, "dst_port": 0}
    is_add, have = True, set()
    while w.peek() is not None:
        word = w.take("option")
        if word in ("src", "dst"):
            args[f"{word}_address"] = _ip(w, word)
        elif word in ("vni", "instance", "encap-vrf-id"):
            args[word.replace("-", "_")] = w.number(word)
        elif word in ("src_port", "dst_port"):
            args[word] = w.number(word, 65535)
        elif word == "decap-next":
            next_node = w.take("decap-next")
            args["decap_next_index"] = NONE if next_node == "l2" else int(next_node)
        elif word == "del":
            is_add = False
        else:
            raise w.unknown(back=1)
        have.add(word)
    for needed in ("src", "dst", "vni"):
        if needed not in have:
            raise CliError(f"{w.path}: {needed} address not specified"
                           if needed != "vni" else f"{w.path}: vni not specified")
    reply = cli.call(w.path, "vxlan_add_del_tunnel_v3", is_add=is_add, **args)
    return cli.created(w.path, reply) if is_add else ""


@command("create tap")
def _create_tap(cli: SimCli, w: Words) -> str:
    args: dict[str, Any] = {"id": NONE, "use_random_mac": True, "tap_flags": 0}
    strings = {"host-if-name": "host_if_name", "host-ns": "host_namespace",
               "host-bridge": "host_bridge"}
    numbers = {"rx-ring-size": "rx_ring_sz", "tx-ring-size": "tx_ring_sz",
               "num-rx-queues": "num_rx_queues", "num-tx-queues": "num_tx_queues"}
    while w.peek() is not None:
        word = w.take("option")
        if word == "id":
            args["id"] = w.number("id")
        elif word in strings:
            args[strings[word]] = w.take(word)
            args[strings[word] + "_set"] = True
        elif word in numbers:
            args[numbers[word]] = w.number(word, 65535)
        elif word == "host-mtu-size":
            args.update(host_mtu_set=True, host_mtu_size=w.number(word))
        elif word == "host-mac-addr":
            args.update(host_mac_addr_set=True, host_mac_addr=_mac(w, word))
        elif word == "hw-addr":
            args.update(use_random_mac=False, mac_address=_mac(w, word))
        elif word in ("host-ip4-addr", "host-ip6-addr"):
            family = word[5:8]  # ip4 or ip6
            args[f"host_{family}_prefix_set"] = True
            args[f"host_{family}_prefix"] = _prefix(w, word)
        elif word in ("host-ip4-gw", "host-ip6-gw"):
            family = word[5:8]  # ip4 or ip6
            args.update({f"host_{family}_gw_set": True, f"host_{family}_gw": _ip(w, word)})
        elif word in TAP_FLAGS:
            args["tap_flags"] |= TAP_FLAGS[word]
        else:
            raise w.unknown(back=1)
    return cli.created(w.path, cli.call(w.path, "tap_create_v3", **args))


@command("delete tap")
def _delete_tap(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    w.done()
    cli.call(w.path, "tap_delete_v2", sw_if_index=index)
    return ""


@command("lcp create")
def _lcp_create(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    args: dict[str, Any] = {"host_if_type": 0, "netns": ""}
    while w.peek() is not None:
        if w.accept("host-if"):
            args["host_if_name"] = w.take("host-if")
        elif w.accept("netns"):
            args["netns"] = w.take("netns")
        elif w.accept("tun"):
            args["host_if_type"] = 1
        elif w.accept("tap"):
            args["host_if_type"] = 0
        else:
            raise w.unknown()
    if "host_if_name" not in args:
        raise CliError(f"{w.path}: host interface name required")
    cli.call(w.path, "lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=index, **args)
    return ""


@command("lcp delete")
def _lcp_delete(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    w.done()
    cli.call(w.path, "lcp_itf_pair_add_del_v3", is_add=False, sw_if_index=index)
    return ""


def _lcp_state(cli: SimCli, w: Words) -> Any:
    """The model's state when it has linux-cp (these commands have no API)."""
    state = getattr(cli.handler, "state", None)
    if state is None or "lcp" not in getattr(state, "plugins", {}):
        raise CliError(f"unknown input `{w.path} {w.rest()}'")
    return state


def _on_off(w: Words) -> bool | None:
    """VPP's [on|enable|off|disable] (the last word wins, none: no change)."""
    value = None
    while w.peek() is not None:
        if w.accept("on", "enable"):
            value = True
        elif w.accept("off", "disable"):
            value = False
        else:
            raise w.unknown()
    return value


def _lcp_switch(setter: str) -> Command:
    """`lcp <setting> [on|off]`: the linux-cp plugin's setter of that name."""

    def run(cli: SimCli, w: Words) -> str:
        from vppcfg.sim.plugins import lcp

        state = _lcp_state(cli, w)
        value = _on_off(w)
        if value is not None:
            getattr(lcp, setter)(state, value)
        return ""

    return run


# lcp-sync on syncs every pair at once (lcp_set_sync), as VPP does
command("lcp lcp-sync")(_lcp_switch("set_sync"))
command("lcp lcp-sync-unnumbered")(_lcp_switch("set_sync_unnumbered"))
command("lcp lcp-auto-subint")(_lcp_switch("set_auto_subint"))


@command("lcp default")
def _lcp_default(cli: SimCli, w: Words) -> str:
    """VPP takes any name here (the API checks it exists; this does not) and
    prints what it set; `clear netns` prints (nil)."""
    from vppcfg.sim.plugins import lcp

    state = _lcp_state(cli, w)
    netns = None
    while w.peek() is not None:
        if w.peek() == "netns" and w.pos + 1 < len(w.words):
            w.take("netns")
            netns = w.take("netns")
        elif w.words[w.pos:w.pos + 2] == ["clear", "netns"]:
            w.pos += 2
            netns = None
        else:
            raise w.unknown()
    lcp.pairs(state).default_ns = netns or ""
    return f"lcp set default netns '{netns if netns else '(nil)'}'\n"


@command("show lcp")
def _show_lcp(cli: SimCli, w: Words) -> str:
    from vppcfg.sim.plugins import lcp

    state = _lcp_state(cli, w)
    phy = NONE
    while w.peek() is not None:
        if not w.accept("phy"):
            raise CliError(f"{w.path}: unknown input '{w.rest()}'")
        phy = cli.sw_if_index(w)
    return lcp.show(state, phy)


# -- sflow --------------------------------------------------------------------------------


@command("sflow enable-disable")
def _sflow_enable(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    enable = not w.accept("disable")
    w.done()
    # VPP's CLI hands the sw_if_index to the same function the API field feeds.
    cli.call(w.path, "sflow_enable_disable", enable_disable=enable, hw_if_index=index)
    return ""


command("sflow enable")(_sflow_enable)


def _sflow_setter(message: str, field: str, limit: int = NONE) -> Command:
    def set_value(cli: SimCli, w: Words) -> str:
        value = w.number(field, limit)
        w.done()
        cli.call(w.path, message, **{field: value})
        return ""

    return set_value


command("sflow sampling-rate")(_sflow_setter("sflow_sampling_rate_set", "sampling_N"))
command("sflow polling-interval")(_sflow_setter("sflow_polling_interval_set", "polling_S"))
command("sflow header-bytes")(_sflow_setter("sflow_header_bytes_set", "header_B"))


@command("sflow direction")
def _sflow_direction(cli: SimCli, w: Words) -> str:
    direction = _choice(w, SFLOW_DIRECTIONS, "rx|tx|both")
    w.done()
    cli.call(w.path, "sflow_direction_set", sampling_D=direction)
    return ""


# -- acl plugin ---------------------------------------------------------------------------


@command("set acl-plugin acl")
def _set_acl(cli: SimCli, w: Words) -> str:
    """acl.c's parser: options in any order, `,` starts the next rule; the first
    word it does not know ends the parsing, silently (the rest, a tag too, is
    ignored), and an ACL without a tag is tagged `cli`."""
    words = Words(w.path, w.rest().replace(",", " , ").split())
    index, tag = NONE, "cli"
    rules: list[dict[str, Any]] = []
    while words.peek() is not None:
        word = words.take("option")
        if word == "index" and _int(words.peek()) is not None:
            index = int(words.take("index"))
        elif word == "tag" and words.peek() is not None:
            tag = words.take("tag")
        elif word == ",":
            rules.append(_acl_rule_defaults())
        elif not _acl_option(word, words, rules):
            break
    try:
        reply = cli.call(w.path, "acl_add_replace", acl_index=index, tag=tag, count=len(rules),
                         r=rules)
    except CliError:  # acl.c says no more than this
        raise CliError(f"{w.path}: failed") from None
    return f"ACL index:{reply.get('acl_index', index)}\n"


def _acl_rule_defaults() -> dict[str, Any]:
    return {"is_permit": 1, "src_prefix": "0.0.0.0/0", "dst_prefix": "0.0.0.0/0",
            "srcport_or_icmptype_last": 65535, "dstport_or_icmpcode_last": 65535}


def _int(word: str | None) -> int | None:
    return int(word) if word is not None and word.isdigit() else None


def _acl_option(word: str, w: Words, rules: list[dict[str, Any]]) -> bool:
    """Apply one option to the current rule; False when acl.c would stop here."""
    if not rules:
        rules.append(_acl_rule_defaults())
    rule = rules[-1]
    if word in ACL_ACTION:
        rule["is_permit"] = ACL_ACTION[word]
    elif word in ("action", "proto") and _int(w.peek()) is not None:
        rule["is_permit" if word == "action" else "proto"] = int(w.take(word)) & 0xFF
    elif word in ("src", "dst") and w.peek() is not None:
        try:
            rule[f"{word}_prefix"] = str(ipaddress.ip_network(w.peek(), strict=False))
        except ValueError:
            return False
        w.take(word)
    elif word in ("sport", "dport") and w.peek() is not None:
        low, dash, high = w.peek().partition("-")
        if _int(low) is None or (dash and _int(high) is None):
            return False
        w.take(word)
        key = "srcport_or_icmptype" if word == "sport" else "dstport_or_icmpcode"
        rule[f"{key}_first"], rule[f"{key}_last"] = int(low), int(high or low)
    elif word == "tcpflags" and _int(w.peek()) is not None:
        value = int(w.take("tcp flags"))
        w.accept("mask")
        if _int(w.peek()) is None:
            return False
        rule["tcp_flags_value"], rule["tcp_flags_mask"] = value, int(w.take("mask"))
    else:
        return False
    return True


@command("delete acl-plugin acl")
def _delete_acl(cli: SimCli, w: Words) -> str:
    if not w.accept("index"):
        raise w.unknown()
    index = w.number("index")
    w.done()
    cli.call(w.path, "acl_del", acl_index=index)
    return ""


@command("set acl-plugin interface")
def _set_acl_interface(cli: SimCli, w: Words) -> str:
    index = cli.sw_if_index(w)
    direction = _choice(w, {"input": 1, "output": 0}, "input|output")
    if not w.accept("acl"):
        raise w.unknown()
    acl = w.number("acl index")
    is_add = not w.accept("del")
    w.done()
    cli.call(w.path, "acl_interface_add_del", is_add=is_add, is_input=bool(direction),
             sw_if_index=index, acl_index=acl)
    return ""


# -- show ---------------------------------------------------------------------------------


@command("show version")
def _show_version(cli: SimCli, w: Words) -> str:
    reply = cli.call(w.path, "show_version")
    return f"vpp v{reply.get('version', '')} built by vppcfg-sim\n"


@command("show interface")
def _show_interface(cli: SimCli, w: Words) -> str:
    rows = [f"{'Name':<32}{'Idx':>6}  {'State':<6}{'MTU (L3/IP4/IP6/MPLS)':>24}"]
    for itf in sorted(cli.interfaces(w.path), key=lambda i: i["sw_if_index"]):
        state = "up" if itf["flags"] & 1 else "down"
        mtu = "/".join(str(m) for m in itf["mtu"])
        rows.append(f"{itf['interface_name']:<32}{itf['sw_if_index']:>6}  {state:<6}{mtu:>24}")
    return "\n".join(rows) + "\n"


def _center(text: object, width: int) -> str:
    """vppinfra's "%=Ns": centred, the odd space going to the left."""
    text = str(text)
    pad = max(width - len(text), 0)
    return " " * ((pad + 1) // 2) + text + " " * (pad // 2)


def _hardware(cli: SimCli, path: str) -> list[Any]:
    """The model's hardware interfaces (sub-interfaces have none of their own)."""
    state = getattr(cli.handler, "state", None)
    if state is None or not hasattr(state, "hw_to_sw"):
        raise CliError(f"{path}: not supported by this simulator")
    return [state.interfaces[sw] for sw in state.hw_to_sw.values() if sw in state.interfaces]


def _bond_roles(cli: SimCli) -> tuple[set[int], dict[int, list[int]]]:
    """Bond members (sw_if_index) and each bond's members' hw_if_index."""
    data = cli.handler.state.plugins.get("bond")  # type: ignore[attr-defined]
    if data is None:
        return set(), {}
    hw = {sw: itf.hw_if_index for sw, itf in cli.handler.state.interfaces.items()}  # type: ignore[attr-defined]
    members = {sw for sw in data.member_of}
    slaves = {sw: sorted(hw[m.sw_if_index] for m in bond.members if m.sw_if_index in hw)
              for sw, bond in data.by_sw.items()}
    return members, slaves


@command("show hardware-interfaces")
def _show_hardware(cli: SimCli, w: Words) -> str:
    """format_vnet_hw_interface: name, hw_if_index, link ("slave" for a bond
    member), the device (a bond lists its members' hw indexes), link speed."""
    everything = _hardware(cli, w.path)
    by_name = {itf.name: itf for itf in everything}
    by_hw = {itf.hw_if_index: itf for itf in everything}
    chosen: list[Any] = []
    while w.peek() is not None:
        word = w.take("option")
        if word in ("brief", "verbose", "detail", "bond"):
            continue
        if word in by_name:
            chosen.append(by_name[word])
        elif word.isdigit() and int(word) in by_hw:
            chosen.append(by_hw[int(word)])
        else:
            raise w.unknown(back=1)
    state = cli.handler.state  # type: ignore[attr-defined]
    members, slaves = _bond_roles(cli)
    rows = [_center("Name", 32) + _center("Idx", 6) + _center("Link", 8) + "Hardware"]
    for itf in chosen or sorted(everything, key=lambda i: i.name):
        link = "up" if state.is_link_up(itf) else "down"
        link = "slave" if itf.sw_if_index in members else link
        device = itf.name
        if itf.sw_if_index in slaves:
            device = "Slave-Idx:" + "".join(f" {hw}" for hw in slaves[itf.sw_if_index])
        rows.append(f"{itf.name:<32}{_center(itf.hw_if_index, 6)}{_center(link, 8)}{device}")
        rows.append("  Link speed: unknown")
    return "\n".join(rows) + "\n"


@command("show hardware")
def _show_hardware_short(cli: SimCli, w: Words) -> str:
    return _show_hardware(cli, Words("show hardware-interfaces", w.words))
