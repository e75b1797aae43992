#!/usr/bin/env bash
# mk/rfbgate-bytes.sh — the workbench behind `make rfbgate-bytes`: runs
# BenchmarkViewerBytes (bench/viewerbytes_test.go), BenchmarkViewerPhone,
# BenchmarkViewerWatcher, BenchmarkViewerLaptopPhone
# (bench/viewerphone_test.go) and BenchmarkPhoneCrowd
# (bench/phonecrowd_test.go) once each and writes their figures, from this
# run only, to $REPORT (reports/rfbgate/viewer-bytes.md unless set), each
# against issue 39's target. A failed run writes nothing.
# Settings from the environment: GO, REPORT, GLASS_BIN (a glass binary to
# measure instead of ./cmd/glass at this commit), NOTE (a line saying what
# was measured, when it is not simply this commit).
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
REPORT=${REPORT:-reports/rfbgate/viewer-bytes.md}
BENCH='^Benchmark(Viewer(Bytes|Phone|Watcher|LaptopPhone)|PhoneCrowd)$'
CMD="$GO test -run '^\$' -bench '$BENCH' -benchtime 1x -timeout 40m ./bench/"

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
missing=""
for b in BenchmarkViewerBytes BenchmarkViewerPhone/link=2Mbit-40ms BenchmarkViewerPhone/link=10Mbit-20ms BenchmarkViewerWatcher BenchmarkViewerLaptopPhone BenchmarkPhoneCrowd; do
	grep -q "^$b-" "$TMP/out.txt" || missing="$missing $b"
done
if [ "$rc" != 0 ] || [ -n "$missing" ]; then
	say "the benchmarks failed (exit $rc); $REPORT is left as it was"
	exit 1
fi

# metric BENCH UNIT: the value reported for UNIT on BENCH's result line.
metric() {
	awk -v b="$1" -v u="$2" '$1 ~ "^"b"(-[0-9]+)?$" { for (i = 3; i < NF; i += 2) if ($(i+1) == u) { print $i; exit } }' "$TMP/out.txt"
}
# rects PATH N: the rectangles PATH got, as the Nth line logged for it
# says (1: BenchmarkViewerBytes, 2 and 3: BenchmarkViewerPhone's links).
rects() { grep -E "viewerbytes_test.go:[0-9]+: $1: .*rectangles: " "$TMP/out.txt" | sed -n "${2}p" | sed -E 's/.*rectangles: //; s/; WebSocket.*//'; }
# messages PATH N: the WebSocket messages PATH got, likewise.
messages() { grep -E "viewerbytes_test.go:[0-9]+: $1: .*WebSocket messages: " "$TMP/out.txt" | sed -n "${2}p" | sed -E 's/.*WebSocket messages: //'; }
verdict() { awk -v v="$1" -v lim="$2" -v op="$3" 'BEGIN { ok = (op == "le") ? v <= lim : v >= lim; print ok ? "met" : "not met" }'; }
fmt() { awk -v v="$1" -v d="${2:-0}" 'BEGIN { printf "%.*f", d, v }'; }

