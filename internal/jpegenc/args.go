package jpegenc

import (
	"errors"
	"fmt"
	"math/bits"
)

// MaxSide is the largest width or height Append takes: libjpeg's limit
// (JPEG_MAX_DIMENSION; a frame header could carry 65535), the same for
// both backends.
const MaxSide = 65500

// BytesPerPixel is the size of an input pixel: R, G, B and an unused byte.
const BytesPerPixel = 4

// ErrInvalid is what every refused argument's error wraps: a region of
// no pixels or more than MaxSide on a side, a stride shorter than a row,
// pixels that end before the region's last row, a quality outside 1 to
// 100.
var ErrInvalid = errors.New("jpegenc: invalid argument")

// check returns why Append cannot encode the w×h region of pix at
// quality q with rows stride bytes apart, or nil.
func check(pix []byte, stride, w, h, q int) error {
	switch {
	case w < 1 || h < 1 || w > MaxSide || h > MaxSide:
		return fmt.Errorf("%w: a %dx%d region: width and height must be 1 to %d", ErrInvalid, w, h, MaxSide)
	case q < 1 || q > 100:
		return fmt.Errorf("%w: quality %d: want 1 to 100", ErrInvalid, q)
	case stride < BytesPerPixel*w:
		return fmt.Errorf("%w: a stride of %d bytes is shorter than a row of %d pixels (%d bytes)", ErrInvalid, stride, w, BytesPerPixel*w)
	}
	// the last row starts at (h-1)·stride and holds 4·w bytes
	hi, lo := bits.Mul64(uint64(h-1), uint64(stride))
	need, carry := bits.Add64(lo, uint64(BytesPerPixel*w), 0)
	if hi != 0 || carry != 0 {
		return fmt.Errorf("%w: a %dx%d region with rows %d bytes apart is larger than memory", ErrInvalid, w, h, stride)
	}
	if need > uint64(len(pix)) {
		return fmt.Errorf("%w: %d bytes of pixels: a %dx%d region with rows %d bytes apart needs %d", ErrInvalid, len(pix), w, h, stride, need)
	}
	return nil
}
