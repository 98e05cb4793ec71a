# Copyright: vppcfg developers
# Apache License 2.0 (see LICENSE at the root of the vppcfg repository)
"""Options shared by the modules that talk to VPP."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  api_socket:
    description:
      - The VPP binary API socket on the router.
    type: path
    default: /run/vpp/api.sock
  json_dir:
    description:
      - The VPP API definitions (C(*.api.json) files in C(core/) and C(plugins/) below it).
    type: path
    default: /usr/share/vpp/api
  timeout:
    description:
      - Seconds to wait for each reply of VPP.
    type: float
    default: 5.0
requirements:
  - vppcfg installed for the Python interpreter that runs the module on the router
    (the Debian package or C(pip install vppcfg)).
"""
