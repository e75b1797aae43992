package rfbgate

import (
	"time"

	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/rfb"
)

// class is a quality class: how glass encodes the pixels it sends a
// viewer. 0 to 9 are RFB's JPEG quality levels (Tight JPEG, at TigerVNC's
// JPEG quality for the level, for areas of more than 16 colours; fewer
// colours go as palettes, losslessly); classLossless sends no JPEG;
// classRaw is a viewer that reads Raw only. Viewers of one class share
// every encoding: the shared updates of the viewers that keep up, and
// the tiles pulled by those that do not (tilecache.go).
type class int8

const (
	classLossless class = -1
	classRaw      class = -2
)

// jpegQ is the class's JPEG quality (1 to 100), or 0 for none.
func (c class) jpegQ() int {
	if c < 0 {
		return 0
	}
	return framebuffer.JPEGQuality(int(c))
}

// String names the class for logs, the status and metrics labels.
func (c class) String() string {
	switch c {
	case classLossless:
		return "lossless"
	case classRaw:
		return "raw"
	}
	return "q" + string(rune('0'+c))
}

// picture says the class in words a person reads on the viewer page.
func (c class) picture() string {
	switch {
	case c == classLossless || c == classRaw:
		return "exact"
	case c >= 7:
		return "high"
	case c >= 5:
		return "good"
	case c >= 3:
		return "medium"
	case c >= 1:
		return "low"
	}
	return "lowest"
}

// classLadder is the classes glass moves a viewer between when its link
// cannot carry the screen's changes at the quality it asked for, best
// first: few, so that a crowd of phones falls into few classes and shares
// their encodings.
var classLadder = [...]class{8, 6, 4, 2, 0}

// asked is the class a viewer's SetEncodings asks for: its JPEG quality
// level, or lossless when it lists none (RFB: no level, no JPEG), or Raw
// when it cannot read the hub's Tight.
func askedClass(list []rfb.Encoding, private bool) class {
	if private {
		return classRaw
	}
	for _, e := range list {
		if e >= rfb.EncodingQualityLevel0 && e <= rfb.EncodingQualityLevel9 {
			return class(e - rfb.EncodingQualityLevel0)
		}
	}
	return classLossless
}

// classBudget is how long one frame of the screen's changes may take on
// a viewer's link: glass picks the best class whose frame fits.
const classBudget = 100 * time.Millisecond

// classHold is how long a viewer stays in a class before it may move up
// again (down, it moves at once): a link's rate swings, and each move
// costs the viewer a class's first encodings.
const classHold = 2 * time.Second

// bytesPerPixel is what glass learnt a class costs on this screen: the
// bytes of its encodings over the pixels they carry, a moving average.
type bytesPerPixel [10 + 2]float64

// classCostStart is what a class is taken to cost before glass has
// encoded anything in it (bytes a pixel of a desktop's changes).
var classCostStart = bytesPerPixel{
	0: 0.06, 1: 0.08, 2: 0.10, 3: 0.11, 4: 0.14, 5: 0.18, 6: 0.19, 7: 0.22, 8: 0.28, 9: 0.45,
	10: 0.8, // lossless
	11: 4,   // raw
}

func costIndex(c class) int {
	switch c {
	case classLossless:
		return 10
	case classRaw:
		return 11
	}
	return int(c)
}

// learn folds an encoding of px pixels into n bytes into the class's cost.
func (b *bytesPerPixel) learn(c class, n, px int) {
	if px <= 0 {
		return
	}
	i := costIndex(c)
	const alpha = 0.05
	b[i] += alpha * (float64(n)/float64(px) - b[i])
}

// cost is the class's bytes a pixel.
func (b bytesPerPixel) cost(c class) float64 { return b[costIndex(c)] }

// pickClass is the best class, no better than asked, in which a frame of
// the screen's changes (framePx pixels of the tiles that change in
// classBudget) takes at most classBudget on a link of rate bytes a
// second (times slack: 1 to move down, less to move up); the worst of the
// ladder when none does. A viewer that asked for no JPEG stays lossless,
// and one that reads Raw stays Raw.
func pickClass(asked class, rate, framePx, slack float64, cost *bytesPerPixel) class {
	if asked < 0 || rate <= 0 {
		return asked
	}
	budget := rate * classBudget.Seconds() * slack
	fits := func(c class) bool { return framePx*cost.cost(c) <= budget }
	if fits(asked) {
		return asked
	}
	pick := classLadder[len(classLadder)-1]
	for _, c := range classLadder {
		if c < asked && fits(c) {
			pick = c
			break
		}
	}
	return min(pick, asked)
}
