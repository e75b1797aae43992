#!/usr/bin/env bash
# mk/micro.sh micro|baseline|profile|report|interleave — the workbench behind mk/micro.mk.
# make micro runs the instruction counts of mk/count.sh first, then the
# timed rounds; latest.md and latest.svg combine the two.
# Settings come from the environment (see mk/micro.mk): GO QUIET BENCH COUNT
# PKGS PKG QUIETHOST_FLAGS ROUNDS PROCS VS BENCHTIME.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
QUIET=${QUIET:-on}
BENCH=${BENCH:-.}
COUNT=${COUNT:-10}
PKG=${PKG:-./bench}
OUT=reports/micro
LATEST=$OUT/latest.txt
BASELINE=$OUT/baseline.json
STAMP="host not verified quiet"

say() { printf 'micro: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

# shellcheck source=mk/lib.sh
. mk/lib.sh

TMP=$(mktemp -d "${TMPDIR:-/tmp}/micro.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# bench_packages prints the packages with a Benchmark function, ./bench/...
# first: every package whose _test.go files declare one.
bench_packages() {
	local tests dirs
	tests=$($GO list -e -f '{{$d := .Dir}}{{range .TestGoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .XTestGoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}' ./... | grep -v '/node_modules/' || true)
	[ -n "$tests" ] || return 0
	dirs=$(grep -l '^func Benchmark' $tests | xargs -r -n1 dirname | sed "s|^$PWD|.|" | sort -u || true)
	grep -E '^\./bench(/|$)' <<<"$dirs" || true
	grep -vE '^\./bench(/|$)' <<<"$dirs" || true
}

# tools builds the workbench's own commands once, into $TMP.
tools() {
	$GO build -o "$TMP/" ./cmd/quiethost ./cmd/benchjson ./cmd/benchsummary
}

# run_rounds runs every benchmark COUNT times, one round at a time, into
# $LATEST: the header (goos, goarch, go version, commit, quiethost readings,
# unit metadata) once, then each round's go test output appended.
run_rounds() {
	local pkgs=$1 commit
	commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	[ -z "$(git status --porcelain 2>/dev/null)" ] || commit="$commit-dirty"
	mkdir -p "$OUT"
	{
		echo "goos: $($GO env GOOS)"
		echo "goarch: $($GO env GOARCH)"
		echo "go-version: $($GO env GOVERSION)"
		echo "commit: $commit"
		cat "$TMP/quiet.txt"
		# allocs/op repeats exactly; B/op does not (a growing buffer
		# lands in other size classes from run to run), so it is left
		# to benchstat's default assumptions.
		echo "Unit allocs/op assume=exact"
		echo
	} >"$LATEST.partial"
	local i start=$SECONDS
	for ((i = 1; i <= COUNT; i++)); do
		say "round $i/$COUNT ($((SECONDS - start))s)"
		# -p 1: no package builds or runs alongside a benchmark. go test's own
		# stderr (build errors) stays out of the report.
		if ! $GO test -p 1 -run '^$' -bench "$BENCH" -benchmem -count 1 $pkgs >>"$LATEST.partial" 2>"$TMP/round.err"; then
			cat "$TMP/round.err" >&2
			say "round $i failed; the run so far is in $LATEST.partial, its end:"
			tail -n 15 "$LATEST.partial" >&2
			exit 1
		fi
		cat "$TMP/round.err" >&2
	done
	mv "$LATEST.partial" "$LATEST"
	say "$(grep -c '^Benchmark' "$LATEST") results in $LATEST ($((SECONDS - start))s)"
}

# ignore_keys lists the config keys of the given files that differ from run
# to run without making results incomparable: benchstat -ignore.
ignore_keys() {
	{ grep -ohE '^(quiet[a-z0-9-]*|commit|go-version):' "$@" || true; } | tr -d : | sort -u | paste -sd, -
}

# report compares the run with the baseline and with fxamacker (benchstat)
# and writes the summary to $OUT/latest.md; everything is printed too.
report() {
	local ignore stamp="" unverified=() attach=()
	if ! grep -q '^quiet: verified' "$LATEST"; then
		stamp="$STAMP"$'\n\n'
		unverified=(-unverified)
	fi
	rm -f "$OUT/latest.vs-baseline.txt" "$OUT/latest.vs-fxamacker.txt"

	if [ -f "$BASELINE" ]; then
		"$TMP/benchjson" totext -o "$TMP/baseline.txt" "$BASELINE"
		ignore=$(ignore_keys "$LATEST" "$TMP/baseline.txt")
		{ printf '%s' "$stamp"; $GO tool benchstat -ignore "$ignore" baseline="$TMP/baseline.txt" latest="$LATEST"; } >"$OUT/latest.vs-baseline.txt"
		attach+=(-attach "benchstat: baseline vs latest=$OUT/latest.vs-baseline.txt")
	else
		say "no $BASELINE: comparison with the baseline skipped (make baseline records one)"
	fi
	if grep -qE '^Benchmark(Encode|Decode)/' "$LATEST"; then
		ignore=$(ignore_keys "$LATEST")
		{ printf '%s' "$stamp"; $GO tool benchstat -ignore "$ignore" -filter '.name:(Encode OR Decode)' -col '/impl@(fxamacker msgp codec zerocopy floor)' "$LATEST"; } >"$OUT/latest.vs-fxamacker.txt"
		attach+=(-attach "benchstat: codec, zerocopy, msgp and the floor vs fxamacker (-col /impl)=$OUT/latest.vs-fxamacker.txt")
	fi
	"$TMP/benchsummary" -baseline "$BASELINE" "${unverified[@]}" "${attach[@]}" -counts "$OUT/counts.txt" -svg "$OUT/latest.svg" -o "$OUT/latest.md" "$LATEST"
	for f in "$OUT/latest.vs-baseline.txt" "$OUT/latest.vs-fxamacker.txt"; do
		if [ -f "$f" ]; then
			echo "== $f"
			cat "$f"
			echo
		fi
	done
	echo "== $OUT/latest.md (benchstat sections above)"
	sed '/^<details>/,$d' "$OUT/latest.md"
}

# estimate says up front how long the run will take: the count tier
# (about 5-6 minutes for every benchmark), the wait for a quiet host (up to
# quiethost's -wait, 10 minutes unless QUIETHOST_FLAGS says otherwise; none
# with QUIET=off) and COUNT rounds of about 2.5 minutes each for every
# benchmark (measured on the 2-core host: 23 minutes for 10 rounds before
# msgp and the floor were added), less when BENCH narrows them.
estimate() {
	local wait="up to 10 min waiting for a quiet host (QUIET=off skips it), then "
	[ "$QUIET" != off ] || wait=""
	local rounds=$(((COUNT * 5 + 1) / 2))
	if [ "$BENCH" = . ]; then
		say "this run takes about $((rounds + 6)) min of measuring: ${wait}6 min of instruction counts and $COUNT rounds of about 2.5 min"
	else
		say "this run takes at most about $((rounds + 6)) min of measuring (less, as BENCH narrows it): ${wait}the instruction counts and $COUNT rounds"
	fi
}

micro() {
	local mode=$1 pkgs
	pkgs=${PKGS:-$(bench_packages | paste -sd' ' -)}
	if [ -z "$pkgs" ]; then
		say "the workbench has no benchmarks yet (no Benchmark function in ./bench/... or any other package); nothing to do"
		exit 0
	fi
	say "packages: $pkgs"
	estimate
	tools
	# Build the test binaries before waiting, so that a compile error shows
	# at once and no compile runs during a measured round.
	$GO test -run '^$' -bench '^$' $pkgs >/dev/null || die "the benchmarks do not build"
	# The deterministic tier first: it needs no quiet host, and its
	# instruction counts go into latest.md beside the times.
	if ! GO="$GO" BENCH="$BENCH" bash mk/count.sh count; then
		say "the instruction counts failed (above); latest.md will have none"
		rm -f "$OUT/counts.txt"
	fi
	check_quiet
	run_rounds "$pkgs"
	report
	if [ "$mode" = baseline ]; then
		grep -q '^quiet: verified' "$LATEST" || die "$LATEST is not from a verified-quiet host; baseline not written"
		# The run took a while: the host must still be quiet at its end.
		# PSI's avg10 still holds the run's own last ten seconds, so the
		# host gets a minute to show one quiet window: any other load
		# keeps it busy through that minute too.
		"$TMP/quiethost" -need 1 -wait 60s $QUIETHOST_FLAGS >/dev/null ||
			die "the host was not quiet at the end of the run; baseline not written (the run is in $LATEST)"
		"$TMP/benchjson" tojson -o "$BASELINE" "$LATEST"
		say "wrote $BASELINE ($(grep -c '^Benchmark' "$LATEST") runs); commit it with the change it measures"
	fi
}

baseline() {
	[ "$QUIET" != off ] || die "make baseline never runs on a host that is not verified quiet: drop QUIET=off"
	[ "$BENCH" = . ] || die "a baseline covers every benchmark: drop BENCH=$BENCH"
	[ "$COUNT" -ge 10 ] || say "warning: COUNT=$COUNT; benchstat needs about 10 runs for significance"
	micro baseline
}

profile() {
	[ -d "$PKG" ] || { say "no package $PKG yet: nothing to profile (PKG=dir picks another)"; exit 0; }
	local dir=$PWD/reports/profiles
	mkdir -p "$dir"
	say "profiling -bench '$BENCH' in $PKG into reports/profiles/"
	$GO test -run '^$' -bench "$BENCH" -benchmem -count 1 \
		-cpuprofile "$dir/cpu.prof" -memprofile "$dir/mem.prof" -o "$dir/bench.test" "$PKG" | tee "$dir/bench.txt"
	grep -q '^Benchmark' "$dir/bench.txt" || { say "no benchmark matched -bench '$BENCH' in $PKG"; exit 1; }
	echo "== go tool pprof -top cpu.prof"
	$GO tool pprof -top -nodecount=30 "$dir/bench.test" "$dir/cpu.prof"
	echo
	echo "== go tool pprof -top -sample_index=alloc_space mem.prof"
	$GO tool pprof -top -nodecount=30 -sample_index=alloc_space "$dir/bench.test" "$dir/mem.prof"
}

# interleave times the rows BENCH selects of PKG in ROUNDS rounds, each a
# run of every selected row once (-count 1, BENCHTIME each), so that the
# implementations of a message alternate through the run, under
# GOMAXPROCS=PROCS. On a shared host only ratios within one such run are
# valid: each round's time of a row is divided by the time of the VS
# implementation of the same message in the same round, and the median
# of those ratios is reported with the median time, B/op and
# page-faults/op. The raw run goes to $OUT/interleave.txt.
interleave() {
	[ "$BENCH" != . ] || die "name the rows to compare: make micro-interleave BENCH='Decode/impl=(codec|floor)/msg=response_snapshot_500\$'"
	local rounds=${ROUNDS:-10} procs=${PROCS:-1} base=${VS:-floor} benchtime=${BENCHTIME:-0.5s} i dir
	dir=$(cd "$PKG" && pwd)
	$GO test -c -o "$TMP/bench.test" "$PKG" || die "the benchmarks of $PKG do not build"
	mkdir -p "$OUT"
	say "$rounds rounds of -bench '$BENCH' in $PKG, GOMAXPROCS=$procs, -benchtime $benchtime each; ratios to impl=$base"
	: >"$OUT/interleave.txt"
	for ((i = 1; i <= rounds; i++)); do
		echo "round: $i" >>"$OUT/interleave.txt"
		(cd "$dir" && GOMAXPROCS=$procs "$TMP/bench.test" -test.run '^$' -test.bench "$BENCH" -test.benchmem -test.count 1 -test.benchtime "$benchtime") >>"$OUT/interleave.txt" ||
			die "round $i failed: $OUT/interleave.txt"
	done
	interleave_table "$base" <"$OUT/interleave.txt"
}

# interleave_table reads an interleaved run (round: lines between go test
# outputs) and prints per message and implementation the median time/op,
# the median of the per-round ratios to implementation $1, their range,
# B/op and page-faults/op.
interleave_table() {
	awk -v base="$1" '
	function median(list,    n, v, i, j, t) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
		lo = v[1]; hi = v[n]
		return n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
	}
	/^round: / { round = $2; next }
	/^Benchmark/ {
		name = $1; sub(/-[0-9]+$/, "", name)
		if (!match(name, /impl=[^\/]+/)) next
		impl = substr(name, RSTART + 5, RLENGTH - 5)
		msg = name; sub(/impl=[^\/]+/, "impl=*", msg)
		ns[round, msg, impl] = $3
		for (i = 4; i < NF; i++) {
			if ($(i+1) == "B/op") bytes[msg, impl] = $i
			if ($(i+1) == "page-faults/op") faults[msg, impl] = $i
		}
		if (!((msg, impl) in seen)) { seen[msg, impl] = 1; order[++rows] = msg SUBSEP impl }
		if (!(round in rseen)) { rseen[round] = 1; rlist[++nr] = round }
	}
	END {
		printf "%-55s %-12s %12s %10s %15s %10s %14s\n", "message", "impl", "time/op (ns)", "x " base, "range", "B/op", "page-faults/op"
		for (k = 1; k <= rows; k++) {
			split(order[k], p, SUBSEP); msg = p[1]; impl = p[2]
			t = ""; r = ""
			for (q = 1; q <= nr; q++) {
				if (!((rlist[q], msg, impl) in ns)) continue
				t = t " " ns[rlist[q], msg, impl]
				if ((rlist[q], msg, base) in ns) r = r " " ns[rlist[q], msg, impl] / ns[rlist[q], msg, base]
			}
			mt = median(t)
			if (r == "") { mr = "-"; rg = "-" } else { mr = sprintf("%.2f", median(r)); rg = sprintf("%.2f-%.2f", lo, hi) }
			printf "%-55s %-12s %12.0f %10s %15s %10s %14s\n", msg, impl, mt, mr, rg, bytes[msg, impl], ((msg, impl) in faults) ? faults[msg, impl] : "-"
		}
	}'
}

case ${1:-} in
micro) micro micro ;;
interleave) interleave ;;
baseline) baseline ;;
profile) profile ;;
report) tools && report ;; # redo the comparisons and summary of $LATEST
*) die "usage: mk/micro.sh micro|baseline|profile|report|interleave" ;;
esac
