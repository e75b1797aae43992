//go:build !turbojpeg

package jpegenc

// Backend names the encoder this build uses: "go" (this package's own
// pure Go encoder) or, built with the tag turbojpeg, "turbojpeg"
// (libjpeg-turbo through cgo).
const Backend = "go"

// Encoder writes JPEGs; its zero value is ready. It keeps the last
// quality's tables and one MCU's blocks, and allocates nothing once the
// caller's buffer has room. An Encoder is not safe for concurrent use.
type Encoder struct {
	g goEncoder
}

// Append appends to dst a baseline JPEG (4:2:0, the Annex K tables) of
// the w×h pixels of pix, whose rows start stride bytes apart, at quality
// (1 to 100, libjpeg's scale), and returns the extended slice. Each pixel
// is 4 bytes: R, G, B, then one that is ignored. An invalid argument
// returns dst unchanged and an error wrapping ErrInvalid.
func (e *Encoder) Append(dst, pix []byte, stride, w, h, quality int) ([]byte, error) {
	if err := check(pix, stride, w, h, quality); err != nil {
		return dst, err
	}
	return e.g.append(dst, pix, stride, w, h, quality), nil
}
