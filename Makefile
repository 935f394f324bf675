# notifyd — build, run and test. `make run` and `make test` work on a fresh Debian 12 machine.
SWIFT ?= swift
PYTHON ?= python3
CONFIGURATION ?= debug
BIN := .build/$(CONFIGURATION)
SWIFT_BUILD := $(SWIFT) build -c $(CONFIGURATION)

.PHONY: all deps build run test unit-test tsan-test integration-test lint format clean

all: build

deps:
	@scripts/deps.sh

build: deps
	$(SWIFT_BUILD)

# The daemon in the foreground on built-in defaults; Ctrl-C stops it.
run: build
	$(BIN)/notifyd

test: deps build unit-test tsan-test integration-test lint

unit-test:
	$(SWIFT) test

# The queue engine under Thread Sanitizer, in a build directory of its own.
tsan-test:
	$(SWIFT) test --sanitize=thread --scratch-path .build/tsan --filter NotifyCoreTests

integration-test: build
	NOTIFYD_BIN=$(CURDIR)/$(BIN) $(PYTHON) -m pytest -q tests

lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

clean:
	rm -rf .build
