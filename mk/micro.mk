# The benchmark workbench (issue 3). The work is done by mk/micro.sh.
#
#   make micro      count instructions (mk/count.mk, about 6 min), wait
#                   for a quiet host (cmd/quiethost, up to 10 min), run the
#                   benchmarks COUNT rounds (about 2.5 min each), write
#                   reports/micro/latest.{txt,md,svg}, and compare with the
#                   baseline and with the peers (benchstat); it says how
#                   long it will take when it starts
#   make baseline   the same on a verified-quiet host, then rewrite
#                   reports/micro/baseline.json from the run (the only target
#                   that does; refuses QUIET=off and a narrowed BENCH)
#   make profile    cpu and memory profiles of BENCH in PKG to
#                   reports/profiles/, with `go tool pprof -top` of each
#   make micro-interleave BENCH=regex  time ratios on a shared host: ROUNDS
#                   rounds of the rows BENCH selects in PKG, one after the
#                   other in each round, GOMAXPROCS=PROCS; per message the
#                   median of each round's time ratio to impl=VS, with
#                   B/op and page-faults/op (raw run: reports/micro/interleave.txt)
#
# Variables:
#   QUIET=off       do not wait for a quiet host: record its readings anyway
#                   and stamp every report "host not verified quiet"
#   BENCH=regex     benchmarks to run (go test -bench), default all
#   COUNT=n         rounds, default 10; each round runs every benchmark once
#                   (-count 1), so implementations interleave round by round
#   PKGS=...        packages to benchmark; default ./bench/... and every other
#                   package with a Benchmark function
#   PKG=./bench     the single package make profile builds
#   QUIETHOST_FLAGS extra cmd/quiethost flags, e.g. -wait 30m -max-busy 5
#   ROUNDS=n PROCS=n VS=impl  make micro-interleave: rounds
#                   (10), GOMAXPROCS (1), the implementation ratios are to
#                   (floor); BENCHTIME (mk/diff.mk) is each row's -benchtime

QUIET           ?= on
BENCH           ?= .
COUNT           ?= 10
PKGS            ?=
PKG             ?= ./bench
QUIETHOST_FLAGS ?=
ROUNDS          ?= 10
PROCS           ?= 1
VS              ?= floor

MICRO_ENV = GO='$(GO)' QUIET='$(QUIET)' BENCH='$(BENCH)' COUNT='$(COUNT)' \
	PKGS='$(PKGS)' PKG='$(PKG)' QUIETHOST_FLAGS='$(QUIETHOST_FLAGS)' \
	ROUNDS='$(ROUNDS)' PROCS='$(PROCS)' VS='$(VS)' BENCHTIME='$(BENCHTIME)'

.PHONY: baseline profile micro-interleave

micro:
	@$(MICRO_ENV) bash mk/micro.sh micro

baseline:
	@$(MICRO_ENV) bash mk/micro.sh baseline

profile:
	@$(MICRO_ENV) bash mk/micro.sh profile

micro-interleave:
	@$(MICRO_ENV) BENCH='$(value BENCH)' bash mk/micro.sh interleave
