# Two entry points that work on a fresh clone:
#   make demo  - set up a venv, start the simulators, run check/plan/apply/dump and a loadtest
#   make test  - set up a venv, run ruff and the test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: venv demo test lint bench clean ansible-sanity

$(BIN)/activate: setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/activate

venv: $(BIN)/activate

lint: venv
	$(BIN)/ruff check .

test: venv lint
	$(BIN)/python -m pytest

# ansible-test sanity on the Ansible collection in ansible/ (see the script for which tests)
ansible-sanity: venv
	./scripts/ansible-sanity.sh $(BIN)

demo: venv
	./scripts/demo.sh $(BIN)

bench: venv
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
