#!/usr/bin/env bash
# mk/peers.sh — make sure the real peers of the relay's tests are here before
# `make test` runs them: Xvnc, vncpasswd, xinput, xclip (TigerVNC and X tools),
# Chromium, websockify (Debian packages, .ci/install-rfb.sh), valgrind (the
# workbench's counts, .ci/install-valgrind.sh) and noVNC (npm).
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

programs=(Xvnc vncpasswd xinput xclip chromium websockify)
missing=()
for p in "${programs[@]}"; do
	command -v "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -eq 0 ]; then
		say "missing ${missing[*]}: installing them with .ci/install-rfb.sh"
		bash .ci/install-rfb.sh
	else
		say "missing real peers: ${missing[*]}"
		say "run once, as root:   sudo bash .ci/install-rfb.sh"
		say "or skip their tests: make test PEERS=off"
		exit 1
	fi
fi

# valgrind: the workbench's instruction counts (internal/callgrind's test).
if ! command -v valgrind >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ]; then
		say "missing valgrind: installing it with .ci/install-valgrind.sh"
		bash .ci/install-valgrind.sh
	else
		say "missing real peer: valgrind"
		say "run once, as root:   sudo bash .ci/install-valgrind.sh"
		say "or skip its tests:   make test PEERS=off"
		exit 1
	fi
fi

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
