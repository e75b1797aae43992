#!/usr/bin/env bash
# mk/diff.sh — make micro-diff (mk/diff.mk): two revisions compared in one
# run on one host.
#
#   1. build: the bench test binary of BASE and of HEAD (the working tree
#      when HEAD is empty), each in a git worktree of its own with
#      -trimpath; a committed revision's binary is cached by commit and Go
#      version under $MICRO_DIFF_CACHE (default: the user's cache folder,
#      wirebench/micro-diff), so a second diff against a base builds only
#      the head;
#   2. count: both binaries under valgrind with cmd/benchcount (the same
#      settings and classes), the two at once: a count does not depend on
#      the host's load;
#   3. time: after the quiet-host check of make micro (QUIET=off records
#      and stamps instead), COUNT rounds, each running base then head once
#      (-test.count 1, BENCHTIME each);
#   4. report: benchstat base=… head=… and cmd/benchsummary diff write
#      reports/micro/diff.{txt,md,svg}; the exit status is the verdict's.
#
# Settings from the environment (see mk/diff.mk): GO BASE HEAD BENCH COUNT
# QUIET THRESHOLD BENCHTIME QUIETHOST_FLAGS. MICRO_DIFF_REPO names the
# repository whose revisions are compared (default: this one; the tests
# point it at a scratch clone); the tools are built from this tree.
# Exit status: 0 when the head passes, 1 when a row failed the gate (or the
# host never became quiet), 2 on any other error.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=$PWD

GO=${GO:-go}
BASE=${BASE:-}
HEAD=${HEAD:-}
COUNT=${COUNT:-10}
QUIET=${QUIET:-on}
THRESHOLD=${THRESHOLD:-2}
BENCHTIME=${BENCHTIME:-0.5s}
QUIETHOST_FLAGS=${QUIETHOST_FLAGS:-}
BENCH=${BENCH:-.}
STAMP="host not verified quiet"
SAY_PREFIX=micro-diff
START=$SECONDS

say() { printf 'micro-diff: %s\n' "$*" >&2; }
die() {
	say "$*"
	exit 2
}
# shellcheck source=mk/lib.sh
. mk/lib.sh
# The benchmarks counted by default (mk/lib.sh's COUNTED, as mk/count.sh).
[ "$BENCH" != . ] || BENCH=$COUNTED

[ -n "$BASE" ] || die "BASE is required: make micro-diff BASE=<revision> [HEAD=<revision>] (e.g. BASE=\$(git merge-base origin/main HEAD))"
[[ $COUNT =~ ^[1-9][0-9]*$ ]] || die "COUNT=$COUNT: want a number of rounds, 1 or more (benchstat wants 10 for its p-values)"
REPO=$(cd "${MICRO_DIFF_REPO:-$TOOLS}" && git rev-parse --show-toplevel 2>/dev/null) ||
	die "${MICRO_DIFF_REPO:-$TOOLS} is not in a git repository: micro-diff compares git revisions"
