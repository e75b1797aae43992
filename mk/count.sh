#!/usr/bin/env bash
# mk/count.sh count|check|baseline|repro — the deterministic tier behind
# mk/count.mk. Settings come from the environment: GO, BENCH.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
BENCH=${BENCH:-.}
OUT=reports/micro
COUNTS=$OUT/counts.txt
BASELINE=$OUT/baseline-counts.txt

say() { printf 'micro-count: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

# shellcheck source=mk/lib.sh
. mk/lib.sh
# The benchmarks counted by default: mk/lib.sh's COUNTED, every one timed
# through support.CountAllocs (Relay moves bytes through sockets and is
# timed only).
[ "$BENCH" != . ] || BENCH=$COUNTED

TMP=$(mktemp -d "${TMPDIR:-/tmp}/count.XXXXXX")
HOGS=() # the load of make micro-count-repro, stopped on any exit
trap 'if [ ${#HOGS[@]} -gt 0 ]; then kill "${HOGS[@]}" 2>/dev/null || true; fi; rm -rf "$TMP"' EXIT

# build builds cmd/benchcount and the bench test binary into $TMP.
build() {
	$GO build -o "$TMP/" ./cmd/benchcount
	$GO test -c -o "$TMP/bench.test" ./bench || die "the benchmarks do not build"
}

commit() {
	local c
	c=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	[ -z "$(git status --porcelain -- . ':!reports' 2>/dev/null)" ] || c="$c-dirty"
	echo "$c"
}

# count_into counts BENCH into the file $1.
count_into() {
	local start=$SECONDS list=()
	# A narrowed run lists its rows first (each benchmark once at b.N=1,
	# seconds), so that the classes it has no row in run no valgrind process.
	if [ "$BENCH" != "$COUNTED" ] && (cd "$TMP" && ./bench.test -test.run '^$' -test.bench "$BENCH" -test.benchtime 1x -test.count 1) >"$TMP/list.txt" 2>&1; then
		list=(-list "$TMP/list.txt")
	fi
	"$TMP/benchcount" run -bin "$TMP/bench.test" -bench "$BENCH" -commit "$(commit)" "${list[@]}" -o "$1.partial"
	mv "$1.partial" "$1"
	say "$(grep -c '^Benchmark' "$1") rows in $1 ($((SECONDS - start))s)"
}

count() {
	need_valgrind
	build
	mkdir -p "$OUT"
	say "counting -bench '$BENCH' under valgrind (callgrind): about 5-6 minutes for every benchmark on a 2-core host (the cache simulation of est-cycles/op)"
	count_into "$COUNTS"
}

check() {
	[ -f "$BASELINE" ] || die "no $BASELINE: make baseline-counts records one"
	count
	"$TMP/benchcount" check -baseline "$BASELINE" -recount "$TMP/bench.test" "$COUNTS"
}

baseline() {
	[ "$BENCH" = "$COUNTED" ] || die "a counts baseline covers every benchmark: drop BENCH=$BENCH"
	count
	cp "$COUNTS" "$BASELINE"
	say "wrote $BASELINE; commit it with the change it measures"
}

repro() {
	need_valgrind
	build
	mkdir -p "$OUT"
	say "two counts of -bench '$BENCH', the second under load: about 8-11 minutes"
	count_into "$TMP/quiet.txt"
	say "second count while two 'yes > /dev/null' load both cores"
	yes >/dev/null &
	HOGS+=($!)
	yes >/dev/null &
	HOGS+=($!)
	count_into "$TMP/loaded.txt"
	kill "${HOGS[@]}"
	HOGS=()
	cp "$TMP/quiet.txt" "$OUT/counts-repro-a.txt"
	cp "$TMP/loaded.txt" "$OUT/counts-repro-b.txt"
	"$TMP/benchcount" same "$TMP/quiet.txt" "$TMP/loaded.txt"
}

case ${1:-} in
count) count ;;
check) check ;;
baseline) baseline ;;
repro) repro ;;
*) die "usage: mk/count.sh count|check|baseline|repro" ;;
esac
