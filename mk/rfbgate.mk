# rfbgate / cmd/glass: noVNC for the /glass/ viewer page (vendored into
# rfbgate/internal/novnc and embedded in glass) and, as npm's package in
# node_modules, for the tests that compare with it and the benchmarks.
NOVNC_VERSION ?= 1.7.0
NOVNC_DIR     := node_modules/@novnc/novnc

# make test installs noVNC through mk/peers.sh; the rule below serves
# rfbgate-test and rfbgate-bytes.
$(NOVNC_DIR)/core/rfb.js:
	npm install --no-save --no-audit --no-fund --silent @novnc/novnc@$(NOVNC_VERSION)

.PHONY: glass glass-demo novnc-vendor rfbgate-test rfbgate-bench rfbgate-scale rfbgate-bytes relay-check

# The relay's write path at line speed, as a count (bench/relaysyscalls_test.go):
# glass's I/O system calls per MiB relayed byte for byte to a reader that
# keeps up, counted by perf; fails over the bound. CI runs it.
relay-check:
	$(GO) test -count=1 -run '^TestRelaySyscalls$$' -v ./bench/

# Fetch noVNC $(NOVNC_VERSION) from the npm registry and write the files the
# viewer page needs, with noVNC's licences, into rfbgate/internal/novnc
# (commit them): mk/novnc-vendor.sh.
novnc-vendor:
	NOVNC_VERSION=$(NOVNC_VERSION) bash mk/novnc-vendor.sh

# Build the relay program into bin/. Pure Go by default, with no C
# library; GLASS_TAGS=turbojpeg builds the JPEG that glass encodes itself
# with libjpeg-turbo through cgo instead (internal/jpegenc; needs
# libturbojpeg0-dev to build and libturbojpeg0 to run).
GLASS_TAGS ?=
glass:
	$(GO) build $(if $(GLASS_TAGS),-tags '$(GLASS_TAGS)') -o bin/glass ./cmd/glass

# Run the rfbgate tests (real peers: Xvnc, xinput, Chromium, websockify).
rfbgate-test: $(NOVNC_DIR)/core/rfb.js
	$(GO) test -count=1 ./rfbgate/ ./cmd/glass/

# The gate and relay benchmarks only (key-to-pixel latency included), and
# the server-stream framer's own.
rfbgate-bench:
	$(GO) test -run '^$$' -bench 'BenchmarkGate|BenchmarkRelay|BenchmarkKeyToPixel' -benchmem ./bench/
	$(GO) test -run '^$$' -bench 'BenchmarkServerFilter' -benchmem ./rfbgate/

# The scale figures (issue 34): one real Xvnc (1024x768) with the xpaint
# damage generator, glass (its own process) in its shared and its
# -per-viewer-upstream modes in the same run, and 1, 10, 50 and 200
# rfbviewer viewers decoding everything: Xvnc and glass CPU-s, bytes and
# updates per viewer, late joiners' first full frame, one viewer paused.
# Some 5-8 minutes; prints the table and writes it to
# reports/rfbgate/scale.md (REPORT=file elsewhere). GLASS_BIN=path runs
# that glass binary instead of building ./cmd/glass; SCALE_VIEWERS=1,10
# SCALE_WINDOW=10s SCALE_JOINERS=30 SCALE_PAUSE=10s change the sizes.
rfbgate-scale:
	RFBGATE_SCALE=1 SCALE_REPORT="$(abspath $(or $(REPORT),reports/rfbgate/scale.md))" \
		$(GO) test -run '^$$' -bench '^BenchmarkRelayScale$$' -benchtime 1x -timeout 30m ./bench/

# What a viewer costs, glass against websockify, on the real workload
# (internal/workload in a real Xvnc, noVNC in headless Chromium): bytes and
# updates per second on loopback, then key to pixel on a phone's link
# (2 Mbit/s down, 40 ms each way). Some 5 minutes; writes the figures of
# the run to reports/rfbgate/viewer-bytes.md (REPORT=file elsewhere;
# GLASS_BIN=path measures that glass; NOTE=text says what was measured).
rfbgate-bytes: $(NOVNC_DIR)/core/rfb.js
	GO="$(GO)" mk/rfbgate-bytes.sh

# A trial: Xvnc on display $(GLASS_DISPLAY) (loopback only, a fresh random
# password) behind glass, which reads Xvnc's own rfbauth file; open
# http://127.0.0.1:7900/
GLASS_DISPLAY ?= 77
glass-demo: glass
	@umask 077; d=$$(mktemp -d); port=$$((5900 + $(GLASS_DISPLAY))); \
	head -c 12 /dev/urandom | base64 | tr -d '/+=' | vncpasswd -f > $$d/rfbauth; \
	Xvnc :$(GLASS_DISPLAY) -localhost yes -rfbport $$port -rfbauth $$d/rfbauth -geometry 1280x800 -depth 24 -retro & xpid=$$!; \
	trap 'kill $$xpid; rm -rf $$d' EXIT INT TERM; sleep 1; \
	echo "open http://127.0.0.1:7900/"; \
	bin/glass -computer demo=127.0.0.1:$$port -password-file demo=$$d/rfbauth
