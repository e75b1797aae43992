package main

// `-in base64`: frames written in base64, standard or URL alphabet, with
// or without padding, across any white space; several padded pieces may
// follow one another (one per line, say).

import "io"

const b64What = "base64 input"

// b64Val maps a character to its 6-bit value in the standard or URL
// alphabet, or 0xff.
var b64Val = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	const std = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range len(std) {
		t[std[i]] = byte(i)
	}
	t['-'], t['_'] = 62, 63
	return t
}()

// newBase64Reader returns the bytes that the base64 text of r spells. Bad
// text is an error naming its line and column, after the bytes before it.
func newBase64Reader(r io.Reader) io.Reader {
	b := &b64Reader{t: newTextPos(r)}
	return &chunkReader{fill: b.fill}
}

// b64Reader decodes base64 a quantum of four characters at a time.
type b64Reader struct {
	t    textPos
	q    [4]byte // the quantum's values
	n    int     // characters of it so far
	pads int     // '=' met in it (then only '=' may complete it)
}

func (b *b64Reader) fill(dst []byte) ([]byte, error) {
	for len(dst) < 2048 {
		c, err := b.t.next()
		if err == io.EOF {
			if b.pads > 0 {
				return dst, b.t.errorf(b64What, "the input ends inside the padding (want %d '=' in all)", 4-b.n)
			}
			switch b.n {
			case 0:
				return dst, io.EOF
			case 1:
				return dst, b.t.errorf(b64What, "the input ends with one character of a 4-character group: 6 bits are not a byte")
			}
			return b.emit(dst, b.n), io.EOF // unpadded end
		}
		if err != nil {
			return dst, err
		}
		switch {
		case isSpace(c):
			continue
		case c == '=':
			if b.n+b.pads < 2 {
				return dst, b.t.errorf(b64What, "'=' where a group of 4 has only %d characters (padding follows 2 or 3)", b.n+b.pads)
			}
			b.pads++
			if b.n+b.pads == 4 {
				dst = b.emit(dst, b.n)
			}
			continue
		}
		v := b64Val[c]
		if v == 0xff {
			return dst, b.t.errorf(b64What, "%s is not a base64 character", printable(c))
		}
		if b.pads > 0 {
			return dst, b.t.errorf(b64What, "%s inside the padding of a group of 4", printable(c))
		}
		b.q[b.n] = v
		if b.n++; b.n == 4 {
			dst = b.emit(dst, 4)
		}
	}
	return dst, nil
}

// emit appends the bytes of a quantum of n characters (2 to 4) and starts
// the next.
func (b *b64Reader) emit(dst []byte, n int) []byte {
	// The values past n are 0: q is cleared after each quantum.
	v := uint32(b.q[0])<<18 | uint32(b.q[1])<<12 | uint32(b.q[2])<<6 | uint32(b.q[3])
	dst = append(dst, byte(v>>16), byte(v>>8), byte(v))[:len(dst)+n-1]
	b.q, b.n, b.pads = [4]byte{}, 0, 0
	return dst
}
