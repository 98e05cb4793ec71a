# Two entry points that work on a fresh clone:
#   make demo  - set up a venv, start the simulators, run check/plan/apply/dump and a loadtest
#   make test  - set up a venv, run ruff and the test suite
# The venv is installed from requirements.lock (every package pinned by hash), then the
# project itself without dependencies; `make lock` refreshes the lock, `make test-latest`
# runs the suite on the newest versions setup.py allows (to see drift; not a gate).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
LOCK   := requirements.lock
# the lock tool, pinned: a refresh with another uv may write the file differently
UV_VERSION := 0.13.9
TOOLS  := build/lock-tools
LATEST ?= build/venv-latest
PYTEST_ARGS ?=

.PHONY: venv demo test lint bench clean ansible-sanity check-python lock test-latest

# setup.py declares the same range; checked here so a wrong python3 fails before any download
check-python:
	@$(PYTHON) -c 'import sys; v = sys.version_info[:2]; sys.exit(None if (3, 11) <= v <= (3, 13) else "vppcfg needs Python 3.11, 3.12 or 3.13; $(PYTHON) is " + sys.version.split()[0] + " (choose one with make PYTHON=python3.N)")'

$(BIN)/activate: setup.py $(LOCK) | check-python
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	touch $(BIN)/activate

venv: $(BIN)/activate

lint: venv
	$(BIN)/ruff check .

test: venv lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The real-VPP random walk (tests/test_real_walk.py) with more seeds than CI's 4 x 50 steps,
# on every real VPP release (VPPCFG_REAL_VPP); needs root and ../shared. Override with
# make test-walk-nightly WALK_SEEDS=41-80 WALK_STEPS=100.
WALK_SEEDS ?= 1-40
WALK_STEPS ?= 50
.PHONY: test-walk-nightly
test-walk-nightly: venv
	VPPCFG_WALK_SEEDS=$(WALK_SEEDS) VPPCFG_WALK_STEPS=$(WALK_STEPS) \
	    $(BIN)/python -m pytest -m real tests/test_real_walk.py $(PYTEST_ARGS)

# ansible-test sanity on the Ansible collection in ansible/ (see the script for which tests)
ansible-sanity: venv
	./scripts/ansible-sanity.sh $(BIN)

demo: venv
	./scripts/demo.sh $(BIN)

bench: venv
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

$(TOOLS)/bin/uv:
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet uv==$(UV_VERSION)

# One command to refresh the lock: the newest versions setup.py and requirements.in allow,
# resolved once for every Python from 3.11 up (markers where they differ), with hashes.
lock: $(TOOLS)/bin/uv
	$(TOOLS)/bin/uv pip compile --quiet --upgrade --universal --python-version 3.11 \
	    --generate-hashes --extra trex --extra test --extra ansible \
	    --custom-compile-command 'make lock' setup.py requirements.in -o $(LOCK)

# The suite on the newest allowed versions, in its own venv; prints what differs from the lock.
test-latest: check-python
	rm -rf $(LATEST)
	$(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/pip install --quiet --upgrade pip setuptools wheel
	$(LATEST)/bin/pip install --quiet --upgrade --upgrade-strategy eager -e '.[trex,test,ansible]'
	$(LATEST)/bin/python scripts/lock_drift.py $(LOCK)
	$(LATEST)/bin/ruff check .
	$(LATEST)/bin/python -m pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) $(LATEST) $(TOOLS) build *.egg-info .pytest_cache
