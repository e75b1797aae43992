# The deterministic tier of the workbench (issue 11): instruction counts of
# each benchmark's timed loop under valgrind. The work is done by
# mk/count.sh and cmd/benchcount; bench/count documents the method.
#
#   make micro-count      count every Encode, Decode, Frame, Gate and Session
#                         benchmark (BENCH=regex narrows, as in make micro)
#                         into reports/micro/counts.txt: instructions/op,
#                         est-cycles/op (callgrind's cache simulation and the
#                         collector's share of the bytes, see bench/count),
#                         allocs/op and B/op per benchmark and implementation.
#                         About 5-6 minutes on a 2-core host; no quiet host needed.
#   make micro-check      make micro-count, then compare with
#                         reports/micro/baseline-counts.txt: exit 1, with a
#                         table, on a row whose instructions/op or
#                         est-cycles/op grew > 2 % or whose allocs/op or B/op
#                         grew at all (CI runs it)
#   make baseline-counts  make micro-count of every benchmark, then store it
#                         as reports/micro/baseline-counts.txt (commit it
#                         with the change it measures)
#   make micro-count-repro  two counts, the second while two `yes > /dev/null`
#                         load both cores; exit 1 unless every row agrees
#                         within 0.5 % (about 8-11 minutes: the loaded count is slow)
#
# valgrind is installed with apt-get when missing.

COUNT_ENV = GO='$(GO)' BENCH='$(value BENCH)'

.PHONY: micro-count micro-check baseline-counts micro-count-repro

micro-count:
	@$(COUNT_ENV) bash mk/count.sh count

micro-check:
	@$(COUNT_ENV) bash mk/count.sh check

baseline-counts:
	@$(COUNT_ENV) bash mk/count.sh baseline

micro-count-repro:
	@$(COUNT_ENV) bash mk/count.sh repro
