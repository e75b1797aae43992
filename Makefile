# wirebench: the codec, the relay and the workbench that measures them.
#
#   make micro   the benchmark workbench (waits for a quiet host)
#   make test    vet, gofmt and every test
#
# Further targets live in mk/*.mk, one file per area.

GO        ?= go
TESTFLAGS ?= -timeout 14m
# Targets that must run before the tests (mk/*.mk append to it).
TEST_DEPS :=

.PHONY: all test vet fmt-check micro golden

all: test

-include mk/*.mk

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: $(TEST_DEPS) vet fmt-check
	$(GO) test $(TESTFLAGS) ./...
	@echo "== checked mode: released frame buffers poisoned (make test-poison)"
	$(GO) test $(TESTFLAGS) -tags wirebench_poison ./zerocopy/ ./codec/

golden:
	UPDATE_GOLDEN=1 $(GO) test ./golden/ -run TestGolden -count=1
