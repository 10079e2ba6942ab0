# The two commands of the README: `make demo` and `make test`. Both install what is missing first.
SWIFT ?= swift
BIN = .build/debug/scanlua
# Release binaries carry the Swift runtime and Foundation: about 10 ms less to start a process
# (26 to 17 ms for `scanlua --version` here), which a shell loop over images pays each time.
STATIC = --static-swift-stdlib

.PHONY: demo test build deps fixtures corpus-report fuzz check-asan check-tsan install clean

# For a person first (the invoice with its items, the product with its country, the URL with its
# warnings), then one NDJSON record, the format for programs.
demo:
	scripts/install-deps build
	$(SWIFT) build
	$(BIN) scan --format text examples/images
	@echo
	@echo "The same as NDJSON, one record per code (here the product):"
	$(BIN) scan examples/images/product-ean13.png

build:
	scripts/install-deps build
	$(SWIFT) build

test:
	scripts/install-deps test
	$(SWIFT) build --build-tests
	$(SWIFT) test --disable-swift-testing
	$(BIN) test scripts examples
	scripts/check-embedding $(BIN)

# libFuzzer on each loader and the JSON code (FUZZ_SECONDS each, AddressSanitizer on), starting
# from Tests/Fuzz/seeds and the regression corpus; findings go to .build/fuzz/findings/TARGET/.
# Then the Lua fuzz test's megabyte bodies, with the release build.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= image decode y4m mjpeg ndjson json pages
fuzz:
	scripts/install-deps build
	$(SWIFT) build -c release --product scanlua-fuzz --scratch-path .build/fuzz --sanitize=fuzzer --sanitize=address -Xswiftc -DFUZZING
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p .build/fuzz/corpus/$$t .build/fuzz/findings/$$t && \
	  LSAN_OPTIONS=suppressions=Tests/Fuzz/lsan.supp SCANLUA_FUZZ_TARGET=$$t .build/fuzz/release/scanlua-fuzz -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 \
	    -timeout=10 -print_final_stats=1 -artifact_prefix=.build/fuzz/findings/$$t/ \
	    .build/fuzz/corpus/$$t Tests/Fuzz/seeds/$$t Tests/Fuzz/regressions/$$t || exit 1; \
	done
	$(SWIFT) build -c release
	.build/release/scanlua test scripts/handlers/fuzz_large.lua

# The whole test suite under AddressSanitizer (its own build directory). LeakSanitizer is off:
# it reports Foundation's own read buffers (FileManager.contents) as leaks. Peak-memory tests
# skip themselves (SCANLUA_ASAN): ASan's shadow memory and quarantine make RSS meaningless.
check-asan:
	scripts/install-deps test
	$(SWIFT) build --build-tests --scratch-path .build/asan --sanitize=address
	SCANLUA_ASAN=1 ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --scratch-path .build/asan --sanitize=address --disable-swift-testing

# The threaded tests (decoding pool, preview server, deliveries, workers, watched folders, the
# session, the library's record sequences) under ThreadSanitizer, in their own build directory; the binaries they start are the
# instrumented ones, and every report lands in .build/tsan/reports (none: the target passes).
TSAN_TESTS ?= FrameScannerTests|PreviewTests|ForwardingTests|RedisWorkerTests|WatchCommandTests|SessionTests|ScanEngineTests
check-tsan:
	scripts/install-deps test
	$(SWIFT) build --build-tests --scratch-path .build/tsan --sanitize=thread
	rm -rf .build/tsan/reports && mkdir -p .build/tsan/reports
	TSAN_OPTIONS="log_path=$(CURDIR)/.build/tsan/reports/tsan halt_on_error=0" $(SWIFT) test --skip-build --scratch-path .build/tsan \
	  --sanitize=thread --disable-swift-testing --filter '$(TSAN_TESTS)'
	@if ls .build/tsan/reports/tsan* >/dev/null 2>&1; then cat .build/tsan/reports/tsan*; echo "ThreadSanitizer: reports above"; exit 1; \
	  else echo "ThreadSanitizer: no reports"; fi

fixtures:
	scripts/install-deps test
	scripts/make-fixtures

corpus-report:
	scripts/install-deps bench
	$(SWIFT) build -c release $(STATIC)
	scripts/corpus-report

# The release binary, the runtime Lua library (default.lua, handlers, lib and the LuaLS types;
# not the tests, fuzz cases or developer scripts), the README and docs/ under share/doc/scanlua,
# the man page and bash/zsh/fish completions under PREFIX (made by the binary itself from its
# help texts). Builds only the scanlua product. CONFIG=debug installs the debug build.
PREFIX ?= /usr/local
CONFIG ?= release
DOCDIR = $(PREFIX)/share/doc/scanlua
LUADIR = $(DESTDIR)$(PREFIX)/share/scanlua/scripts
install:
	scripts/install-deps build
	$(SWIFT) build -c $(CONFIG) --product scanlua $(if $(filter release,$(CONFIG)),$(STATIC))
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d $(DESTDIR)$(DOCDIR)/docs
	install -m 755 .build/$(CONFIG)/scanlua $(DESTDIR)$(PREFIX)/bin/scanlua
	rm -rf $(LUADIR)
	install -d $(LUADIR)/handlers $(LUADIR)/lib $(LUADIR)/types
	install -m 644 scripts/default.lua $(LUADIR)/
	install -m 644 $(filter-out %_test.lua scripts/handlers/fuzz_%,$(wildcard scripts/handlers/*.lua)) $(LUADIR)/handlers/
	install -m 644 $(filter-out %_test.lua,$(wildcard scripts/lib/*.lua)) $(LUADIR)/lib/
	install -m 644 scripts/types/*.lua $(LUADIR)/types/
	install -m 644 README.md LICENSE $(DESTDIR)$(DOCDIR)/
	install -m 644 docs/*.md docs/*.png $(DESTDIR)$(DOCDIR)/docs/
	SCANLUA_DOC_DIR=$(DOCDIR) .build/$(CONFIG)/scanlua manpage > $(DESTDIR)$(PREFIX)/share/man/man1/scanlua.1
	.build/$(CONFIG)/scanlua completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/scanlua
	.build/$(CONFIG)/scanlua completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_scanlua
	.build/$(CONFIG)/scanlua completions fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/scanlua.fish

clean:
	rm -rf .build
