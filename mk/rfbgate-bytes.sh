#!/usr/bin/env bash
# mk/rfbgate-bytes.sh — the workbench behind `make rfbgate-bytes`: runs
# BenchmarkViewerBytes and BenchmarkViewerPhone (bench/viewerbytes_test.go)
# once each and writes their figures, from this run only, to $REPORT
# (reports/rfbgate/viewer-bytes.md unless set). A failed run writes nothing.
# Settings from the environment: GO, REPORT, GLASS_BIN (a glass binary to
# measure instead of ./cmd/glass at this commit), NOTE (a line saying what
# was measured, when it is not simply this commit).
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
REPORT=${REPORT:-reports/rfbgate/viewer-bytes.md}
BENCH='^BenchmarkViewer(Bytes|Phone)$'
CMD="$GO test -run '^\$' -bench '$BENCH' -benchtime 1x -timeout 20m ./bench/"

say() { printf 'rfbgate-bytes: %s\n' "$*" >&2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rfbgate-bytes.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit (with uncommitted changes)"
subject=$(git log -1 --format=%s 2>/dev/null || true)
load=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u '+%Y-%m-%d %H:%M UTC')

say "running: $CMD"
set +e
eval "$CMD" 2>&1 | tee "$TMP/out.txt" >&2
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" != 0 ] || ! grep -q '^BenchmarkViewerBytes' "$TMP/out.txt" || ! grep -q '^BenchmarkViewerPhone' "$TMP/out.txt"; then
	say "the benchmarks failed (exit $rc); $REPORT is left as it was"
	exit 1
fi

# metric BENCH UNIT: the value reported for UNIT on BENCH's result line.
metric() {
	awk -v b="$1" -v u="$2" '$1 ~ "^"b"(-[0-9]+)?$" { for (i = 3; i < NF; i += 2) if ($(i+1) == u) { print $i; exit } }' "$TMP/out.txt"
}
# rects PATH N: the rectangles PATH got, as the Nth line logged for it
# says (1: BenchmarkViewerBytes, 2: BenchmarkViewerPhone).
rects() { grep -E "viewerbytes_test.go:[0-9]+: $1: .*rectangles: " "$TMP/out.txt" | sed -n "${2}p" | sed -E 's/.*rectangles: //; s/; WebSocket.*//'; }
# messages PATH N: the WebSocket messages PATH got, likewise.
messages() { grep -E "viewerbytes_test.go:[0-9]+: $1: .*WebSocket messages: " "$TMP/out.txt" | sed -n "${2}p" | sed -E 's/.*WebSocket messages: //'; }
verdict() { awk -v v="$1" -v lim="$2" -v op="$3" 'BEGIN { ok = (op == "le") ? v <= lim : v >= lim; print ok ? "met" : "not met" }'; }
fmt() { awk -v v="$1" -v d="${2:-0}" 'BEGIN { printf "%.*f", d, v }'; }

bg=$(metric BenchmarkViewerBytes glass-B/s) bw=$(metric BenchmarkViewerBytes websockify-B/s)
br=$(metric BenchmarkViewerBytes glass/websockify-bytes)
ug=$(metric BenchmarkViewerBytes glass-updates/s) uw=$(metric BenchmarkViewerBytes websockify-updates/s)
ur=$(metric BenchmarkViewerBytes glass/websockify-updates)
pg50=$(metric BenchmarkViewerPhone glass-p50-ms) pg90=$(metric BenchmarkViewerPhone glass-p90-ms)
pw50=$(metric BenchmarkViewerPhone websockify-p50-ms) pw90=$(metric BenchmarkViewerPhone websockify-p90-ms)
pr50=$(metric BenchmarkViewerPhone glass/websockify-p50) pr90=$(metric BenchmarkViewerPhone glass/websockify-p90)
pbg=$(metric BenchmarkViewerPhone glass-B/s) pbw=$(metric BenchmarkViewerPhone websockify-B/s)
pbr=$(metric BenchmarkViewerPhone glass/websockify-bytes)
pug=$(metric BenchmarkViewerPhone glass-updates/s) puw=$(metric BenchmarkViewerPhone websockify-updates/s)
pur=$(metric BenchmarkViewerPhone glass/websockify-updates)

novnc=$(sed -nE 's/^  "version": "([^"]+)".*/\1/p' node_modules/@novnc/novnc/package.json 2>/dev/null || echo '?')
xvnc=$(Xvnc -version 2>&1 | sed -nE 's/^Xvnc (TigerVNC [0-9.]+).*/\1/p' | head -1)
wsv=$(dpkg-query -W -f '${Version}' websockify 2>/dev/null || echo '?')
chv=$(chromium --version 2>/dev/null | sed -E 's/^Chromium ([0-9.]+).*/\1/' || echo '?')

