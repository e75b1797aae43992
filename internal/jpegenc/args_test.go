package jpegenc

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestBadArguments: each argument at its limit is taken and one past it
// is refused with an error that wraps ErrInvalid and says what was wrong,
// dst coming back as it was.
func TestBadArguments(t *testing.T) {
	const w, h = 10, 4
	pix := make([]byte, 3*64+4*w) // rows 64 bytes apart
	wide := make([]byte, 4*MaxSide)
	cases := []struct {
		name          string
		pix           []byte
		stride, w, h  int
		q             int
		wantErrSubstr string // "" when taken
	}{
		{"as given", pix, 64, w, h, 41, ""},
		{"one pixel", pix, 4, 1, 1, 41, ""},
		{"packed rows", pix[:4*w*h], 4 * w, w, h, 41, ""},
		{"widest", wide, 4 * MaxSide, MaxSide, 1, 41, ""},
		{"tallest", make([]byte, 4*MaxSide), 4, 1, MaxSide, 41, ""},
		{"quality 1", pix, 64, w, h, 1, ""},
		{"quality 100", pix, 64, w, h, 100, ""},
		{"no width", pix, 64, 0, h, 41, "a 0x4 region"},
		{"no height", pix, 64, w, 0, 41, "a 10x0 region"},
		{"negative width", pix, 64, -1, h, 41, "a -1x4 region"},
		{"negative height", pix, 64, w, -3, 41, "a 10x-3 region"},
		{"too wide", append(wide, 0, 0, 0, 0), 4 * (MaxSide + 1), MaxSide + 1, 1, 41, "width and height must be 1 to 65500"},
		{"too tall", make([]byte, 4*(MaxSide+1)), 4, 1, MaxSide + 1, 41, "width and height must be 1 to 65500"},
		{"quality 0", pix, 64, w, h, 0, "quality 0: want 1 to 100"},
		{"quality 101", pix, 64, w, h, 101, "quality 101: want 1 to 100"},
		{"negative quality", pix, 64, w, h, -5, "quality -5"},
		{"stride a byte short", pix, 4*w - 1, w, h, 41, "a stride of 39 bytes is shorter than a row of 10 pixels (40 bytes)"},
		{"no stride", pix, 0, w, h, 41, "a stride of 0 bytes"},
		{"negative stride", pix, -64, w, h, 41, "a stride of -64 bytes"},
		{"pixels a byte short", pix[:len(pix)-1], 64, w, h, 41, "231 bytes of pixels: a 10x4 region with rows 64 bytes apart needs 232"},
		{"no pixels", nil, 64, w, h, 41, "0 bytes of pixels"},
		{"stride past memory", pix, math.MaxInt, w, h, 41, "larger than memory"},
	}
	for _, c := range cases {
		var e Encoder
		dst := []byte("kept")
		out, err := e.Append(dst, c.pix, c.stride, c.w, c.h, c.q)
		if c.wantErrSubstr == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			psnr(t, out[len(dst):], c.pix, c.stride, c.w, c.h) // decodes to its size
			continue
		}
		if err == nil {
			t.Errorf("%s: taken, want an error saying %q", c.name, c.wantErrSubstr)
			continue
		}
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.wantErrSubstr) {
			t.Errorf("%s: error %q, want one wrapping ErrInvalid that says %q", c.name, err, c.wantErrSubstr)
		}
		if !bytes.Equal(out, []byte("kept")) {
			t.Errorf("%s: dst became %q", c.name, out)
		}
	}
}