OUT=$REPO/reports/micro
CACHE=${MICRO_DIFF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wirebench/micro-diff}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/micro-diff.XXXXXX")
WORKTREES=()
cleanup() {
	local wt
	# The counts of an interrupted run (our own background jobs).
	jobs -p | xargs -r kill 2>/dev/null || true
	for wt in "${WORKTREES[@]}"; do
		git -C "$REPO" worktree remove --force "$wt" >/dev/null 2>&1 || true
	done
	git -C "$REPO" worktree prune >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT

elapsed() { printf '%dm%02ds' $(((SECONDS - START) / 60)) $(((SECONDS - START) % 60)); }

# stage announces a stage with the time spent so far.
stage() { say "[$(elapsed)] $*"; }

# commit_of prints the full commit of the revision $1, or dies naming it.
commit_of() {
	git -C "$REPO" rev-parse --verify --quiet "$1^{commit}" ||
		die "$2=$1: no such revision in $REPO (a shallow clone? git fetch --unshallow, or fetch the revision)"
}

# check_layout dies unless the tree $1 (revision $2) has the bench package
# and the counting harness this diff drives: ./bench with benchmarks timed
# through the support package's CountAllocs, which reads WIREBENCH_COUNT_ONLY.
check_layout() {
	local dir=$1 name=$2
	[ -d "$dir/bench" ] && compgen -G "$dir/bench/*_test.go" >/dev/null ||
		die "$name has another bench layout: no ./bench package with benchmarks (micro-diff compares revisions that have it)"
	grep -rqs --include='*.go' WIREBENCH_COUNT_ONLY "$dir/bench" "$dir/internal" ||
		die "$name has another bench layout: its benchmarks lack the counting harness (support.CountAllocs and WIREBENCH_COUNT_ONLY, added with make micro-count); micro-diff needs it on both sides"
}

# build_in builds the bench test binary of the tree $1 (revision $2) to $3.
build_in() {
	local dir=$1 name=$2 dest=$3 log
	log=$TMP/build.$RANDOM.log
	mkdir -p "$(dirname "$dest")"
	# Written aside and renamed: a cached binary is always whole, even
	# with two diffs building the same base at once.
	if ! (cd "$dir" && $GO test -c -trimpath -o "$dest.partial.$$" ./bench) >"$log" 2>&1; then
		tail -n 25 "$log" >&2
		rm -f "$dest.partial.$$"
		die "$name does not build: go test -c ./bench failed in its tree (above)"
	fi
	mv "$dest.partial.$$" "$dest"
}

# binary_of sets BIN to the test binary of a committed revision: from the
# cache when built before (same commit, same Go), otherwise built in a
# worktree. $1 the commit, $2 how to name it in messages.
binary_of() {
	local commit=$1 name=$2 key bin wt
	key=$commit-$($GO env GOVERSION)-$($GO env GOOS)-$($GO env GOARCH)
	bin=$CACHE/$key/bench.test
	if [ -x "$bin" ]; then
		say "$name: cached binary $bin"
	else
		wt=$TMP/wt-${commit:0:12}
		git -C "$REPO" worktree add --detach --quiet "$wt" "$commit" >/dev/null 2>&1 ||
			die "$name: could not check it out in a worktree (git worktree add)"
		WORKTREES+=("$wt")
		check_layout "$wt" "$name"
		say "$name: building in a worktree"
		build_in "$wt" "$name" "$bin"
		git -C "$REPO" worktree remove --force "$wt" >/dev/null 2>&1 || true
	fi
	BIN=$bin
}

# count_side counts $BENCH of binary $1 into $2, its log lines prefixed $3.
count_side() {
	"$TMP/benchcount" run -bin "$1" -bench "$BENCH" -commit "$4" -list "$TMP/list.txt" -o "$2" 2>&1 | sed -u "s/^/micro-diff:   $3 /" >&2
	return "${PIPESTATUS[0]}"
}

# list_rows runs the benchmarks of binary $1 once each (b.N=1, no count)
# into $2; $3 names it.
list_rows() {
	(cd "$TMP/run" && "$1" -test.run '^$' -test.bench "$BENCH" -test.benchtime 1x -test.count 1) >"$2" 2>&1 ||
		{
			tail -n 15 "$2" >&2
			die "$3: its benchmarks fail (above)"
		}
}

# times_header writes the config lines of a timings file.
times_header() {
	echo "goos: $($GO env GOOS)"
	echo "goarch: $($GO env GOARCH)"
	echo "go-version: $($GO env GOVERSION)"
	cat "$TMP/quiet.txt"
	echo "Unit allocs/op assume=exact"
	echo
}

# time_round runs one timed round of binary $1, appending to $2; $3 names it.
time_round() {
	if ! (cd "$TMP/run" && "$1" -test.run '^$' -test.bench "$BENCH" -test.benchmem -test.count 1 -test.benchtime "$BENCHTIME") >>"$2" 2>"$TMP/round.err"; then
		cat "$TMP/round.err" >&2
		tail -n 15 "$2" >&2
		die "$3 failed in a timed round (above)"
	fi
}

main() {
	local base_commit base_name head_name head_commit="" base_bin head_bin
	base_commit=$(commit_of "$BASE" BASE)
	base_name="$BASE (${base_commit:0:7})"
	[ "$BASE" != "${base_commit:0:${#BASE}}" ] || base_name=${base_commit:0:7}
	if [ -n "$HEAD" ]; then
		head_commit=$(commit_of "$HEAD" HEAD)
		head_name="$HEAD (${head_commit:0:7})"
		[ "$HEAD" != "${head_commit:0:${#HEAD}}" ] || head_name=${head_commit:0:7}
	else
		head_name="working tree ($(git -C "$REPO" rev-parse --short=7 HEAD)"
		[ -z "$(git -C "$REPO" status --porcelain -- . ':!reports' 2>/dev/null)" ] || head_name="$head_name + uncommitted changes"
		head_name="$head_name)"
	fi
	say "base $base_name against head $head_name: -bench '$BENCH', $COUNT interleaved rounds of $BENCHTIME, threshold $THRESHOLD %"
	say "stages: build (cached base: head only), count both at once under valgrind, quiet-host check${QUIET:+ (QUIET=$QUIET)}, $COUNT timed rounds, report; the time each takes follows once the benchmarks are listed"

	stage "1/5 build: the tools, then the two test binaries"
	need_valgrind
	$GO build -C "$TOOLS" -o "$TMP/" ./cmd/benchcount ./cmd/benchsummary ./cmd/quiethost || die "the workbench's tools do not build"
	binary_of "$base_commit" "BASE=$base_name"
	base_bin=$BIN
	if [ -n "$head_commit" ]; then
		binary_of "$head_commit" "HEAD=$head_name"
		head_bin=$BIN
	else
		check_layout "$REPO" "the working tree"
		say "head: building the working tree"
		head_bin=$TMP/head.test
		build_in "$REPO" "the working tree" "$head_bin"
	fi
	mkdir -p "$TMP/run"

	# The rows, from one quick uninstrumented run of each side (b.N=1):
	# the estimate needs them, the count runs only the classes they fall
	# in, and a BENCH that matches nothing stops here.
	local rows heavy base_rows
	list_rows "$base_bin" "$TMP/list-base.txt" "BASE=$base_name"
	list_rows "$head_bin" "$TMP/list-head.txt" "HEAD=$head_name"
	cat "$TMP/list-base.txt" "$TMP/list-head.txt" >"$TMP/list.txt"
	base_rows=$(grep -c '^Benchmark' "$TMP/list-base.txt" || true)
	rows=$(grep -c '^Benchmark' "$TMP/list-head.txt" || true)
	[ "$rows" -gt 0 ] || die "no benchmark of the head matches BENCH='$BENCH'"
	heavy=$(grep -cE '^BenchmarkDecode/impl=(codec|fxamacker)/msg=response_(snapshot_500|screenshot_256k)(-[0-9]+)?[[:space:]]' "$TMP/list-head.txt" || true)
	# Estimates from the 2-core host: a valgrind process per count class
	# (about 10 s each) and 7 more for each heap-sensitive decode (about
	# 60 s), a few seconds per other row; a timed row takes about twice
	# BENCHTIME (testing's calibration runs) each round and revision.
	local bt count_s time_s wait=""
	bt=$(sed -E 's/s$//' <<<"$BENCHTIME")
	[[ $bt =~ ^[0-9.]+$ ]] || bt=1
	count_s=$((70 + 3 * rows + 60 * heavy))
	time_s=$(awk -v r="$rows" -v c="$COUNT" -v b="$bt" 'BEGIN { printf "%d", 2 * c * r * (2 * b + 0.1) + 2 * c }')
	[ "$QUIET" = off ] || wait=", plus up to 10 min waiting for a quiet host (QUIET=off skips it)"
	stage "$rows rows: about $(((count_s + time_s + 59) / 60)) min more: counting about $(((count_s + 59) / 60)) min, $COUNT timed rounds about $(((time_s + 59) / 60)) min$wait"

	local pb ph rb=0 rh=0 base_counts=()
	if [ "$base_rows" = 0 ]; then
		stage "2/5 count: the base has none of these benchmarks (every row is new); counting the head"
		count_side "$head_bin" "$TMP/head-counts.txt" head "${head_commit:0:7}" || die "HEAD=$head_name: its benchmarks could not be counted (above)"
	elif cmp -s "$base_bin" "$head_bin"; then
		# A count of one binary moves by up to a few tenths of a percent
		# from process to process (where the heap has its free pages):
		# identical binaries are the same code, counted once.
		stage "2/5 count: the two binaries are identical (the same code): counted once, for both sides"
		count_side "$head_bin" "$TMP/head-counts.txt" "base+head" "${head_commit:0:7}" || die "HEAD=$head_name: its benchmarks could not be counted (above)"
		cp "$TMP/head-counts.txt" "$TMP/base-counts.txt"
		base_counts=(-base-counts "$TMP/base-counts.txt")
	else
		stage "2/5 count: both binaries under valgrind at once"
		count_side "$base_bin" "$TMP/base-counts.txt" base "${base_commit:0:7}" &
		pb=$!
		count_side "$head_bin" "$TMP/head-counts.txt" head "${head_commit:0:7}" &
		ph=$!
		wait "$pb" || rb=$?
		wait "$ph" || rh=$?
		[ "$rb" = 0 ] || die "BASE=$base_name: its benchmarks could not be counted (above): its counting harness may differ from this workbench's"
		[ "$rh" = 0 ] || die "HEAD=$head_name: its benchmarks could not be counted (above)"
		base_counts=(-base-counts "$TMP/base-counts.txt")
	fi

	stage "3/5 quiet host"
	check_quiet
	local unverified=()
	grep -q '^quiet: verified' "$TMP/quiet.txt" || unverified=(-unverified)

	stage "4/5 time: $COUNT rounds, base then head"
	times_header >"$TMP/base-times.txt"
	times_header >"$TMP/head-times.txt"
	local i t0=$SECONDS per
	for ((i = 1; i <= COUNT; i++)); do
		time_round "$base_bin" "$TMP/base-times.txt" "BASE=$base_name"
		time_round "$head_bin" "$TMP/head-times.txt" "HEAD=$head_name"
		per=$(((SECONDS - t0) / i))
		stage "round $i/$COUNT done (${per}s a round; about $(((COUNT - i) * per))s left)"
	done

	stage "5/5 report"
	(cd "$TOOLS" && $GO tool benchstat base="$TMP/base-times.txt" head="$TMP/head-times.txt") >"$TMP/benchstat.txt" 2>&1 ||
		say "benchstat failed (its output is attached as is)"
	mkdir -p "$OUT"
	local rc=0
	"$TMP/benchsummary" diff "${base_counts[@]}" -head-counts "$TMP/head-counts.txt" \
		-base-times "$TMP/base-times.txt" -head-times "$TMP/head-times.txt" \
		-base-rev "$base_name" -head-rev "$head_name" -threshold "$THRESHOLD" -rounds "$COUNT" \
		"${unverified[@]}" -benchstat "$TMP/benchstat.txt" -o "$OUT" -chart "reports/micro/diff.svg" || rc=$?
	case $rc in
	0 | 1) stage "wrote $OUT/diff.{txt,md,svg}: $(head -n 1 "$OUT/diff.txt" | sed 's/^micro-diff: //' | cut -c1-60)…" ;;
	*) die "the report failed" ;;
	esac
	exit "$rc"
}

main
