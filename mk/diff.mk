# Two revisions compared in one run on one host (issue 23): the table and
# the verdict a reviewer pastes into a pull request. The work is done by
# mk/diff.sh and cmd/benchsummary diff; reports/micro/README.md documents it.
#
#   make micro-diff BASE=<rev> [HEAD=<rev>] [BENCH=regex] [COUNT=n]
#                   [QUIET=off] [THRESHOLD=2] [BENCHTIME=0.5s]
#       builds the bench test binaries of BASE and of HEAD (default: the
#       working tree, uncommitted changes included) in git worktrees (the
#       base's cached by commit and Go version under ~/.cache/wirebench/
#       micro-diff), counts both (make micro-count's tier, both at once),
#       waits for a quiet host as make micro does (QUIET=off records and
#       stamps), times them interleaved base, head, base, head … COUNT
#       rounds (default 10) of BENCHTIME a benchmark, and writes
#       reports/micro/diff.{txt,md,svg}. Exit 1 when a row of ours grew more
#       than THRESHOLD percent in instructions/op or at all in allocs/op or B/op.
#       BENCH defaults to every counted benchmark (Encode, Decode, Frame,
#       Gate, Session): about 30 min with the 10 rounds; narrowed to our
#       codec's decodes (BENCH='^BenchmarkDecode$/^impl=codec$': make passes BENCH unexpanded) about 4-6.
#   make test-micro-diff  the end-to-end tests of micro-diff alone (a few
#       minutes; make test runs them too)

THRESHOLD ?= 2
BENCHTIME ?= 0.5s
BASE      ?=
HEAD      ?=

.PHONY: micro-diff test-micro-diff

micro-diff:
	@GO='$(GO)' BASE='$(BASE)' HEAD='$(HEAD)' BENCH='$(value BENCH)' COUNT='$(COUNT)' QUIET='$(QUIET)' \
		THRESHOLD='$(THRESHOLD)' BENCHTIME='$(BENCHTIME)' QUIETHOST_FLAGS='$(QUIETHOST_FLAGS)' bash mk/diff.sh

test-micro-diff:
	$(GO) test -count=1 -run 'TestMicroDiff' -v ./cmd/benchsummary/
