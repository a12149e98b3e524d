# The two commands a fresh machine needs (see README): `make run` and `make test`.
# Both create the virtual environment from constraints.txt (the pinned lock) when it is missing or stale.
# The editable install is a plain path in a .pth (compat mode): setuptools' default import finder costs
# about 20 ms at every start. bastion's bytecode is compiled once here, so a start does not compile it
# when PYTHONDONTWRITEBYTECODE is set (Python still checks each .pyc against its source). The command,
# .venv/bin/bastion, is bin/bastion as the install puts it there: a /bin/sh launcher that starts the
# venv's Python isolated (-I) before anything is imported (no console script: see pyproject.toml).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
ARGS ?= check -- 'git status && ls *.md'
SECONDS ?= 20

.PHONY: run test lint tools fuzz bench conformance integration shims awks installed clean

# Every grammar of the package: its tables are built here (python -m bastion.grammar).
GRAMMARS := $(shell find bastion -name '*.lark')

$(VENV)/.installed: pyproject.toml setup.py bin/bastion constraints.txt $(GRAMMARS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[dev]' \
		--config-settings editable_mode=compat
	cmp bin/bastion $(BIN)/bastion  # the launcher, as the install put it
	$(BIN)/python -m bastion.grammar
	$(BIN)/python -m compileall -q bastion
	touch $@

run: $(VENV)/.installed
	$(BIN)/bastion $(ARGS)

lint: $(VENV)/.installed
	$(BIN)/ruff check bastion tests fuzz benchmarks integration setup.py
	$(BIN)/ruff format --check bastion tests fuzz benchmarks integration setup.py
	$(BIN)/mypy --strict bastion tests fuzz benchmarks integration setup.py

# The Debian programs the differential tests hold bastion's readers to, pinned, installed when missing
# (busybox's sed; the locales package's sources, from which localedef builds zh_CN.GB18030). Where
# apt-get cannot install them (no root, no network) the tests that need them skip, naming them.
DEBIAN_TOOLS := busybox=1:1.35.0-4+deb12u1+b1 locales=2.36-9+deb12u14

tools:
	@command -v busybox >/dev/null && test -e /usr/share/i18n/charmaps/GB18030.gz || \
		apt-get install -y -q --no-install-recommends $(DEBIAN_TOOLS) >/dev/null 2>&1 || \
		echo "make: $(DEBIAN_TOOLS) not installed; the tests that need them skip"

# The real awks the differential property holds bastion's awk grammar to (mawk is Debian's default):
# gawk and busybox installed when missing, pinned, from Debian (as root, with apt-get). Never fails:
# tests/analyzer/commands/test_awk_differential.py skips, naming the one missing.
AWKS_DEB := gawk=1:5.2.1-2 busybox=1:1.35.0-4+deb12u1+b1
awks:
	@missing=""; for pin in $(AWKS_DEB); do command -v $${pin%%=*} >/dev/null || missing="$$missing $$pin"; done; \
	test -z "$$missing" || { command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] \
		&& { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; } \
		>/dev/null 2>&1; } || echo "make awks:$$missing not installed: the awk differential tests skip"

# The fuzz smoke and the conformance check run even when pytest failed (the target still fails),
# and the last lines say which of the three failed. pytest runs in two workers (pytest-xdist): most
# tests wait on processes of their own, so two cores share the suite (docs/performance.md, "The test
# suite"); a test file run alone stays one process.
test: lint shims awks tools
	@failed=""; \
	$(BIN)/python -m pytest -n 2 || failed="$$failed pytest"; \
	$(BIN)/python fuzz/run.py --seconds 10 || failed="$$failed fuzz"; \
	$(BIN)/python benchmarks/conformance.py --check || failed="$$failed conformance"; \
	if [ -n "$$failed" ]; then echo "make test: failed:$$failed"; exit 1; fi; \
	echo "make test: pytest, fuzz and conformance passed"

fuzz: $(VENV)/.installed
	$(BIN)/python fuzz/run.py --seconds $(SECONDS)

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/decide.py

conformance: $(VENV)/.installed
	$(BIN)/python benchmarks/conformance.py

# The real agent CLIs (pinned in integration/package-lock.json, installed with npm ci into the git-ignored
# integration/node_modules) against bastion's hooks; every cell skipped, exit 0, without node and npm.
# The hooks' resident server (bastion/resident) ends 10 s after the run's last call, not 300 s: a CI job
# that waits for every process it started is not kept waiting.
integration: $(VENV)/.installed
	BASTION_SERVER_IDLE=10 $(BIN)/python -m integration

# Real multiplexers the tests and the execution property put on PATH (fuzz/multiplexers.py), each
# installed when missing, pinned: ccache from Debian (as root, with apt-get), mise from npm (npm ci
# of fuzz/npm into its git-ignored node_modules). Never fails: a test whose multiplexer is missing
# skips, naming it.
CCACHE_DEB := 4.8+really4.7.5-1
shims:
	@test -e /usr/lib/ccache/gcc || { command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] \
		&& { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ccache=$(CCACHE_DEB); } \
		>/dev/null 2>&1; } || echo "make shims: ccache $(CCACHE_DEB) not installed: its tests skip"
	@test -x fuzz/npm/node_modules/@jdxcode/mise/bin/mise || { command -v npm >/dev/null \
		&& timeout 600 npm ci --no-audit --no-fund --loglevel=error --prefix fuzz/npm >/dev/null 2>&1; } \
		|| echo "make shims: mise (fuzz/npm) not installed: its tests skip"

# The wheel built from the checkout's files, installed into a fresh virtual environment another user
# owns (made with useradd when run as root), run read-only: fails if the tables are missing or built,
# or anything is written into the install; prints `bastion check -- ls`'s time against the checkout's.
installed: $(VENV)/.installed
	$(BIN)/python benchmarks/installed.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis integration/node_modules fuzz/npm/node_modules
