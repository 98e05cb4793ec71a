#!/usr/bin/python
# Copyright: vppcfg developers
# Apache License 2.0 (see LICENSE at the root of the vppcfg repository)
"""The vppcfg module: plan or apply a vppcfg config on the router it runs on."""

from __future__ import annotations

DOCUMENTATION = r"""
module: vppcfg
short_description: Make the VPP dataplane of a router match a vppcfg configuration
version_added: 0.1.0
description:
  - Runs on the router. With the simulator, or when VPP runs on the controller, use a local
    connection and point O(api_socket) at the router's API socket.
  - Validates the configuration first; an invalid one fails the task and touches nothing.
    Its warnings (likely mistakes that VPP accepts, and the states of O(allow)) are shown
    as task warnings and returned in RV(config_warnings); with O(strict) they fail the task.
  - Plans the change from the running VPP to the configuration. In check mode that is all,
    and the task is C(changed) when the plan is not empty. In diff mode the planned VPP CLI
    is shown.
  - Otherwise applies the plan through the VPP binary API under vppcfg's apply lock, checks
    every reply, verifies that VPP then matches, and rolls back to the state before on any
    failure. A failed task returns the apply's report (what failed, what was undone).
  - With O(confirm) the change is commit-confirmed. It undoes itself after that many seconds
    unless a later task with O(state=confirmed) keeps it, typically after the play has
    checked that the router is still reachable.
options:
  config:
    description:
      - The configuration text in the vppcfg language (YAML), for example rendered with
        C(lookup('ansible.builtin.template', 'vppcfg.yaml.j2')).
      - Exactly one of O(config) and O(src) is required with O(state=present).
    type: str
  src:
    description:
      - Path of a configuration file on the router.
    type: path
  state:
    description:
      - V(present) plans and applies the configuration.
      - V(confirmed) keeps the change of an earlier apply with O(confirm), cancelling its
        rollback. It fails when no apply is waiting for confirmation (for example because
        its timer already rolled it back), so run it only where the apply changed something.
    type: str
    choices: [present, confirmed]
    default: present
  confirm:
    description:
      - Commit-confirmed. Roll back after this many seconds unless a task with
        O(state=confirmed) runs first. Nothing is armed when there was nothing to change.
    type: float
  lock_file:
    description:
      - The lock held while applying; a second apply fails at once.
    type: path
    default: /run/vppcfg/apply.lock
  state_dir:
    description:
      - Where the commit-confirmed state and the last rollback report are kept.
    type: path
    default: /run/vppcfg
  allow:
    description:
      - Language rules to accept as warnings instead of refusing the configuration, as
        C(vppcfg apply --allow RULE) (C(vppcfg check --list-rules) lists them). A file can
        also allow rules itself, in the C(allow) list of its C(vppcfg) section.
    type: list
    elements: str
    default: []
  strict:
    description:
      - Fail the task, changing nothing, when the configuration has warnings.
    type: bool
    default: false
extends_documentation_fragment:
  - vppcfg.vppcfg.vpp
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details: The diff is the planned VPP CLI, in the order it would run.
  platform:
    platforms: posix
author:
  - vppcfg developers (@vppcfg)
"""

EXAMPLES = r"""
- name: Plan (check mode) or apply the router's config, rendered from host vars
  vppcfg.vppcfg.vppcfg:
    config: "{{ lookup('ansible.builtin.template', 'vppcfg.yaml.j2') }}"
    confirm: 120
  register: applied

- name: The router still answers
  ansible.builtin.wait_for_connection:
    timeout: 30

- name: Keep the change
  vppcfg.vppcfg.vppcfg:
    state: confirmed
  when: applied is changed

- name: Apply a file already on the router, with the simulator's socket
  vppcfg.vppcfg.vppcfg:
    src: /etc/vpp/vppcfg.yaml
    api_socket: /tmp/vpp.sock
    json_dir: /usr/share/vpp/api
"""

