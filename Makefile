# The two commands of the README: `make demo` and `make test`. Both install what is missing first.
SWIFT ?= swift
BIN = .build/debug/scanlua

.PHONY: demo test build deps fixtures corpus-report fuzz clean

demo:
	scripts/install-deps build
	$(SWIFT) build
	$(BIN) scan examples/images

build:
	scripts/install-deps build
	$(SWIFT) build

test:
	scripts/install-deps test
	$(SWIFT) build --build-tests
	$(SWIFT) test --disable-swift-testing
	$(BIN) test scripts examples

# The fuzz test's megabyte bodies, with the release build (too slow for the debug-build suite).
fuzz:
	scripts/install-deps build
	$(SWIFT) build -c release
	.build/release/scanlua test scripts/handlers/fuzz_large.lua

fixtures:
	scripts/install-deps test
	scripts/make-fixtures

corpus-report:
	scripts/install-deps bench
	$(SWIFT) build -c release
	scripts/corpus-report

clean:
	rm -rf .build
