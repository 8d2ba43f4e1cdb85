# make run  — install what is missing, migrate, create demo data on an empty database,
#             then serve the web app and the memory worker in the foreground.
# make test — install what is missing and run the whole suite (SQLite, then PostgreSQL
#             + Redis when they are reachable).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
REQ_HASH := $(shell sha1sum requirements.txt | cut -c1-12)
STAMP  := $(VENV)/.installed-$(REQ_HASH)
# llama.cpp's default -march=native build can pick CPU features (AMX, AVX512-FP16) that a
# virtual machine advertises but traps on ("Illegal instruction"): build for a portable
# AVX2 baseline instead.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

export HOST PORT

.PHONY: install run test test-sqlite test-postgres bench clean-venv

$(STAMP): requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo ">> installing Python packages into $(VENV) (llama-cpp-python compiles once, ~7 min on 2 cores; pip caches the wheel)"
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(PY) -m pip install --disable-pip-version-check --progress-bar off -r requirements.txt
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py bootstrap_demo --url http://$(HOST):$(PORT)
	$(PY) manage.py serve --host $(HOST) --port $(PORT)

test: install
	@PY=$(PY) bash scripts/test.sh

test-sqlite: install
	@PY=$(PY) DB_MATRIX=sqlite bash scripts/test.sh

test-postgres: install
	@PY=$(PY) DB_MATRIX=postgres bash scripts/test.sh

clean-venv:
	rm -rf $(VENV)