bg=$(metric BenchmarkViewerBytes glass-B/s) bw=$(metric BenchmarkViewerBytes websockify-B/s)
br=$(metric BenchmarkViewerBytes glass/websockify-bytes)
ug=$(metric BenchmarkViewerBytes glass-updates/s) uw=$(metric BenchmarkViewerBytes websockify-updates/s)
ur=$(metric BenchmarkViewerBytes glass/websockify-updates)
P2=BenchmarkViewerPhone/link=2Mbit-40ms P10=BenchmarkViewerPhone/link=10Mbit-20ms
W=BenchmarkViewerWatcher L=BenchmarkViewerLaptopPhone C=BenchmarkPhoneCrowd

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
	echo "| path | bytes/s to the viewer | updates/s | frames/s |"
	echo "|---|---:|---:|---:|"
	echo "| glass | $(fmt "$bg") | $(fmt "$ug" 2) | $(fmt "$(metric BenchmarkViewerBytes glass-frames/s)" 2) |"
	echo "| websockify | $(fmt "$bw") | $(fmt "$uw" 2) | $(fmt "$(metric BenchmarkViewerBytes websockify-frames/s)" 2) |"
	echo "| **glass ÷ websockify** | **$(fmt "$br" 3)** | **$(fmt "$ur" 3)** | **$(fmt "$(metric BenchmarkViewerBytes glass/websockify-frames)" 3)** |"
	echo
	echo "Updates are FramebufferUpdates noVNC completed; frames, the page's animation"
	echo "steps the canvas showed (its spinner turns 20 times a second: a frame is a"
	echo "change of colour at a pixel of it). Xvnc asked quickly sends a frame in"
	echo "pieces, so updates count how often a client asks more than what it sees."
	echo
	echo "Targets: glass ≤ 1.05× websockify's bytes: $(verdict "$br" 1.05 le); no fewer frames per second: $(verdict "$(metric BenchmarkViewerBytes glass/websockify-frames)" 0.95 ge)."
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
	phone() { # phone BENCH N: the section of one link (N: its rectangles' line)
		local b=$1 n=$2
		echo "| path | p50 ms | p90 ms | bytes/s to the viewer | updates/s | frames/s |"
		echo "|---|---:|---:|---:|---:|---:|"
		echo "| glass | $(fmt "$(metric "$b" glass-p50-ms)") | $(fmt "$(metric "$b" glass-p90-ms)") | $(fmt "$(metric "$b" glass-B/s)") | $(fmt "$(metric "$b" glass-updates/s)" 2) | $(fmt "$(metric "$b" glass-frames/s)" 2) |"
		echo "| websockify | $(fmt "$(metric "$b" websockify-p50-ms)") | $(fmt "$(metric "$b" websockify-p90-ms)") | $(fmt "$(metric "$b" websockify-B/s)") | $(fmt "$(metric "$b" websockify-updates/s)" 2) | $(fmt "$(metric "$b" websockify-frames/s)" 2) |"
		echo "| **glass ÷ websockify** | **$(fmt "$(metric "$b" glass/websockify-p50)" 3)** | **$(fmt "$(metric "$b" glass/websockify-p90)" 3)** | **$(fmt "$(metric "$b" glass/websockify-bytes)" 3)** | **$(fmt "$(metric "$b" glass/websockify-updates)" 3)** | **$(fmt "$(metric "$b" glass/websockify-frames)" 3)** |"
		echo
		echo "Rectangles received: glass $(rects glass "$n"); websockify $(rects websockify "$n")."
		echo
		echo "WebSocket messages received: glass $(messages glass "$n"); websockify $(messages websockify "$n")."
		echo
	}
	echo "## Key to pixel on a phone's link (BenchmarkViewerPhone)"
	echo
	echo "Each viewer's link shaped by its faultproxy as a phone's, 16 KiB receive"
	echo "buffers. The workload keeps moving, so the links are busy. glass's viewer"
	echo "holds the keyboard (computers.takeover for its stream). 30 keys per path, in"
	echo "turn: the time from the viewer page's rfb.sendKey to noVNC's canvas showing"
	echo "the key square's new colour, both on the page's clock; both viewers draw each"
	echo "key before the next."
	echo
	echo "### 2 Mbit/s to the viewer, 40 ms each way"
	echo
	phone "$P2" 2
	echo "Targets (issue 39): glass p50 ≤ 250 ms: $(verdict "$(metric "$P2" glass-p50-ms)" 250 le); p90 ≤ 500 ms: $(verdict "$(metric "$P2" glass-p90-ms)" 500 le); at least 5 updates a second: $(verdict "$(metric "$P2" glass-updates/s)" 5 ge)."
	echo
	echo "### 10 Mbit/s to the viewer, 20 ms each way"
	echo
	phone "$P10" 3
	echo "Target: glass p50 ≤ 120 ms: $(verdict "$(metric "$P10" glass-p50-ms)" 120 le)."
	echo
	echo "## A watcher on a phone's link (BenchmarkViewerWatcher)"
	echo
	echo "The keyboard holder is noVNC through glass on loopback; two watchers on the"
	echo "2 Mbit/s, 40 ms link, through glass and through websockify. 30 keys: the time"
	echo "from the holder's rfb.sendKey to each watcher's canvas showing the key"
	echo "square's change (the pages' clocks, milliseconds since the epoch, on one host)."
	echo
	echo "| watcher | p50 ms | p90 ms |"
	echo "|---|---:|---:|"
	echo "| glass | $(fmt "$(metric $W glass-p50-ms)") | $(fmt "$(metric $W glass-p90-ms)") |"
	echo "| websockify | $(fmt "$(metric $W websockify-p50-ms)") | $(fmt "$(metric $W websockify-p90-ms)") |"
	echo
	echo "The holder's own key to pixel: p50 $(fmt "$(metric $W holder-p50-ms)") ms. Target: the glass watcher's p50 ≤ 300 ms: $(verdict "$(metric $W glass-p50-ms)" 300 le)."
	echo
	echo "## A laptop beside a phone (BenchmarkViewerLaptopPhone)"
	echo
	echo "A laptop (noVNC through glass on loopback, holding the keyboard) alone, then"
	echo "with a phone (2 Mbit/s, 40 ms) watching too: the laptop's updates per second"
	echo "over 12 s and its key to pixel over 30 keys."
	echo
	echo "| laptop | updates/s | frames/s | key to pixel p50 ms |"
	echo "|---|---:|---:|---:|"
	echo "| alone | $(fmt "$(metric $L alone-updates/s)" 2) | $(fmt "$(metric $L alone-frames/s)" 2) | $(fmt "$(metric $L alone-p50-ms)") |"
	echo "| with a phone | $(fmt "$(metric $L with-phone-updates/s)" 2) | $(fmt "$(metric $L with-phone-frames/s)" 2) | $(fmt "$(metric $L with-phone-p50-ms)") |"
	echo "| **with ÷ alone** | **$(fmt "$(metric $L with/alone-updates)" 3)** | **$(fmt "$(metric $L with/alone-frames)" 3)** | **$(fmt "$(metric $L with/alone-p50)" 3)** |"
	echo
	echo "Alone, the laptop is glass's solo viewer (Xvnc's own updates, which Xvnc,"
	echo "asked quickly, sends in pieces); with the phone, both share glass's copy, and"
	echo "the laptop gets each of Xvnc's updates whole. The phone meanwhile:"
	echo "$(fmt "$(metric $L phone-updates/s)" 2) updates/s, $(fmt "$(metric $L phone-frames/s)" 2) frames/s."
	echo
	echo "Targets: the laptop keeps ≥ 0.95 of the frames a second it sees alone: $(verdict "$(metric $L with/alone-frames)" 0.95 ge); and of its key to pixel (with ÷ alone ≤ 1/0.95): $(verdict "$(metric $L with/alone-p50)" 1.053 le)."
	echo
	echo "## A crowd of phones (BenchmarkPhoneCrowd)"
	echo
	echo "rfbviewer viewers (noVNC's requests, quality 6, decoding everything), each on"
	echo "a 2 Mbit/s, 40 ms link of its own, on the same busy workload; glass's own CPU"
	echo "over 15 s, after 12 s to settle, with one phone and then ten."
	echo
	echo "| phones | glass CPU-s a second |"
	echo "|---:|---:|"
	echo "| 1 | $(fmt "$(metric $C one-cpu-s/s)" 3) |"
	echo "| 10 | $(fmt "$(metric $C ten-cpu-s/s)" 3) |"
	echo "| **10 ÷ 1** | **$(fmt "$(metric $C ten/one-cpu)" 3)** |"
	echo
	echo "The fewest updates a second a phone got with ten: $(fmt "$(metric $C fewest-updates/s)" 1). Target: ten phones cost at most 1.5× one: $(verdict "$(metric $C ten/one-cpu)" 1.5 le)."
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
