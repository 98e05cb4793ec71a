"""Unix sockets the simulator listens on (API, stats segment, virtual wire)."""

from __future__ import annotations

import os
import socket
import stat
import threading
from collections.abc import Callable


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


def accept_each(listener: socket.socket, stopping: threading.Event,
                take: Callable[[socket.socket], None]) -> None:
    """Hand every new connection (blocking again) to `take` until `stopping`
    is set or the listener is closed; the listener's timeout lets the loop
    notice `stopping`."""
    while not stopping.is_set():
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        except OSError:
            break
        conn.settimeout(None)
        take(conn)
