#!/usr/bin/env bash
# mk/peers.sh — make sure the real peers of the relay's tests are here before
# `make test` runs them: Xvnc, vncpasswd, xinput, xclip, xkbwatch (TigerVNC and X tools),
# Chromium, websockify (Debian packages, .ci/install-rfb.sh), valgrind (the
# workbench's counts, .ci/install-valgrind.sh), python3-cbor2 (the second
# language that checks the golden frames, .ci/install-cbor2.sh) and noVNC
# (npm).
#
# Missing programs are installed when we are root; otherwise this stops and
# prints the one command to run. PEERS=off skips all of it: the real-peer
# tests then skip themselves, and `make test` names them at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

NOVNC_VERSION=${NOVNC_VERSION:-1.7.0}
say() { printf 'peers: %s\n' "$*" >&2; }

if [ "${PEERS:-on}" = off ]; then
	say "PEERS=off: the real-peer tests (Xvnc, Chromium, noVNC, websockify) will be skipped"
	exit 0
fi

# ensure SCRIPT PROGRAM...: the programs of PROGRAM... that are not on the
# PATH are installed with SCRIPT when root; otherwise the script stops
# with the one command to run.
ensure() {
	local script=$1 p
	shift
	local missing=()
	for p in "$@"; do
		command -v "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	install_or_stop "$script" "${missing[@]}"
}

# install_or_stop SCRIPT MISSING...: installs MISSING... (when any) with
# SCRIPT when root; otherwise stops with the one command to run.
install_or_stop() {
	local script=$1
	shift
	local missing=("$@")
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -eq 0 ]; then
		say "missing ${missing[*]}: installing with $script"
		bash "$script"
	else
		say "missing real peers: ${missing[*]}"
		say "run once, as root:   sudo bash $script"
		say "or skip their tests: make test PEERS=off"
		exit 1
	fi
}

ensure .ci/install-rfb.sh Xvnc vncpasswd xinput xkbcomp xclip xkbwatch xmessage chromium websockify
# perf: TestRelaySyscalls counts glass's system calls per MiB relayed.
ensure .ci/install-perf.sh perf
# valgrind: the workbench's instruction counts (bench/internal/callgrind's test).
ensure .ci/install-valgrind.sh valgrind
# python3-cbor2 for Debian's python3 (golden/cbor2_test.go; a python3 earlier
# on the PATH, pyenv's say, does not see Debian's modules).
/usr/bin/python3 -c 'import cbor2' >/dev/null 2>&1 || install_or_stop .ci/install-cbor2.sh python3-cbor2

if [ ! -f node_modules/@novnc/novnc/core/rfb.js ]; then
	if ! command -v npm >/dev/null 2>&1; then
		say "npm is missing (noVNC $NOVNC_VERSION comes from the npm registry)"
		say "run once, as root:   sudo apt-get install -y nodejs npm"
		say "or skip its tests:   make test PEERS=off"
		exit 1
	fi
	say "installing noVNC $NOVNC_VERSION into node_modules (npm)"
	npm install --no-save --no-audit --no-fund --silent "@novnc/novnc@$NOVNC_VERSION"
fi
