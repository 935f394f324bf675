# notifyd — build, run and test. `make run` and `make test` work on a fresh Debian 12 machine.
SWIFT ?= swift
PYTHON ?= python3
CONFIGURATION ?= debug
BIN := .build/$(CONFIGURATION)
SWIFT_BUILD := scripts/swiftpm.sh $(SWIFT) build -c $(CONFIGURATION)

.PHONY: all deps build run test unit-test tsan-test integration-test lint format clean protocols

all: build

# NO_DEPS=1 skips it (a package build, whose Build-Depends dpkg-buildpackage checks).
deps:
	@[ -n "$(NO_DEPS)" ] || scripts/deps.sh

build: deps
	$(SWIFT_BUILD)

# The daemon in the foreground on built-in defaults; Ctrl-C stops it.
run: build
	$(BIN)/notifyd

# Every suite, each build once, the waiting suites beside the builds and each other, what cannot
# share the machine last and alone; one line per suite at the end (scripts/test.py, --list).
test: deps
	$(PYTHON) scripts/test.py

# Single suites, with the builds they need (scripts/test.py runs those first).
unit-test: deps
	$(PYTHON) scripts/test.py unit

# The queue engine under Thread Sanitizer (a tenth of the simulation's schedules).
tsan-test: deps
	$(PYTHON) scripts/test.py tsan-unit

# The end-to-end suites (tests/), the Debian package's and `make install`'s included.
integration-test: deps
	$(PYTHON) scripts/test.py integration package integration-alone

lint:
	$(SWIFT) format lint --strict -r Sources Tests Plugins Package.swift
	scripts/wayland-glue.sh --check

# The Wayland protocol glue in Sources/CWayland, from protocols/*.xml (committed; `lint` checks it).
protocols:
	scripts/wayland-glue.sh

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

clean:
	rm -rf .build

# MARK: - install
# `make install` honours PREFIX (default /usr/local) and DESTDIR (for staging and packaging):
# binaries, systemd user units pointing at them, the D-Bus activation file (which starts the service),
# man pages, shell completions, example config.
PREFIX ?= /usr/local
DESTDIR ?=
# Where `release` builds; `make install RELEASE_SCRATCH=/tmp/x` keeps that build out of .build.
RELEASE_SCRATCH ?= .build
# Line tables, not full debug info: backtraces and sanitizer reports keep file:line, and the
# build takes a fifth less CPU (docs/DECISIONS.md, "Line tables").
LINE_TABLES := -Xswiftc -gline-tables-only
ZSH_COMPLETION_DIR ?= $(PREFIX)/share/zsh/vendor-completions
MAN_PAGES := .build/man/notifyctl.1 .build/man/notifyd.conf.5 .build/man/notifyd.8
INSTALLED := $(PREFIX)/bin/notifyd $(PREFIX)/bin/notifyctl \
	$(PREFIX)/lib/systemd/user/notifyd.service $(PREFIX)/lib/systemd/user/notifyd.socket \
	$(PREFIX)/share/man/man1/notifyctl.1 $(PREFIX)/share/man/man5/notifyd.conf.5 \
	$(PREFIX)/share/man/man8/notifyd.8 \
	$(PREFIX)/share/bash-completion/completions/notifyctl $(ZSH_COMPLETION_DIR)/_notifyctl \
	$(PREFIX)/share/fish/vendor_completions.d/notifyctl.fish $(PREFIX)/share/doc/notifyd/notifyd.conf \
	$(PREFIX)/share/dbus-1/services/io.notifyd.Notifications.service \
	$(PREFIX)/lib/systemd/user-preset/90-notifyd.preset

.PHONY: release man install uninstall

release: deps
	scripts/swiftpm.sh $(SWIFT) build -c release --scratch-path $(RELEASE_SCRATCH) --product notifyd $(LINE_TABLES)
	scripts/swiftpm.sh $(SWIFT) build -c release --scratch-path $(RELEASE_SCRATCH) --product notifyctl $(LINE_TABLES)

# man/*.scd → .build/man/*.1/.5/.8 (scdoc, Debian package `scdoc`).
man: $(MAN_PAGES)

.build/man/%: man/%.scd
	@command -v scdoc >/dev/null || { echo "make man: scdoc is missing (apt-get install scdoc)" >&2; exit 1; }
	@mkdir -p $(@D)
	scdoc < $< > $@.tmp && mv $@.tmp $@

