"""The VPP binary-API backend: connect, dump the live dataplane, execute.

    with VppConnection.open(socket, json_dir) as conn:
        live = conn.dump()          # a vppcfg.model.Dataplane
        ctx = conn.context()        # a vppcfg.ops.VppContext for the executor
"""

from vppcfg.vpp.connection import VppConnection, api_files
from vppcfg.vpp.context import ApiContext, is_mutating
from vppcfg.vpp.errors import (
    VppApiError,
    VppDefinitionsMissing,
    VppError,
    VppMessageMissing,
    VppNotRunning,
    VppPermissionDenied,
    VppTimeout,
    retval_name,
)

__all__ = [
    "ApiContext",
    "VppApiError",
    "VppConnection",
    "VppDefinitionsMissing",
    "VppError",
    "VppMessageMissing",
    "VppNotRunning",
    "VppPermissionDenied",
    "VppTimeout",
    "api_files",
    "is_mutating",
    "retval_name",
]
