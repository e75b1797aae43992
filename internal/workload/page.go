package workload

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Where the key square sits in the window, in CSS pixels from its top left
// corner (position: fixed, so scrolling never moves it), and its side.
const (
	KeyLeft = 16
	KeyTop  = 16
	KeySize = 200
)

// KeySpot is the window pixel a key-to-pixel measure watches: the key
// square's centre, which a browser's info bar (some 40 pixels) pushing the
// page down would still leave inside the square.
func KeySpot() (x, y int) { return KeyLeft + KeySize/2, KeyTop + KeySize/2 }

// Where the spinner sits, from the window's bottom right corner (fixed,
// so scrolling never moves it), and its diameter.
const (
	SpinRight  = 40
	SpinBottom = 40
	SpinSize   = 96
)

// SpinSpot is a pixel of the spinner, in a window of w×h, off its centre,
// whose colour changes at every step the spinner turns: a viewer that
// shows each change there shows each frame of the page's animation.
func SpinSpot(w, h int) (x, y int) {
	return w - SpinRight - SpinSize/2 + SpinSize/3, h - SpinBottom - SpinSize/2
}

// ChangedAt is the least difference, summed over the red, green and blue
// channels (0-255 each), that a watcher of KeySpot takes for a key's
// effect: far above what a lossy encoding does to a flat square, far below
// the difference between neighbours in Palette.
const ChangedAt = 0x60

// Palette is the key square's colours: it shows Palette[0] at first and
// Palette[n%len(Palette)] after n keydowns. Neighbours (the last and the
// first too) differ by at least 0x100 over the three channels, so a lossy
// encoding cannot blur one into the next: a watcher may take a change of
// over 0x60 at KeySpot for a key's effect (ChangedAt).
var Palette = []string{"#d02020", "#2040e0", "#10a040", "#f0c000", "#8020c0", "#00b0c0"}

// The page's fixed rates: the scroll steps ScrollStep pixels every
// ScrollEvery, the spinner turns SpinStep degrees every SpinEvery (both
// set by the clock, so a busy host draws fewer frames, not a slower page).
const (
	ScrollStep    = 6   // pixels
	ScrollEveryMs = 100 // ms
	SpinStep      = 9   // degrees
	SpinEveryMs   = 50  // ms
)

// textSeed fixes the page's words.
const textSeed = 0x7e47

var words = strings.Fields(`relay viewer frame update pixel screen keyboard
lease ticket stream socket buffer encoding palette gradient zlib tight
raw copy rectangle cursor desktop session browser canvas server client
latency bandwidth tailnet phone link window display scroll animation
colour photo noise seed bench report measure median percentile glass`)

// page renders the workload page.
func page() string {
	r := rand.New(rand.NewPCG(textSeed, textSeed))
	var body strings.Builder
	for sec := range 12 {
		fmt.Fprintf(&body, "<h2>Section %d: %s %s</h2>\n", sec+1, words[r.IntN(len(words))], words[r.IntN(len(words))])
		for range 3 {
			body.WriteString("<p>")
			n := 60 + r.IntN(60)
			for i := range n {
				w := words[r.IntN(len(words))]
				if i == 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
				body.WriteString(w)
				if i == n-1 {
					body.WriteString(".")
				} else if r.IntN(12) == 0 {
					body.WriteString(", ")
				} else {
					body.WriteString(" ")
				}
			}
			body.WriteString("</p>\n")
		}
		if sec%2 == 0 {
			fmt.Fprintf(&body, `<img src="/photo.png" width="%d" height="%d" alt="photo %d">`+"\n", PhotoWidth, PhotoHeight, sec/2+1)
		}
	}
	return fmt.Sprintf(pageTemplate, KeyLeft, KeyTop, KeySize, KeySize, Palette[0], SpinRight, SpinBottom, SpinSize, SpinSize,
		body.String(), jsList(Palette), ScrollEveryMs, ScrollStep, SpinEveryMs, SpinStep)
}

// jsList is a JavaScript array of strings.
func jsList(s []string) string {
	return `["` + strings.Join(s, `","`) + `"]`
}

const pageTemplate = `<!doctype html>
<html><head><meta charset="utf-8"><title>wirebench workload</title>
<style>
html { scrollbar-width: none; }
body { margin: 0; padding: 16px 24px 16px 240px; font: 17px/1.5 serif; color: #222; background: #fbfaf6; }
h2 { font: bold 22px sans-serif; color: #134; }
img { display: block; margin: 12px 0; }
#key { position: fixed; left: %dpx; top: %dpx; width: %dpx; height: %dpx; background: %s; }
#spin { position: fixed; right: %dpx; bottom: %dpx; width: %dpx; height: %dpx; border-radius: 50%%;
	background: conic-gradient(#e33, #fd3, #3c6, #39f, #c3f, #e33); }
</style></head>
<body>
<div id="key"></div>
<div id="spin"></div>
%s
<script>
"use strict";
const palette = %s;
const key = document.getElementById("key"), spin = document.getElementById("spin");
let keys = 0;
document.addEventListener("keydown", () => {
	keys++;
	key.style.background = palette[keys %% palette.length];
	fetch("/key", {method: "POST"}).catch(() => {});
});
window.addEventListener("load", () => {
	const start = performance.now();
	setInterval(() => {
		const t = performance.now() - start;
		const room = document.documentElement.scrollHeight - innerHeight;
		window.scrollTo(0, room > 0 ? (Math.floor(t / %d) * %d) %% room : 0);
		spin.style.transform = "rotate(" + (Math.floor(t / %d) * %d) %% 360 + "deg)";
	}, 25);
	window.focus();
	fetch("/ready", {method: "POST"}).catch(() => {});
});
</script>
</body></html>
`
