#!/usr/bin/env bash
# mk/test.sh — the test runs behind `make test`, after vet, gofmt, the
# module check and mk/peers.sh:
#
#   1. every test of every package (real peers included);
#   2. the checked mode: zerocopy and codec with released frame buffers
#      poisoned, so a view used after Release is caught;
#   3. the concurrent packages and the codec under the race detector
#      (allocation-count tests are left out of race builds by their
#      `//go:build !race` line: the detector adds allocations and makes
#      sync.Pool drop items at random, so their counts mean nothing there).
#
# With PEERS=off the real-peer tests skip themselves (internal/peertest) and
# the run ends with one line naming each of them.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
TESTFLAGS=${TESTFLAGS:--timeout 14m}
RACE_PKGS=${RACE_PKGS:-./session/... ./faultproxy/ ./rfbgate/... ./cmd/glass/ ./codec/... ./bench/... ./internal/rfbviewer/}

WIREBENCH_SKIPLOG=$(mktemp "${TMPDIR:-/tmp}/wirebench-skips.XXXXXX")
export WIREBENCH_SKIPLOG
skipped() {
	if [ -s "$WIREBENCH_SKIPLOG" ]; then
		echo "skipped (PEERS=off): $(sort -u "$WIREBENCH_SKIPLOG" | paste -sd ';' - | sed 's/;/; /g')"
	fi
	rm -f "$WIREBENCH_SKIPLOG"
}
trap skipped EXIT

echo "== every test"
# shellcheck disable=SC2086
$GO test $TESTFLAGS ./...
echo "== checked mode: released frame buffers poisoned (make test-poison)"
# shellcheck disable=SC2086
$GO test $TESTFLAGS -tags wirebench_poison ./codec/ ./codec/zerocopy/
echo "== race detector: $RACE_PKGS"
# shellcheck disable=SC2086
$GO test $TESTFLAGS -race $RACE_PKGS