install: release man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/systemd/user \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(ZSH_COMPLETION_DIR) \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d $(DESTDIR)$(PREFIX)/share/doc/notifyd \
		$(DESTDIR)$(PREFIX)/share/dbus-1/services $(DESTDIR)$(PREFIX)/lib/systemd/user-preset
	install -m 0755 $(RELEASE_SCRATCH)/release/notifyd $(RELEASE_SCRATCH)/release/notifyctl $(DESTDIR)$(PREFIX)/bin/
	for unit in notifyd.service notifyd.socket; do \
		sed 's|/usr/local/bin/|$(PREFIX)/bin/|g' systemd/$$unit > $(DESTDIR)$(PREFIX)/lib/systemd/user/$$unit && \
		chmod 0644 $(DESTDIR)$(PREFIX)/lib/systemd/user/$$unit || exit 1; \
	done
	for page in $(MAN_PAGES); do \
		name=$${page##*/}; \
		sed 's|/usr/local/|$(PREFIX)/|g' $$page \
			> $(DESTDIR)$(PREFIX)/share/man/man$${name##*.}/$$name && \
		chmod 0644 $(DESTDIR)$(PREFIX)/share/man/man$${name##*.}/$$name || exit 1; \
	done
	install -m 0644 completions/notifyctl.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/notifyctl
	install -m 0644 completions/_notifyctl $(DESTDIR)$(ZSH_COMPLETION_DIR)/_notifyctl
	install -m 0644 completions/notifyctl.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/notifyctl.fish
	install -m 0644 config/notifyd.conf $(DESTDIR)$(PREFIX)/share/doc/notifyd/notifyd.conf
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|g' dbus/io.notifyd.Notifications.service \
		> $(DESTDIR)$(PREFIX)/share/dbus-1/services/io.notifyd.Notifications.service
	chmod 0644 $(DESTDIR)$(PREFIX)/share/dbus-1/services/io.notifyd.Notifications.service
	install -m 0644 systemd/90-notifyd.preset $(DESTDIR)$(PREFIX)/lib/systemd/user-preset/90-notifyd.preset

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rmdir $(DESTDIR)$(PREFIX)/share/doc/notifyd 2>/dev/null || true
	rmdir $(DESTDIR)$(PREFIX)/share/dbus-1/services $(DESTDIR)$(PREFIX)/share/dbus-1 2>/dev/null || true
	rmdir $(DESTDIR)$(PREFIX)/lib/systemd/user-preset 2>/dev/null || true

# MARK: - the Debian package
# `make deb`: .build/deb/notifyd_<version>_<arch>.deb from debian/ (debhelper: the Makefile's
# release build and `install`), checked by lintian, which must report no error and no warning.
# The version is debian/changelog's, which must be the one notifyd reports. What the build staged
# under debian/ is removed afterwards (--post-clean).
DEB_DIR := .build/deb
DEB_VERSION = $(shell dpkg-parsechangelog -S Version)
DEB_FILE = $(DEB_DIR)/notifyd_$(DEB_VERSION)_$(shell dpkg --print-architecture).deb
.PHONY: deb

# How dpkg-deb compresses the package: its default (xz) unless told, as `DEB_COMPRESSION="-Zgzip -z1"`
# (`make test`'s package, whose compression nothing tests: xz took 55 s of CPU for its 75 MB).
DEB_COMPRESSION ?=
deb: deps
	@grep -qF 'static let version = "$(DEB_VERSION)"' Sources/NotifyProtocol/Interface.swift || { \
		echo "make deb: debian/changelog's version ($(DEB_VERSION)) is not Interface.version" >&2; exit 1; }
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)
	NOTIFYD_DEB_DIR=$(CURDIR)/$(DEB_DIR) NOTIFYD_DEB_COMPRESSION="$(DEB_COMPRESSION)" \
		dpkg-buildpackage --build=binary --no-sign --post-clean \
		--buildinfo-file=$(DEB_DIR)/notifyd.buildinfo --buildinfo-option=-u$(DEB_DIR) \
		--changes-file=$(DEB_DIR)/notifyd.changes --changes-option=-u$(DEB_DIR) \
		--check-command=lintian --check-option=--fail-on=error,warning --check-option=--display-info

# MARK: - bench, fuzzing, sanitizers (docs/PERFORMANCE.md)
.PHONY: bench fuzz fuzz-build fuzz-test fuzz-long asan-test tsan-integration soak soak-test

# DESIGN §8's figures beside their budgets, with dunst measured in the same run, then the popups'
# beside mako on headless sway (bench/popups.py), then following a session and D-Bus activation in
# a container with a real login and the package's size beside Debian's mako and dunst
# (bench/session.py); not part of `test`.
bench: deps
	scripts/swiftpm.sh $(SWIFT) build -c release
	bench/with-peer.sh .build/release/notifyd-bench
	$(PYTHON) bench/popups.py --bin .build/release
	$(MAKE) deb NO_DEPS=1
	$(PYTHON) bench/session.py --bin .build/release --package $(DEB_FILE)

# libFuzzer targets (fuzz/build.sh), rebuilt only when a file they compile changed.
FUZZ_OUT := .build/fuzz
FUZZ_SOURCES := fuzz/build.sh $(wildcard fuzz/*.swift Sources/NotifyPosix/*.swift Sources/NotifyPaths/*.swift Sources/NotifyProtocol/*.swift \
	Sources/NotifyProtocol/*.varlink Sources/notifyd-wiregen/*.swift Sources/NotifySupport/*.swift \
	Sources/NotifyCore/*.swift Sources/NotifyCore/Engine/*.swift Sources/NotifyService/*.swift Sources/NotifyVarlink/*.swift \
	Sources/NotifyConfig/*.swift)
FUZZ_SECONDS ?= 300

$(FUZZ_OUT)/fuzz-varlink $(FUZZ_OUT)/fuzz-config $(FUZZ_OUT)/fuzz-markup &: $(FUZZ_SOURCES)
	fuzz/build.sh $(FUZZ_OUT)

fuzz: $(FUZZ_OUT)/fuzz-varlink $(FUZZ_OUT)/fuzz-config $(FUZZ_OUT)/fuzz-markup
	fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_OUT)

fuzz-build: $(FUZZ_OUT)/fuzz-varlink $(FUZZ_OUT)/fuzz-config $(FUZZ_OUT)/fuzz-markup

fuzz-test: $(FUZZ_OUT)/fuzz-varlink $(FUZZ_OUT)/fuzz-config $(FUZZ_OUT)/fuzz-markup
	fuzz/run.sh 30 $(FUZZ_OUT)

fuzz-long: $(FUZZ_OUT)/fuzz-varlink $(FUZZ_OUT)/fuzz-config $(FUZZ_OUT)/fuzz-markup
	fuzz/run.sh 1800 $(FUZZ_OUT)

# The integration suite against daemons built with AddressSanitizer / ThreadSanitizer; each daemon
# writes its reports to .build/<dir>/reports, and any report fails the run. Part of `test`: they
# are the only sanitizer coverage of the daemon's @unchecked Sendable classes. Which modules run
# sanitized, and why: scripts/test.py, SANITIZED.
#
# Issue 37: mixed load with faults on a seeded schedule, then every rule checked from the recorded
# history (tests/soak). 3 minutes in `make test` on the ASan build (`make soak-test`); `make soak
# SECONDS=3600` for an hour; `SEED=n` replays a run. A failed run keeps its history and logs in
# .build/soak/SEED. Then the engine's simulation, thirty schedules for each second of soak (`make
# test` runs 2,000), from SEED or a random first seed, printed.
SECONDS ?= 180
SIMULATION_SEED := $(or $(SEED),$(shell od -An -N3 -tu4 /dev/urandom | tr -d ' '))
soak: deps build
	NOTIFYD_BIN=$(CURDIR)/$(BIN) $(PYTHON) tests/soak --seconds $(SECONDS) $(if $(SEED),--seed $(SEED))
	@echo "soak: the simulation, $$(( $(SECONDS) * 30 )) schedules from seed $(SIMULATION_SEED)"
	NOTIFYD_SIMULATION_SEED=$(SIMULATION_SEED) NOTIFYD_SIMULATION_SCHEDULES=$$(( $(SECONDS) * 30 )) \
		scripts/swiftpm.sh $(SWIFT) test --filter QueueSimulation

soak-test: deps
	SECONDS_OF_SOAK=$(SECONDS) $(PYTHON) scripts/test.py soak

asan-test: deps
	$(PYTHON) scripts/test.py asan-integration asan-alone

tsan-integration: deps
	$(PYTHON) scripts/test.py tsan-integration tsan-alone
