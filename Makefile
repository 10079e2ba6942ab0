# The two commands of the README: `make demo` and `make test`. Both install what is missing first.
SWIFT ?= swift
BIN = .build/debug/scanlua

.PHONY: demo test build deps fixtures corpus-report clean

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

fixtures:
	scripts/install-deps test
	scripts/make-fixtures

corpus-report:
	scripts/install-deps bench
	$(SWIFT) build -c release
	scripts/corpus-report

clean:
	rm -rf .build
