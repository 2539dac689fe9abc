# The two commands: `make dev` runs Podium with demo data; `make test` runs the suite.
# `make check` is the edit-test loop: lint, types and the tests that need no browser,
# worker or scratch cluster.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
CHECK_TESTS := not integration and not browser and not clone

.PHONY: dev test check test-cpu-variants lint format services browser bench bench-quick clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

dev: $(VENV)/.runtime
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo
	@echo "Podium is serving on http://$(HOST):$(PORT)/ (Ctrl-C to stop)"
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

services:
	scripts/ensure_services.sh

# Debian's Chromium for the browser tests (tests/browser, Playwright).
browser:
	scripts/ensure_browser.sh

# Everything, in parallel like `check` (below): the integration, browser and clone tests
# cope with it (each process has its own test database, cache prefix, Celery queue and
# live server port; the fault tests' scratch clusters and gunicorns take free ports), so
# only the test databases differ (made afresh). Tests bound work (statements, calls, CPU
# seconds with a wide margin), not wall time, so two processes sharing two cores (or a
# loaded machine) slow them without failing them; speed is bench's (bench/README.md).
test: lint services browser
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n auto --dist loadfile --no-loadscope-reorder --create-db --durations=10
	$(MAKE) bench-quick

# One process per core (pytest-xdist; a file's tests stay in one process, so module
# fixtures are built once), each with its own test database (kept between runs:
# --create-db rebuilds them), cache prefix and Celery queue; tests marked integration
# or browser (by hand, by folder or by fixture: tests/conftest.py) and the fresh-clone
# runs (clone) are left out. Files are handed out longest first by their last measured
# time (tests/file_order.py; pytest-xdist's own order, by number of tests, is switched
# off), so that neither process is left running a long file alone at the end.
# PODIUM_TEST_TIER makes a worker started by hand fail its test.
# Bytecode is cached even where PYTHONDONTWRITEBYTECODE is set: each process collects
# every test file (pytest's rewritten modules are cached in __pycache__ too), and the
# subprocess tests start Python again; without the cache that is ~6 s more CPU a process.
# 2.4 to 2.6 minutes warm on this 2-core machine with 1,828 tests, about 3 minutes as a
# fresh clone's first run (docs/development.md).
check: lint services
	PYTHONDONTWRITEBYTECODE= PODIUM_TEST_TIER=check $(BIN)/pytest -q -m "$(CHECK_TESTS)" -n auto --dist loadfile --no-loadscope-reorder --reuse-db --durations=10

# The core tests as other CPUs run them (numpy's wide SIMD loops off; another OpenBLAS
# kernel): floats are compared with stated tolerances, so these pass too. CI runs it.
# Every variant runs even when one fails; one summary line each at the end.
test-cpu-variants: $(VENV)/.dev
	BIN=$(BIN) scripts/cpu_variants.sh

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

format: $(VENV)/.dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Performance against peer libraries and targets (see bench/README.md); not a test.
bench: $(VENV)/.dev services
	$(BIN)/python -m bench all

# Every bench suite at tiny sizes (about a minute; part of `make test`), so that none
# of them rots: a suite that fails stops the target. The tables are not kept.
bench-quick: $(VENV)/.dev services
	$(BIN)/python -m bench all --quick > /dev/null

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .ruff_cache
