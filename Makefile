# The two commands a fresh machine needs (README): `make demo` and `make test`.
PY ?= python3
OUT ?= out/sample

.PHONY: install demo test

install:
	@bash scripts/install.sh

# Build the bundled sample into $(OUT) and load every config back with datasets.load_dataset.
demo: install
	kvdata build --sample --out $(OUT)
	kvdata info $(OUT)
	HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 $(PY) scripts/load_check.py $(OUT)

test: install
	$(PY) -m pytest -q
