# The two commands: `make run` and `make test`. Both install missing Debian packages first.
JOBS ?= $(shell nproc)
GPUPLAN := build/gpuplan

.PHONY: deps build run test test-slow asan test-asan bench clean

deps:
	@scripts/install-deps.sh

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# The main job on the built-in defaults, then the same question (run_default_job in
# src/cli/run.cpp) as an offline HTML report with charts (docs/ui.md); `-`: a build without
# Node.js has no report assets, and says so without failing the run.
DEFAULT_QUESTION := --model llama3.1-70b --gpu h100-sxm --gpus 64 --tp 8 --pp 2 --sp --zero 1 \
	--global-batch 256 --seq-len 8192 --recompute selective
run: build
	@$(GPUPLAN)
	-@$(GPUPLAN) train $(DEFAULT_QUESTION) --html build/gpuplan-report.html

# `make test`: every test but those labelled `slow` (the whole-file validations, the browser,
# the fuzz smoke runs, the server under load, the Python suite: docs/testing.md); `make
# test-slow` runs those, and `.ci/run` runs both.
test: build
	@ctest --preset release -j $(JOBS)

test-slow: build
	@ctest --preset slow -j $(JOBS)

asan: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)

test-asan: asan
	@ctest --preset asan -j $(JOBS)

bench: build
	@build/bench/gpuplan_bench

clean:
	rm -rf build build-asan build-debug
