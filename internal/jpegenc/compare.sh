#!/usr/bin/env bash
# compare.sh — the two backends of jpegenc side by side, with image/jpeg
# as the reference:
#
#   1. time: BenchmarkEncode of each backend (a test binary each, built
#      with and without the tag turbojpeg) and BenchmarkImageJPEG,
#      interleaved round by round (-count 1 each, COUNT rounds), compared
#      by benchstat (MP/s, B/picture, allocs/op);
#   2. instructions: each backend's Append under valgrind's callgrind
#      (--toggle-collect: only inside Append, libjpeg-turbo's C included),
#      for each benchmark case, taken as (I(6) - I(1)) / 5 from runs of
#      b.N = 1 and 6 (the least of two of each), so that the first call's
#      set-up cancels out. The runtime runs as the workbench's counts do
#      (bench/count: one P, no collection, no asynchronous preemption, the
#      baseline x86-64 paths).
#
# Usage: bash internal/jpegenc/compare.sh
# Environment: COUNT (rounds, 5), BENCH (a regexp of cases, default all:
# content=(text|photo|ui)/size=(64x64|256x256|1280x720)/q=(15|41|79)),
# OUT (the directory for the raw results, default a new temporary one),
# COUNTS=off skips the instruction counts. Needs libturbojpeg0-dev and
# valgrind. Some 12 minutes of timing and 20 of counting on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
COUNT=${COUNT:-5}
BENCH=${BENCH:-.}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/jpegenc.XXXXXX")}
mkdir -p "$OUT"
say() { printf 'jpegenc compare: %s\n' "$*" >&2; }

$GO test -c -o "$OUT/go.test" ./internal/jpegenc
$GO test -tags turbojpeg -c -o "$OUT/turbojpeg.test" ./internal/jpegenc
rm -f "$OUT"/{go,turbojpeg,imagejpeg}.txt
for round in $(seq "$COUNT"); do
	say "round $round of $COUNT"
	for b in go turbojpeg; do
		"$OUT/$b.test" -test.run '^$' -test.bench "^BenchmarkEncode\$/$BENCH" -test.count 1 >>"$OUT/$b.txt"
	done
	# image/jpeg under BenchmarkEncode's names, so that benchstat lines it up
	"$OUT/go.test" -test.run '^$' -test.bench "^BenchmarkImageJPEG\$/$BENCH" -test.count 1 |
		sed 's/^BenchmarkImageJPEG/BenchmarkEncode/' >>"$OUT/imagejpeg.txt"
done
$GO tool benchstat image/jpeg="$OUT/imagejpeg.txt" go="$OUT/go.txt" turbojpeg="$OUT/turbojpeg.txt" | tee "$OUT/benchstat.txt"

[ "${COUNTS:-on}" != off ] || exit 0
command -v valgrind >/dev/null || { say "no valgrind: apt-get install -y valgrind"; exit 2; }
# ir1 BIN CASE N: the instructions inside Append over a run of b.N = N (a
# run that fails, as valgrind now and then does on the Go runtime's
# signals, is run again, up to three times)
ir1() {
	local f="$OUT/cg.$$.$RANDOM" try
	for try in 1 2 3; do
		if env GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1,cpu.all=off,memprofilerate=0 \
			valgrind --tool=callgrind --callgrind-out-file="$f" \
			--toggle-collect='github.com/wirebench/wirebench/internal/jpegenc.(*Encoder).Append' \
			"$1" -test.run '^$' -test.bench "^BenchmarkEncode\$/$2\$" -test.benchtime "$3x" >"$f.log" 2>&1 &&
			grep -q '^PASS' "$f.log"; then
			callgrind_annotate "$f" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
			rm -f "$f" "$f.log"
			return
		fi
		say "valgrind failed on $2 (b.N=$3, try $try): $(grep -m1 -iE 'assert|error|fail' "$f.log" || tail -1 "$f.log")"
		rm -f "$f"
	done
	rm -f "$f.log"
	return 1
}
# ir BIN CASE N: the least of two counts of ir1. A cgo call that takes
# long (valgrind is slow) can lose its P to the runtime's monitor and run
# the scheduler on its way back, inside Append: one count in some fifty
# of libjpeg-turbo's 1280x720 ones came out 40 % high.
ir() {
	local a b
	a=$(ir1 "$@") && b=$(ir1 "$@") || return 1
	echo $((a < b ? a : b))
}
cases=$("$OUT/go.test" -test.run '^$' -test.bench "^BenchmarkEncode\$/$BENCH" -test.benchtime 1x |
	awk '/^BenchmarkEncode\// { sub(/^BenchmarkEncode\//, "", $1); sub(/-[0-9]+$/, "", $1); print $1 }')
say "counting instructions of $(wc -w <<<"$cases") cases for each backend"
printf '%-36s %23s %23s %8s\n' "instructions a picture" go turbojpeg go/turbo | tee "$OUT/counts.txt"
for c in $cases; do
	px=$(sed -E 's/.*size=([0-9]+)x([0-9]+).*/\1 \2/' <<<"$c" | awk '{ print $1 * $2 }')
	declare -A per=()
	for b in go turbojpeg; do
		one=$(ir "$OUT/$b.test" "$c" 1) && six=$(ir "$OUT/$b.test" "$c" 6) || exit 2
		per[$b]=$(((six - one) / 5))
	done
	awk -v c="$c" -v g="${per[go]}" -v t="${per[turbojpeg]}" -v px="$px" \
		'BEGIN { printf "%-36s %10d (%5.1f/px) %10d (%5.1f/px) %8.2f\n", c, g, g / px, t, t / px, g / t }' |
		tee -a "$OUT/counts.txt"
done
say "raw results in $OUT"
