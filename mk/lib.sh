#!/usr/bin/env bash
# mk/lib.sh — shell functions shared by mk/count.sh, mk/micro.sh and
# mk/diff.sh, sourced from the repository's root. The sourcing script
# defines say and die (its messages carry its own name); check_quiet uses
# $TMP, $QUIET, $QUIETHOST_FLAGS, $STAMP and $TMP/quiethost; wait_line
# names the script with say_prefix (micro unless defined).

say_prefix() { echo "${SAY_PREFIX:-micro}"; }

# COUNTED is the -bench pattern of every benchmark the count tier counts
# (those timed through support.CountAllocs): bench/count.Counted, which a
# test keeps equal to it.
COUNTED='^Benchmark(Encode|Decode|Frame|Gate|Session)$'

# need_valgrind installs valgrind (Debian's package) when it is missing.
need_valgrind() {
	command -v valgrind >/dev/null && return
	say "valgrind is missing: installing it (apt-get install valgrind)"
	local sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq valgrind >/dev/null ||
		die "could not install valgrind; install it (apt-get install valgrind) and run again"
}

# check_quiet waits for a quiet host (or only records it with QUIET=off)
# and writes its readings, as config lines, to $TMP/quiet.txt.
check_quiet() {
	if [ "$QUIET" = off ]; then
		say "QUIET=off: recording the host's readings without waiting; reports are stamped \"$STAMP\""
		"$TMP/quiethost" -record $QUIETHOST_FLAGS >"$TMP/quiet.txt" || die "quiethost failed"
		return
	fi
	local rc=0 wait=10m
	wait=$(sed -nE 's/.*-wait[ =]+([0-9]+[smh]).*/\1/p' <<<"$QUIETHOST_FLAGS")
	local deadline
	deadline=$(date -d "now + $(sed -e 's/s$/ seconds/' -e 's/m$/ minutes/' -e 's/h$/ hours/' <<<"${wait:-10m}")" +%H:%M:%S 2>/dev/null || echo "in ${wait:-10m}")
	say "waiting for a quiet host until $deadline (QUIET=off skips the wait)"
	set +e
	"$TMP/quiethost" $QUIETHOST_FLAGS 2>&1 >"$TMP/quiet.txt" | wait_line "$deadline" >&2
	rc=${PIPESTATUS[0]}
	set -e
	case $rc in
	0) ;;
	1) say "the host did not become quiet; nothing was measured (QUIET=off runs anyway, stamped \"$STAMP\")"; exit 1 ;;
	*) die "quiethost failed (exit $rc)" ;;
	esac
}

# wait_line shows quiethost's progress, one line per 2 s window, as one
# updating line on a terminal (the window, what fails, the streak, the
# deadline $1 and the QUIET=off hint), and every 15th window elsewhere.
# Other lines pass through.
wait_line() {
	local line n=0 tty=0 cols=${COLUMNS:-100}
	[ -t 2 ] && tty=1
	while IFS= read -r line; do
		if [[ $line =~ ^quiethost:\ window\ ([0-9]+)\ \(([^\)]*)\):\ (.*)\ =\>\ ([0-9]+/[0-9]+) ]]; then
			local fails
			fails=$(tr '|' '\n' <<<"${BASH_REMATCH[3]}" | grep FAIL | sed -e 's/ *FAIL *$//' -e 's/^ *//' | paste -sd';' - | sed 's/;/, /g' || true)
			local msg="$(say_prefix): waiting for a quiet host until $1 (QUIET=off skips): window ${BASH_REMATCH[1]}, ${BASH_REMATCH[4]} quiet${fails:+; failing: $fails}"
			if [ $tty = 1 ]; then
				printf '\r\033[K%s' "${msg:0:$((cols - 1))}"
			elif ((n % 15 == 0)); then
				printf '%s\n' "$msg"
			fi
			n=$((n + 1))
		else
			[ $tty = 0 ] || printf '\r\033[K'
			printf '%s\n' "$line"
		fi
	done
	[ $tty = 0 ] || printf '\r\033[K'
}

