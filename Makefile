# Lancet: the two commands that matter are `make demo` and `make test`.
# Both install what they need (apt + npm) on a fresh Debian 12 machine.

BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 30
SHELL := /bin/bash
# ccache, when the machine has it, lets several build trees share compiled objects; with
# paths hashed relative to the checkout, two clones share them too.
LAUNCHER := $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR ?= $(CURDIR)
# The interpreter the Python module is built for and tested with: the system one, which
# sees the distribution's numpy/pandas/pytest/av (a pyenv python3 on PATH does not).
PYTHON ?= /usr/bin/python3
# What `make demo` needs, and nothing else: a newcomer sees results in minutes.
DEMO_TARGETS := lancet lancet_video_ffmpeg

.PHONY: all deps build test unit-test asan-test s3-test fuzz demo bench clean format

all: build

deps:
	@scripts/install-deps.sh

# -O2 as RelWithDebInfo but without debug info, which slows compiling and linking.
$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release '-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG' '-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG' \
	  -DPython3_EXECUTABLE=$(PYTHON) $(LAUNCHER)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# Everything: the interop tests against the reference, the blob ingest memory bound,
# the Python module's suite, the installed C++ package and the doc examples (release CLI,
# benchmarks, chunks plugin and module),
# then one clang build with ASan+UBSan (and libFuzzer instrumentation) that runs every
# unit test and every fuzzer. The unit tests run only there, to keep CI within its time
# budget; `make unit-test` runs them on the optimized build. The browser test (`lancet
# serve --ui` in headless Chromium) runs on the optimized build only; its screenshot is
# kept in $(BUILD)/artifacts/ui.png.
test: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target lancet lancet_video_ffmpeg read_bench write_bench blob_interop_write filter_interop blob_ingest_stress ipc_stream_gen index_build_stress _lancet lancet_chunks
	cd $(BUILD) && source ../scripts/env.sh && ctest --output-on-failure -j $(JOBS) -L 'interop|stress|python|install|docs|browser'
	$(MAKE) s3-test
	$(MAKE) asan-test

unit-test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'interop|python'

# The S3 store and the store-parameterised dataset suites against a Ceph radosgw on
# 127.0.0.1 (scripts/s3-server.sh installs and starts it; stopped whatever happens).
S3_TESTS := lancet _lancet s3_sigv4_test s3_retry_test object_store_test s3_store_test writer_test commit_test blob_written_test blob_external_s3_test extract_test s3_fault_test s3_crash_test concurrency_test fault_proxy crash_child
s3-test: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target $(S3_TESTS)
	@set -e; trap '$(CURDIR)/scripts/s3-server.sh stop' EXIT; eval "$$(scripts/s3-server.sh start)"; \
	  cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L s3

# Line tables only: sanitizer reports keep file:line while compiling and linking cost far
# less than with full debug info.
$(ASAN_BUILD)/build.ninja:
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS=-O1 -DLANCET_SANITIZE=ON -DLANCET_FUZZ=ON \
	  -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only -DCMAKE_C_FLAGS_DEBUG=-gline-tables-only \
	  -DLANCET_BENCH=OFF $(LAUNCHER) -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++

asan-test: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && source ../scripts/env.sh && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -LE 'interop|browser'
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/run-fuzzers.sh $(ASAN_BUILD)

fuzz: asan-test

demo: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target $(DEMO_TARGETS)
	@source scripts/env.sh && scripts/demo.sh $(BUILD)

bench: build
	@source scripts/env.sh && scripts/bench.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.h' '*.cc')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
