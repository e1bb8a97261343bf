# The two commands: `make run` and `make test`. Both install missing Debian packages first.
JOBS ?= $(shell nproc)
GPUPLAN := build/gpuplan

.PHONY: deps build run test asan test-asan bench clean

deps:
	@scripts/install-deps.sh

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# The main job on the built-in defaults.
run: build
	@$(GPUPLAN)

test: build
	@ctest --preset release -j $(JOBS)

asan: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)

test-asan: asan
	@ctest --preset asan -j $(JOBS)

bench: build
	@build/bench/gpuplan_bench

clean:
	rm -rf build build-asan build-debug
