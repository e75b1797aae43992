package jpegenc

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// FuzzAppend: for any size (including none and negative), stride (up to
// 8 bytes short of a row, or longer), pixels (up to 8 bytes short) and
// quality (-10 to 245), Append never panics; it refuses exactly the
// invalid arguments (ErrInvalid, dst unchanged) and encodes the rest into
// a JPEG that image/jpeg decodes to the region's size.
func FuzzAppend(f *testing.F) {
	f.Add(uint16(2), uint16(2), uint8(8), uint8(0), uint8(51), uint64(1))       // 1×1 at 41
	f.Add(uint16(8), uint16(10), uint8(20), uint8(0), uint8(25), uint64(2))     // 7×9 at 15, longer stride
	f.Add(uint16(257), uint16(17), uint8(8), uint8(0), uint8(110), uint64(3))   // 256×16 at 100
	f.Add(uint16(33), uint16(5), uint8(7), uint8(0), uint8(89), uint64(4))      // stride a byte short
	f.Add(uint16(33), uint16(5), uint8(8), uint8(1), uint8(89), uint64(5))      // pixels a byte short
	f.Add(uint16(0), uint16(5), uint8(8), uint8(0), uint8(89), uint64(6))       // no width
	f.Add(uint16(40), uint16(40), uint8(8), uint8(0), uint8(10), uint64(7))     // quality 0
	f.Add(uint16(299), uint16(299), uint8(255), uint8(0), uint8(11), uint64(8)) // 298×298 at 1
	f.Fuzz(func(t *testing.T, fw, fh uint16, pad, short, fq uint8, seed uint64) {
		w, h := int(fw%300)-1, int(fh%300)-1
		stride := 4*w + int(pad) - 8
		q := int(fq) - 10
		rows := max(h-1, 0) * max(stride, 0)
		n := max(rows+4*max(w, 0)-int(short%9), 0)
		pix := make([]byte, n)
		rng := rand.New(rand.NewPCG(seed, seed>>32))
		for i := 0; i < n; { // runs of one colour and of noise
			run := min(1+rng.IntN(64), n-i)
			c := rng.Uint32()
			for k := range run {
				if seed%2 == 0 {
					c = rng.Uint32()
				}
				pix[i+k] = byte(c >> (8 * ((i + k) % 4)))
			}
			i += run
		}
		valid := w >= 1 && h >= 1 && q >= 1 && q <= 100 && stride >= 4*w && n >= rows+4*w

		var e Encoder
		dst := []byte{0xaa}
		out, err := e.Append(dst, pix, stride, w, h, q)
		switch {
		case valid && err != nil:
			t.Fatalf("%dx%d stride %d, %d bytes, q=%d: %v", w, h, stride, n, q, err)
		case !valid && err == nil:
			t.Fatalf("%dx%d stride %d, %d bytes, q=%d: taken", w, h, stride, n, q)
		case !valid:
			if !errors.Is(err, ErrInvalid) || len(out) != 1 || out[0] != 0xaa {
				t.Fatalf("%dx%d stride %d, %d bytes, q=%d: %v, dst %x", w, h, stride, n, q, err, out)
			}
		default:
			if len(out) < 2 || out[0] != 0xaa {
				t.Fatalf("dst's byte lost")
			}
			psnr(t, out[1:], pix, stride, w, h)
		}
	})
}
