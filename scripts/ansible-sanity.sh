#!/usr/bin/env bash
# `ansible-test sanity` on the collection in ansible/, with ansible-core from
# the venv (usage: scripts/ansible-sanity.sh [VENV_BIN] [ansible-test options]).
#
# Every test that ansible-test runs without a container: compile, the
# documentation and argument checks (validate-modules, ansible-doc), pylint,
# pep8, yamllint, import, shebang, runtime-metadata and the rest. Not run:
# pslint (PowerShell; there is none) and shellcheck (needs the shellcheck binary;
# the collection has no shell code).
#
# ansible-test installs each test's pinned requirements into its own venv from
# PyPI, but first bootstraps pip with a script it downloads from
# ci-files.testing.ansible.com. We put a stand-in in its cache that uses the
# standard library's ensurepip and then pip from PyPI, so that only PyPI is
# needed. Its HOME (venvs and cache) is build/ansible-test-home, kept between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${1:-$root/.venv/bin}
shift || true
bin=$(cd "$bin" && pwd)
export HOME=$root/build/ansible-test-home LC_ALL=C.UTF-8
# the venv's own Python (3.11-3.13): ansible-test checks with the version it runs on
py_version=$("$bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
pip_version=$("$bin/python" - "$py_version" <<'PY'
import sys
from types import SimpleNamespace
from ansible_test._internal.python_requirements import get_venv_packages
print(get_venv_packages(SimpleNamespace(version=sys.argv[1]))["pip"])
PY
)
cache=$HOME/.ansible/test/cache
mkdir -p "$cache"
cat > "$cache/get_pip_${pip_version//./_}.py" <<'PY'
"""Stand-in for ansible-test's pip bootstrap script: ensurepip, then the
requested pip (and any other packages) from PyPI."""
import subprocess
import sys

args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
subprocess.check_call([sys.executable, "-m", "ensurepip", "--default-pip"],
                      stdout=subprocess.DEVNULL)
subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", *args])
PY
cd ansible/ansible_collections/vppcfg/vppcfg
exec "$bin/ansible-test" sanity --python "$py_version" --requirements --color no \
    --skip-test pslint --skip-test shellcheck "$@"
