"""Unix sockets the simulator listens on (API, stats segment, virtual wire)."""

from __future__ import annotations

import os
import socket
import stat


def remove_stale_socket(path: str, sock_type: int = socket.SOCK_STREAM,
                        what: str = "server") -> None:
    """Remove a socket file a dead server left; refuse to take over a live one or to
    delete anything that is not a socket."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise FileExistsError(f"{path}: exists and is not a socket")
    probe = socket.socket(socket.AF_UNIX, sock_type)
    try:
        probe.connect(path)
    except OSError:
        os.unlink(path)
        return
    finally:
        probe.close()
    raise FileExistsError(f"{path}: another {what} is listening there")
