# Tessera — set-up, build, test, benchmark. `make run` and `make test` are the README's two commands.
SHELL := /bin/bash
SWIFT ?= $(shell command -v swift || echo /opt/swift/usr/bin/swift)
SAMPLE_DIR ?= $(CURDIR)/.sample

.PHONY: deps build release run lint test bench clean

## Debian packages: FFmpeg 5.1 libraries and CLI (tests and benchmarks use the CLI as an independent
## checker), ZeroMQ, Vulkan loader + Mesa lavapipe, glslc, SQLite.
deps:
	@Scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## The main job on the embedded default: `tessera run` starts a coordinator and local workers in one
## process and transcodes a generated 1080p30 H.264 + AAC sample to 720p (1280x720 preset) through the
## farm's protocol, segment by segment, then verifies the stitched file.
run: release
	@mkdir -p $(SAMPLE_DIR)
	@test -s $(SAMPLE_DIR)/sample.mp4 || ffmpeg -hide_banner -loglevel error -y \
	    -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=10 -f lavfi -i sine=frequency=440:duration=10 \
	    -c:v libx264 -preset veryfast -pix_fmt yuv420p -c:a aac -b:a 128k $(SAMPLE_DIR)/sample.mp4
	.build/release/tessera run $(SAMPLE_DIR)/sample.mp4 -o $(SAMPLE_DIR)/sample-720p.mp4 \
	    --preset 1280x720 --overwrite
	.build/release/tessera probe $(SAMPLE_DIR)/sample-720p.mp4

## Every test suite (swift-testing). Media is generated at run time. One test at a time: the suites
## start real coordinator/worker processes and encoders, and with 2 cores, parallel suites starved
## the cooperative pool that the async HTTP and store tests run on (timeouts, not bugs).
## The package's one style (.swift-format, STYLE.md): lines ≤ 120, 4-space indentation. Generated code
## (Sources/TesseraWire/Generated) is left as protoc-gen-swift writes it.
lint:
	$(SWIFT) format lint --strict $$(find Sources Tests Benchmarks Plugins -name '*.swift' -not -path '*/Generated/*') Package.swift

test: deps lint
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) Scripts/run-tests.sh

bench: release
	@Benchmarks/run.sh
	@Benchmarks/segments.sh
	@Benchmarks/farm.sh

clean:
	rm -rf .build $(SAMPLE_DIR) bench-out
