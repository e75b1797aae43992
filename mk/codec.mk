# Codec fuzzing: each target runs FUZZTIME (default 10s). make fuzz-smoke
# runs every fuzz target of the repository once, one after the other.
FUZZTIME ?= 10s

.PHONY: fuzz-smoke
fuzz-smoke:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done
