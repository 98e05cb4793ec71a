"""Which of VPP's sockets a path is, for the message when a program is
pointed at the wrong one (before: "[Errno 91] Protocol wrong type for socket").

VPP's API socket and vppcfg-sim's wire socket are stream sockets; the stats
socket is a packet (SOCK_SEQPACKET) socket. Connecting with the wrong type
fails with EPROTOTYPE, which is enough to name the one it is.
"""

from __future__ import annotations

import errno

# kind -> (what it is called, where it usually is)
SOCKETS = {
    "api": ("VPP's API socket", "VPP's default: /run/vpp/api.sock"),
    "stats": ("VPP's stats socket", "VPP's default: /run/vpp/stats.sock"),
    "wire": ("vppcfg-sim's wire socket", "vppcfg-sim --wire-socket"),
}
PACKET = {"stats"}  # the SOCK_SEQPACKET ones


def is_wrong_type(err: BaseException) -> bool:
    return isinstance(err, OSError) and err.errno == errno.EPROTOTYPE


def wrong_socket(path: str, wanted: str) -> str:
    """The one line for a connect to `path` that failed with EPROTOTYPE."""
    name, where = SOCKETS[wanted]
    if wanted in PACKET:
        it = "a stream socket: VPP's API socket (or vppcfg-sim's wire socket)"
    else:
        it = "a packet socket: VPP's stats socket"
    return f"{path} is {it}, not {name}; give {name} ({where})"
