"""The seam between the simulator's wire server and its behaviour model.

The wire side (vppcfg.sim.server) decodes each request with vpp_papi's
serializer and hands the behaviour model (vppcfg.sim.dataplane) the message
name and its arguments in *plain form* (the form of the reference traces):
IP addresses, prefixes and MACs as strings ("10.0.0.1/24",
"02:fe:00:00:00:01"), enums and flags as ints, booleans as bools, strings as
str, byte arrays as bytes. ``context``, ``client_index`` and ``_vl_msg_id``
are stripped. The model answers with a Response in the same plain form; the
wire side encodes it (filling in ``context``) and sends it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class Response:
    # Fields of the reply message; None for a plain dump (details only).
    reply: dict[str, Any] | None = None
    # Detail messages, in order, sent before the reply (or alone, for dumps).
    details: list[dict[str, Any]] = field(default_factory=list)
    # Override the message names when VPP does (e.g. lcp_itf_pair_get_v2 with
    # sw_if_index ~0 answers with lcp_itf_pair_get_reply). By default:
    # "<request>_reply" and "<request minus _dump/_get>_details".
    reply_name: str | None = None
    details_name: str | None = None


class Handler(Protocol):
    def handle(self, message: str, args: dict[str, Any]) -> Response:
        """Answer one request. Unknown messages raise KeyError."""
        ...
