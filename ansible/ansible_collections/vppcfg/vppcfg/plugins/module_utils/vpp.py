# Copyright: vppcfg developers
# Apache License 2.0 (see LICENSE at the root of the vppcfg repository)
"""Helpers shared by the vppcfg modules: the VPP options and the vppcfg import."""

from __future__ import annotations

from importlib.util import find_spec

# The modules import vppcfg only when they run; this says whether they can.
VPPCFG_MISSING = find_spec("vppcfg") is None


def vpp_argument_spec():
    """The options of the `vpp` doc fragment."""
    return {
        "api_socket": {"type": "path", "default": "/run/vpp/api.sock"},
        "json_dir": {"type": "path", "default": "/usr/share/vpp/api"},
        "timeout": {"type": "float", "default": 5.0},
    }


def require_vppcfg(module):
    """Fail the task, with install advice, when vppcfg is missing on the router."""
    if VPPCFG_MISSING:
        from ansible.module_utils.basic import missing_required_lib

        module.fail_json(msg=missing_required_lib("vppcfg"))


def vpp_cli_options(params):
    """The same options for the vppcfg command line."""
    return ["--vpp-api-socket", params["api_socket"], "--vpp-json-dir", params["json_dir"]]


def open_vpp(params):
    """A VppConnection to the router's VPP (use as a context manager)."""
    from vppcfg.vpp import VppConnection

    return VppConnection.open(params["api_socket"], params["json_dir"], params["timeout"])
