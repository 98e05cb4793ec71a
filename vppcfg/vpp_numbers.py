"""VPP's numbers, written once: what the binary API means by ~0, its flag bits,
its reply codes, and the values vppcfg writes on what it creates.

The object types (vppcfg.objects), the backend (vppcfg.vpp) and the simulator
(vppcfg.sim) all import them from here. Sources: vnet/interface_types.api
(if_status_flags, sub_if_flags), vnet/api_errno.h (retvals), VPP 26.06.
Nothing here imports anything: the module is safe everywhere.
"""

from __future__ import annotations

NONE_INDEX = 0xFFFFFFFF  # ~0: "no interface", "every interface", "a new ACL"
ZERO_MAC = "00:00:00:00:00:00"  # "no MAC given": VPP chooses one
OWNER_TAG = "vppcfg"  # the interface/ACL/bridge tag marking what vppcfg created

# if_status_flags: sw_interface_dump `flags`, sw_interface_set_flags
IF_ADMIN_UP = 1
IF_LINK_UP = 2

# sub_if_flags: create_subif, sw_interface_details.sub_if_flags
SUB_NO_TAGS = 1
SUB_ONE_TAG = 2
SUB_TWO_TAGS = 4
SUB_DOT1AD = 8
SUB_EXACT_MATCH = 16
SUB_DEFAULT = 32
SUB_OUTER_ANY = 64
SUB_INNER_ANY = 128

# Reply codes (VNET_API_ERROR_*). VPP sends only the number.
OK = 0
UNSPECIFIED = -1
INVALID_SW_IF_INDEX = -2
NO_SUCH_FIB = -3
NO_SUCH_ENTRY = -6
INVALID_VALUE = -7
UNIMPLEMENTED = -9
INVALID_SW_IF_INDEX_2 = -10
SYSCALL_ERROR_1 = -11
SYSCALL_ERROR_2 = -12
SYSCALL_ERROR_3 = -13
FEATURE_DISABLED = -30
INVALID_REGISTRATION = -31
INVALID_VLAN = -55
VLAN_ALREADY_EXISTS = -56
ADDRESS_NOT_FOUND_FOR_INTERFACE = -60
INVALID_INTERFACE = -71
INVALID_VLAN_TAG_COUNT = -72
INVALID_ARGUMENT = -73
TUNNEL_EXIST = -75
IF_ALREADY_EXISTS = -79
VALUE_EXIST = -81
SAME_SRC_DST = -82
INVALID_SUB_SW_IF_INDEX = -98
ADDRESS_IN_USE = -105
ADDRESS_FOUND_FOR_INTERFACE = -114
BD_ALREADY_EXISTS = -119
BD_IN_USE = -120
BD_NOT_MODIFIABLE = -121
BD_ID_EXCEED_MAX = -122
UNSUPPORTED = -126
IP6_ADDRESS_IN_USE = -127  # not in VPP's table: what ip6 answers for an address in use
ACL_IN_USE_INBOUND = -142
ACL_IN_USE_OUTBOUND = -143
INIT_FAILED = -144
NETLINK_ERROR = -145
INSTANCE_IN_USE = -147
BD_ALREADY_HAS_BVI = -152
EAGAIN = -165  # a cursor "get" answers this when more pages follow

RETVAL_NAMES: dict[int, str] = {
    value: "ADDRESS_IN_USE (IPv6)" if name == "IP6_ADDRESS_IN_USE" else name
    for name, value in sorted(globals().items())
    if name.isupper() and isinstance(value, int) and value < 0
}

# API enums, by the word VPP's CLI uses for each value
BOND_MODE = {"round-robin": 1, "active-backup": 2, "xor": 3, "broadcast": 4, "lacp": 5}
BOND_LB = {"l2": 0, "l34": 1, "l23": 2, "round-robin": 3, "broadcast": 4, "active-backup": 5}
ACL_ACTION = {"deny": 0, "permit": 1, "permit+reflect": 2}