RETURN = r"""
plan:
  description: The planned change as VPP CLI lines, in order (empty when VPP already matches).
  returned: with O(state=present), when the configuration is valid and VPP was read
  type: list
  elements: str
  sample: ["create loopback interface instance 0", "set interface state loop0 up"]
summary:
  description: How many objects the plan creates, changes and deletes.
  returned: with O(state=present), when the configuration is valid and VPP was read
  type: dict
  sample: {"create": 2, "update": 0, "delete": 1}
report:
  description: The report of vppcfg apply or confirm. After a failed apply it says what failed,
    what was undone and whether VPP is back to its state before.
  returned: when an apply or a confirm ran
  type: str
  sample: "applied 4 change(s); VPP matches the config (0.02s)"
config_warnings:
  description: The configuration's warnings, one line each with file, line, column, the path
    of the object and the message (the same lines are shown as task warnings).
  returned: when the configuration was read
  type: list
  elements: str
problems:
  description: Why the configuration is invalid, one line each with file, line, column, the
    path of the object and the message.
  returned: failure, when the configuration is invalid
  type: list
  elements: str
apply:
  description: The result of C(vppcfg apply --format json) (its schema is
    schema/apply-result.schema.json), with the operations planned, made and undone, the
    rollback, the confirm timer and errors; C(changed) comes from it.
  returned: when an apply ran
  type: dict
  sample: {"version": 1, "ok": true, "changed": true, "executed": [], "rollback": null}
rc:
  description: The exit code of the vppcfg apply or confirm.
  returned: when an apply or a confirm ran
  type: int
  sample: 0
"""

import contextlib
import io
import json
import os
import tempfile
import traceback

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.vppcfg.vppcfg.plugins.module_utils.vpp import (
    open_vpp,
    require_vppcfg,
    vpp_argument_spec,
    vpp_cli_options,
)


def load_config(module):
    """(the checked config as a model, its warnings as lines); an invalid one
    fails the task, and so do warnings with strict."""
    from vppcfg import config
    from vppcfg.config import verdicts

    params = module.params
    unknown = [rule for rule in params["allow"] if rule not in verdicts.RULES]
    if unknown:  # before any work, as `vppcfg --allow` refuses it while parsing options
        module.fail_json(msg=f"allow: no rule {', '.join(map(repr, unknown))}; known rules: "
                             f"{', '.join(sorted(verdicts.RULES))}; nothing was changed")
    try:
        if params["src"] is not None:
            desired, found = config.check_file(params["src"], params["allow"])
        else:
            desired, found = config.check_text(params["config"], "config", params["allow"])
    except config.ConfigError as err:
        problems = [str(p) for p in err.problems]
        where = params["src"] or "the config"
        module.fail_json(msg=f"{where} is invalid ({len(problems)} problem(s)); nothing was "
                             f"changed: {'; '.join(problems[:3])}", problems=problems)
    warnings = [str(w) for w in found]
    for line in warnings:
        module.warn(line)
    if warnings and params["strict"]:
        module.fail_json(msg=f"strict: {len(warnings)} warning(s) refuse the config; nothing "
                             "was changed", problems=warnings, config_warnings=warnings)
    return desired, found


def make_plan(module, desired):
    """(CLI lines, summary counts) from the running VPP to `desired`."""
    from vppcfg.objects import RenderError, render_cli
    from vppcfg.objects.acl import acl_indexes
    from vppcfg.planner import PlanError, plan, summary
    from vppcfg.vpp import VppError

    try:
        with open_vpp(module.params) as conn:
            ops = plan(desired, conn.dump())
            text = render_cli(ops, acl_indexes(conn))
    except (VppError, PlanError, RenderError) as err:
        module.fail_json(msg=f"cannot plan: {err}")
    return text.splitlines(), summary(ops)


def run_cli(argv, json_out=False):
    """Run a vppcfg command in this process: (exit code, its output); with
    json_out, (exit code, its stdout as JSON or None, its stderr)."""
    from vppcfg.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err if json_out else out):
        try:
            code = main(argv)
        except SystemExit as done:  # argparse refusing an option value
            code = done.code if isinstance(done.code, int) else 2
    if not json_out:
        return code, out.getvalue().strip()
    try:
        doc = json.loads(out.getvalue())
    except ValueError:
        doc = None
    return code, doc, err.getvalue().strip()


def apply_args(params, config_path):
    argv = ["apply", "-c", config_path, "--format", "json", *vpp_cli_options(params),
            "--lock-file", params["lock_file"], "--state-dir", params["state_dir"],
            "--timeout", str(params["timeout"])]
    if params["confirm"]:
        argv += ["--confirm", str(params["confirm"])]
    for rule in params["allow"]:
        argv += ["--allow", rule]
    return argv


