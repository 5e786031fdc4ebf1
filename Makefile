# Lancet: the two commands that matter are `make demo` and `make test`.
# Both install what they need (apt + npm) on a fresh Debian 12 machine.

BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
SHELL := /bin/bash

.PHONY: all deps build test unit-test asan-test fuzz demo bench clean format

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# Everything: unit + interop tests (release), unit tests under ASan+UBSan, fuzzing.
test: build
	cd $(BUILD) && source ../scripts/env.sh && ctest --output-on-failure -j $(JOBS)
	$(MAKE) asan-test
	$(MAKE) fuzz

unit-test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE interop

asan-test: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DLANCET_SANITIZE=ON -DLANCET_BENCH=OFF \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -LE interop

fuzz: deps
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLANCET_FUZZ=ON -DLANCET_SANITIZE=ON \
	  -DLANCET_TESTS=OFF -DLANCET_BENCH=OFF -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/run-fuzzers.sh $(FUZZ_BUILD)

demo: build
	@source scripts/env.sh && scripts/demo.sh $(BUILD)

bench: build
	@source scripts/env.sh && scripts/bench.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.h' '*.cc')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
