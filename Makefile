# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run

.PHONY: run test lint pytest check bench demo clean

# `make run` installs what running needs (the bot, SQLite, and asyncpg for the PostgreSQL option); `make test`
# adds the test and lint tools.
$(RUN_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "hexdirector needs Python >= 3.11"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[postgres]'
	@touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	$(PY) -m pip install --quiet -e '.[test,postgres]'
	@touch $(STAMP)

run: $(RUN_STAMP)
	$(VENV)/bin/hexdirector run

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/pyright

# lint (ruff, pyright) runs beside pytest; either failing fails the target. Lint takes about a minute and pytest
# most of the run, so pytest's tests run in two worker processes (pytest-xdist) and have both cores once lint is
# done; each module's tests stay in one worker (--dist loadscope), which builds its module fixtures once
test: $(STAMP)
	@$(MAKE) --no-print-directory -j2 lint pytest

pytest: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadscope

bench: $(STAMP)
	for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

# The README's board images come from the demo run: regenerate them with the renderer.
demo: $(RUN_STAMP)
	$(VENV)/bin/hexdirector demo
	cp demo-out/exo-patrol/r05-p2-director.png docs/images/exo-round-director.png
	cp demo-out/skirmish-corridor/r02-palpha-veddio-director.png docs/images/skirmish-corridor.png
	cp demo-out/exo-ambush/r02-p2-red.png docs/images/exo-fogged-red-view.png

clean:
	rm -rf $(VENV) demo-out .pytest_cache .ruff_cache
