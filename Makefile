# The two commands a fresh machine needs (README): `make demo` and `make test`.
PY ?= python3
OUT ?= out/sample
# The venv of the newest releases pyproject.toml allows (scripts/install_newest.sh), and pytest arguments for it
# (empty: the whole suite; .ci/run passes its NEWEST_CI_TESTS subset).
NEWEST_VENV ?= .venv-newest
NEWEST_PYTEST_ARGS ?=

.PHONY: install install-newest demo test test-newest

# install_verl.sh: veRL 0.9.1 in its own venv (it needs transformers < 5.11; tests/test_reward_verl.py runs there).
# install_llamafactory.sh: LLaMA-Factory 0.9.5 in its own venv (transformers <= 5.6, datasets <= 4.0;
# tests/test_export_llamafactory.py runs there).
install:
	@bash scripts/install.sh
	@bash scripts/install_verl.sh
	@bash scripts/install_llamafactory.sh

# Build the bundled sample into $(OUT) and load every config back with datasets.load_dataset.
demo: install
	kvdata build --sample --out $(OUT)
	kvdata info $(OUT)
	HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 $(PY) scripts/load_check.py $(OUT)

test: install
	$(PY) -m pytest -q

install-newest:
	@KVDATA_NEWEST_VENV=$(NEWEST_VENV) bash scripts/install_newest.sh

# The suite again against the newest releases the ranges allow (a plain `pip install -e ".[all]"`, unpinned).
# The venv's bin/ comes first on PATH so that nothing a test starts picks up the pinned environment.
test-newest: install-newest
	PATH="$(abspath $(NEWEST_VENV))/bin:$$PATH" $(NEWEST_VENV)/bin/python -m pytest -q $(NEWEST_PYTEST_ARGS)
