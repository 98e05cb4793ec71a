#!/usr/bin/python
# Copyright: vppcfg developers
# Apache License 2.0 (see LICENSE at the root of the vppcfg repository)
"""The vppcfg_facts module: the running VPP dataplane as facts."""

from __future__ import annotations

DOCUMENTATION = r"""
module: vppcfg_facts
short_description: Read the running VPP dataplane of a router as facts
version_added: 0.1.0
description:
  - Reads the running VPP through its binary API, as C(vppcfg dump) does, and returns it in
    the vppcfg configuration language, so that a play can compare, assert or template with it.
  - Objects that vppcfg did not create (foreign) are left out of the configuration; their keys
    are listed apart.
extends_documentation_fragment:
  - vppcfg.vppcfg.vpp
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
  platform:
    platforms: posix
author:
  - vppcfg developers (@vppcfg)
"""

EXAMPLES = r"""
- name: Read the dataplane
  vppcfg.vppcfg.vppcfg_facts:

- name: Every router has its loopback
  ansible.builtin.assert:
    that: "'loop0' in ansible_facts.vppcfg_config.loopbacks | default({})"
"""

RETURN = r"""
ansible_facts:
  description: The facts.
  returned: always
  type: complex
  contains:
    vppcfg_config:
      description: The running dataplane in the vppcfg configuration language (as C(vppcfg dump
        --format json) prints it), without the foreign objects.
      type: dict
      sample: {"loopbacks": {"loop0": {"addresses": ["192.0.2.1/32"]}}}
    vppcfg_foreign:
      description: The objects in VPP that vppcfg did not create, as C(collection/name) keys.
      type: list
      elements: str
      sample: ["interfaces/loop9"]
"""

import traceback

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.vppcfg.vppcfg.plugins.module_utils.vpp import (
    open_vpp,
    require_vppcfg,
    vpp_argument_spec,
)


def read_facts(module):
    from vppcfg import config
    from vppcfg.commands.dump import split_foreign
    from vppcfg.vpp import VppError

    try:
        with open_vpp(module.params) as conn:
            live = conn.dump()
    except VppError as err:
        module.fail_json(msg=f"cannot read VPP: {err}")
    owned = split_foreign(live)[0]
    return {"vppcfg_config": config.to_dict(owned), "vppcfg_foreign": sorted(live.foreign)}


def main():
    module = AnsibleModule(argument_spec=vpp_argument_spec(), supports_check_mode=True)
    require_vppcfg(module)
    try:
        facts = read_facts(module)
    except Exception as err:  # never a bare traceback: say what broke
        module.fail_json(msg=f"vppcfg_facts: unexpected error: {err}",
                         exception=traceback.format_exc())
    module.exit_json(changed=False, ansible_facts=facts)


if __name__ == "__main__":
    main()
