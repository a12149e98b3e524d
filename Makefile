# The two commands a fresh machine needs (see README): `make run` and `make test`.
# Both create the virtual environment from constraints.txt (the pinned lock) when it is missing or stale.
# The editable install is a plain path in a .pth (compat mode): setuptools' default import finder costs
# about 20 ms at every start. bastion's bytecode is compiled once here, so a start does not compile it
# when PYTHONDONTWRITEBYTECODE is set (Python still checks each .pyc against its source). pip's console
# script imports re (about 10 ms a start on a busy machine) only to take a Windows suffix off argv[0],
# which bastion never reads: it is written again without it, under pip's own first line.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
ARGS ?= check -- 'git status && ls *.md'
SECONDS ?= 20

.PHONY: run test lint tools fuzz bench conformance integration clean

# Every grammar of the package: its tables are built here (python -m bastion.grammar).
GRAMMARS := $(shell find bastion -name '*.lark')

$(VENV)/.installed: pyproject.toml constraints.txt $(GRAMMARS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[dev]' \
		--config-settings editable_mode=compat
	{ head -n 1 $(BIN)/bastion; printf 'import sys\nfrom bastion.cli import main\n\nif __name__ == "__main__":\n    sys.exit(main())\n'; } > $(BIN)/.bastion.new
	chmod 755 $(BIN)/.bastion.new && mv $(BIN)/.bastion.new $(BIN)/bastion
	$(BIN)/python -m bastion.grammar
	$(BIN)/python -m compileall -q bastion
	touch $@

run: $(VENV)/.installed
	$(BIN)/bastion $(ARGS)

lint: $(VENV)/.installed
	$(BIN)/ruff check bastion tests fuzz benchmarks integration
	$(BIN)/ruff format --check bastion tests fuzz benchmarks integration
	$(BIN)/mypy --strict bastion tests fuzz benchmarks integration

# The Debian programs the differential tests hold bastion's readers to, pinned, installed when missing
# (busybox's sed; the locales package's sources, from which localedef builds zh_CN.GB18030). Where
# apt-get cannot install them (no root, no network) the tests that need them skip, naming them.
DEBIAN_TOOLS := busybox=1:1.35.0-4+deb12u1+b1 locales=2.36-9+deb12u14

tools:
	@command -v busybox >/dev/null && test -e /usr/share/i18n/charmaps/GB18030.gz || \
		apt-get install -y -q --no-install-recommends $(DEBIAN_TOOLS) >/dev/null 2>&1 || \
		echo "make: $(DEBIAN_TOOLS) not installed; the tests that need them skip"

# The fuzz smoke and the conformance check run even when pytest failed (the target still fails),
# and the last lines say which of the three failed.
test: lint tools
	@failed=""; \
	$(BIN)/python -m pytest || failed="$$failed pytest"; \
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

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis integration/node_modules
