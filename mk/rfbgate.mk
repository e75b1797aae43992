# rfbgate / cmd/glass: noVNC for the browser test and the /glass/ viewer page.
NOVNC_VERSION ?= 1.7.0
NOVNC_DIR     := node_modules/@novnc/novnc

TEST_DEPS += $(NOVNC_DIR)/core/rfb.js

$(NOVNC_DIR)/core/rfb.js:
	npm install --no-save --no-audit --no-fund --silent @novnc/novnc@$(NOVNC_VERSION)

.PHONY: glass glass-run rfbgate-test rfbgate-bench

# Build the relay program into bin/.
glass:
	$(GO) build -o bin/glass ./cmd/glass

# Run the rfbgate tests (real peers: Xvnc, xinput, Chromium, websockify).
rfbgate-test: $(NOVNC_DIR)/core/rfb.js
	$(GO) test -count=1 ./rfbgate/ ./cmd/glass/

# The gate and relay benchmarks only.
rfbgate-bench:
	$(GO) test -run '^$$' -bench 'BenchmarkGate|BenchmarkRelay' -benchmem ./bench/