def apply(module, result):
    """Apply through `vppcfg apply --format json` (lock, verify, rollback, confirm
    timer); its result document is returned as `apply`."""
    params = module.params
    path, temporary = params["src"], None
    if path is None:
        fd, temporary = tempfile.mkstemp(prefix="vppcfg-", suffix=".yaml")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(params["config"])
        path = temporary
    try:
        code, doc, stderr = run_cli(apply_args(params, path), json_out=True)
    finally:
        if temporary:
            os.unlink(temporary)
    if doc is None:  # no result document: only the command's own words are left
        # apply prints one whatever happens once it runs; without it, only a refused command
        # line (exit 2) is known to have touched nothing
        result.update(rc=code, report=stderr, changed=code != 2)
        module.fail_json(msg=stderr.splitlines()[-1] if stderr else
                         f"vppcfg apply exited {code}", **result)
    # `vppcfg apply --format json` (schema/apply-result.schema.json): its fields, not its prose
    report = apply_report(doc)
    result.update(rc=code, report=report, apply=doc, changed=doc["changed"])
    if code:
        module.fail_json(msg=report.splitlines()[0] if report else
                         f"vppcfg apply exited {code}", **result)
    result["msg"] = report.splitlines()[0]


def apply_report(doc):
    """The apply's report as `vppcfg apply` would print it, from its JSON result."""
    lines = [*doc["errors"]]
    if doc["report"]:
        timing = f" ({doc['seconds']:.2f}s)" if doc["ok"] and doc["seconds"] is not None else ""
        lines.append(doc["report"] + timing)
    if doc["confirm"]:
        lines.append(f"run `vppcfg confirm` within {doc['confirm']['seconds']:g}s to keep this "
                     f"change, or it is rolled back (timer pid {doc['confirm']['timer_pid']})")
    return "\n".join(lines)


def confirm(module):
    if module.check_mode:
        # what a real run would do: a pending confirm is a change (it cancels a rollback)
        pending = confirm_pending(module)
        module.exit_json(changed=pending, msg="check mode: a pending apply would be confirmed"
                         if pending else "check mode: no apply awaits confirmation")
    code, report = run_cli(["confirm", "--state-dir", module.params["state_dir"]])
    if code:
        module.fail_json(msg=report, rc=code, report=report)
    module.exit_json(changed=True, msg=report, rc=code, report=report)


def confirm_pending(module):
    """Whether an `apply --confirm` awaits confirmation in the state dir; a
    state dir that cannot be looked into (or is not ours) fails the task."""
    from vppcfg.apply.confirm import ConfirmError, is_pending
    from vppcfg.safefile import UnsafePath

    try:
        return is_pending(module.params["state_dir"])
    except (ConfirmError, UnsafePath) as err:
        module.fail_json(msg=str(err))


def present(module):
    if module.params["config"] is None and module.params["src"] is None:
        module.fail_json(msg="state=present needs config or src")
    if module.params["confirm"] is not None and module.params["confirm"] <= 0:
        module.fail_json(msg="confirm must be more than 0 seconds")
    desired, found = load_config(module)
    lines, counts = make_plan(module, desired)
    result = {"changed": bool(lines), "plan": lines, "summary": counts,
              "config_warnings": [str(w) for w in found]}
    if module._diff and lines:
        result["diff"] = {"prepared": "\n".join(lines) + "\n"}
    if not lines:
        result["msg"] = "VPP already matches the config"
    elif module.check_mode:
        result["msg"] = (f"would make {counts['create']} to create, {counts['update']} to "
                         f"change, {counts['delete']} to delete")
    else:
        apply(module, result)
    module.exit_json(**result)


def main():
    argument_spec = vpp_argument_spec()
    argument_spec.update(
        config={"type": "str"},
        src={"type": "path"},
        state={"type": "str", "choices": ["present", "confirmed"], "default": "present"},
        confirm={"type": "float"},
        lock_file={"type": "path", "default": "/run/vppcfg/apply.lock"},
        state_dir={"type": "path", "default": "/run/vppcfg"},
        allow={"type": "list", "elements": "str", "default": []},
        strict={"type": "bool", "default": False},
    )
    module = AnsibleModule(
        argument_spec=argument_spec,
        mutually_exclusive=[("config", "src")],
        supports_check_mode=True,
    )
    require_vppcfg(module)
    try:
        if module.params["state"] == "confirmed":
            confirm(module)
        present(module)
    except Exception as err:  # never a bare traceback: say what broke
        module.fail_json(msg=f"vppcfg: unexpected error: {err}", exception=traceback.format_exc())


if __name__ == "__main__":
    main()
