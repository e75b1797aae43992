# Codec fuzzing: each target runs FUZZTIME (default 10s). make fuzz-smoke
# runs every fuzz target of the repository once, one after the other
# (mk/fuzz.sh: a bare deadline of Go 1.26's fuzzing coordinator is run again).
FUZZTIME ?= 10s

.PHONY: fuzz-smoke
fuzz-smoke:
	@GO='$(GO)' FUZZTIME='$(FUZZTIME)' bash mk/fuzz.sh