mkdir -p "$(dirname "$REPORT")"
{
	echo "# What a viewer costs: glass against websockify"
	echo
	echo "Written by \`make rfbgate-bytes\` (mk/rfbgate-bytes.sh) from one run; do not edit by hand."
	echo
	echo "- run: $started, host load average at the start $load (2 cores, shared)"
	echo "- commit: $commit — $subject"
	[ -z "${GLASS_BIN:-}" ] || echo "- glass: the binary GLASS_BIN=$GLASS_BIN"
	[ -z "${NOTE:-}" ] || echo "- measured: $NOTE"
	echo "- peers: Xvnc $xvnc, websockify $wsv (Debian), noVNC $novnc in headless Chromium $chv; $($GO env GOVERSION)"
	echo "- command: \`$CMD\`"
	echo
	echo "The screen: a real Xvnc, 1280x720, showing the workload page of internal/workload"
	echo "(text, a photo-like image, scrolling 60 px/s in 10 steps, a spinner turning in"
	echo "20 steps a second) in a real Chromium window. Two noVNC viewers watch it at the"
	echo "same time, one through glass and one through websockify, each in its own"
	echo "headless Chromium and through its own faultproxy, whose count of bytes to the"
	echo "viewer is the bytes figure on both paths. Both ask for noVNC's default"
	echo "encodings with quality 6 and compression 2. Updates are FramebufferUpdates"
	echo "noVNC completed."
	echo
	echo "## Bytes on loopback (BenchmarkViewerBytes, 24 s watched)"
	echo
	echo "| path | bytes/s to the viewer | updates/s |"
	echo "|---|---:|---:|"
	echo "| glass | $(fmt "$bg") | $(fmt "$ug" 2) |"
	echo "| websockify | $(fmt "$bw") | $(fmt "$uw" 2) |"
	echo "| **glass ÷ websockify** | **$(fmt "$br" 3)** | **$(fmt "$ur" 3)** |"
	echo
	echo "Targets: glass ≤ 1.05× websockify's bytes: $(verdict "$br" 1.05 le); no fewer updates per second: $(verdict "$ur" 1 ge)."
	echo
	echo "Rectangles received, by encoding (Tight by its kind: fill, JPEG, basic zlib):"
	echo
	echo "- glass: $(rects glass 1)"
	echo "- websockify: $(rects websockify 1)"
	echo
	echo "WebSocket messages received (how the relay cut the stream; the largest since the viewer connected):"
	echo
	echo "- glass: $(messages glass 1)"
	echo "- websockify: $(messages websockify 1)"
	echo
	echo "## Key to pixel on a phone's link (BenchmarkViewerPhone)"
	echo
	echo "Each viewer's link shaped by its faultproxy as a phone over a tailnet: 2 Mbit/s"
	echo "to the viewer, 40 ms each way, 16 KiB receive buffers. The workload keeps"
	echo "moving, so the links are busy. glass's viewer holds the keyboard"
	echo "(computers.takeover for its stream). 30 keys per path, in turn: the time from"
	echo "the viewer page's rfb.sendKey to noVNC's canvas showing the key square's new"
	echo "colour, both on the page's clock; both viewers draw each key before the next."
	echo
	echo "| path | p50 ms | p90 ms | bytes/s to the viewer | updates/s |"
	echo "|---|---:|---:|---:|---:|"
	echo "| glass | $(fmt "$pg50") | $(fmt "$pg90") | $(fmt "$pbg") | $(fmt "$pug" 2) |"
	echo "| websockify | $(fmt "$pw50") | $(fmt "$pw90") | $(fmt "$pbw") | $(fmt "$puw" 2) |"
	echo "| **glass ÷ websockify** | **$(fmt "$pr50" 3)** | **$(fmt "$pr90" 3)** | **$(fmt "$pbr" 3)** | **$(fmt "$pur" 3)** |"
	echo
	echo "Target: key to pixel within 10 % of websockify's: p50 $(verdict "$pr50" 1.10 le), p90 $(verdict "$pr90" 1.10 le)."
	echo
	echo "Rectangles received on the phone's link:"
	echo
	echo "- glass: $(rects glass 2)"
	echo "- websockify: $(rects websockify 2)"
	echo
	echo "WebSocket messages received on the phone's link:"
	echo
	echo "- glass: $(messages glass 2)"
	echo "- websockify: $(messages websockify 2)"
	echo
	echo "Wall-clock figures from a shared, busy 2-core host: compare the two paths of"
	echo "one run, not runs with each other."
	echo
	echo "## The run's output"
	echo
	echo '```'
	grep -vE '^(PASS|ok )' "$TMP/out.txt"
	echo '```'
} >"$REPORT"
say "wrote $REPORT"
