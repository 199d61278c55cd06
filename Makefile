# Two commands, each sets itself up on a fresh machine (Python 3.11 with venv):
#   make run    runs the application on its embedded defaults
#   make test   runs the rules and the tests, without the long end-to-end ones
#   (make test-slow runs those; CI runs both, see .ci/run)
PYTHON ?= python3.11
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: run test test-slow bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -c constraints.txt -e ".[test]"
	touch $(STAMP)

# The desktop application; on a machine without a screen, the same flow headless.
run: $(STAMP)
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] || [ "$$(uname)" = Darwin ]; then \
		$(VENV)/bin/workbench; \
	else \
		echo "No display found: running the sample flow headless (workbench demo)."; \
		$(VENV)/bin/workbench demo; \
	fi

# Two test processes (pytest-xdist), each taking whole files so a module's fixtures are built
# once: most tests wait on child processes, files and Qt, so two share two cores well (the
# fast set in about half the time). PARALLEL= runs them in one process.
PARALLEL ?= -n 2 --dist loadfile

# the rules first (real errors, the layer contracts in pyproject.toml), then the tests
# but the long end-to-end ones (marked slow in tests/; pyproject.toml defines the marker)
test: $(STAMP)
	$(VENV)/bin/ruff check workbench tests bench docs installer
	$(VENV)/bin/lint-imports
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -q -m "not slow" $(PARALLEL)

# the long end-to-end tests: real training runs, exports loaded back, served bundles,
# every bench's smoke run. They wait on their child processes (workers, servers, exports) for
# a good share of their time, so three test processes keep two cores busier than two do
# (about 18 minutes against 20 on 2 cores).
SLOW_PARALLEL ?= -n 3 --dist loadfile

test-slow: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -q -m slow $(SLOW_PARALLEL)

bench: $(STAMP)
	$(VENV)/bin/python bench/data_bench.py

clean:
	rm -rf $(VENV)
