# wirebench: the codec, the relay and the workbench that measures them.
#
#   make micro   the benchmark workbench (waits for a quiet host)
#   make test    vet, gofmt, the module check, the real peers, and every
#                test: plain, checked (poisoned buffers) and under -race
#
# Further targets live in mk/*.mk, one file per area.

GO        ?= go
TESTFLAGS ?= -timeout 14m
# Targets that must run before the tests (mk/*.mk append to it).
TEST_DEPS :=

# PEERS=off skips the real-peer tests (and their install); the run then ends
# with one line naming every test that skipped.
PEERS     ?= on

.PHONY: all test vet fmt-check tidy-check staticcheck peers micro golden

all: test

-include mk/*.mk

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# staticcheck (honnef.co/go/tools), its version pinned by go.mod's tool
# directive: every package, tests included.
staticcheck:
	$(GO) tool staticcheck ./...

# go.mod and go.sum must be what `go mod tidy` would write.
tidy-check:
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

# The real peers of the relay's tests (mk/peers.sh): installed when missing
# and we are root, otherwise the command to run is printed.
peers:
	@PEERS='$(PEERS)' bash mk/peers.sh

test: vet fmt-check tidy-check staticcheck peers $(TEST_DEPS)
	@GO='$(GO)' TESTFLAGS='$(TESTFLAGS)' PEERS='$(PEERS)' bash mk/test.sh

golden:
	UPDATE_GOLDEN=1 $(GO) test ./golden/ -run TestGolden -count=1

# Every commit since mk/commits.sh was added keeps CONTRIBUTING.md's form
# (subject "pkg: what changed" in at most 72 characters; a body for a change
# of more than 50 lines). CI runs it.
.PHONY: commit-check
commit-check:
	@bash mk/commits.sh
