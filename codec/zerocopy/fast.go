package zerocopy

import (
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/internal/shape"
	"github.com/wirebench/wirebench/codec/schema"
)

// The canonical encoder writes a node as a definite map of one-byte keys
// in ascending order, whose values are small integers, a bounds array of
// four small integers, short texts, a children array and a scroll map of
// the same. decodePairs (validation) and readNode (a walk from the bytes)
// read such pairs straight from the bytes, in one loop per node, the
// first pairs in straight-line code, without a decoder call per item;
// any other pair (null, long or indefinite heads, unknown keys, another
// bounds length, ...) is left to the general path, which decides exactly
// as cbor.Decoder does. The fast paths accept only what the general path
// accepts, with the same values, and read pairs one after the other as it
// does: keys in any order, the last of a repeated key wins.

// Where decodePairs stops.
const (
	scanEnd  = iota // the node's map ended
	scanKids        // a children array began: the frame's kn and kidsAt are set
	scanSlow        // at a pair the fast path does not read: the general path reads it
)

// decodePairs validates the pairs of the open node f from b[i:], for a
// definite map, reading them into nv, and returns where it stopped and
// why. It keeps f.i and f.seen up to date. Where enough bytes are left
// for the longest of them, the common heads are read by inlined code that
// needs no bounds of its own.
func decodePairs(b []byte, i int, f *vframe, nv *NodeView) (int, int) {
	n, p, seen := f.n, f.i, f.seen
	if p == 0 && n >= 4 && i+32 <= len(b) {
		i, p, seen = decodeCanon(b, i, n, nv)
	}
	stop := scanEnd
	for ; p < n; p++ {
		if i+1 >= len(b) {
			stop = scanSlow
			break
		}
		k := b[i]
		j := i + 1
		roomy := j+21 <= len(b)
		var w int
		switch k {
		case schema.KeyNodeID, schema.KeyNodeClass, schema.KeyNodeFlags, schema.KeyNodeResPkg:
			var x uint32
			if roomy {
				x, w = shortHead[uint32](b, j)
			}
			if w == 0 {
				x, w = cbor.Uint32At(b, j)
			}
			switch k {
			case schema.KeyNodeID:
				nv.ID = x
			case schema.KeyNodeClass:
				nv.Class = x
			case schema.KeyNodeFlags:
				nv.Flags = x
			default:
				nv.ResPkg = codec.Opt[uint32]{Val: x, Ok: true}
			}
		case schema.KeyNodeBounds: // bounds decodeCanon did not read: near the end, or of another layout
			w = readBounds(b, j, &nv.Bounds)
		case schema.KeyNodeChildren:
			kn, h := cbor.ArrayAt(b, j)
			if h > 0 && !f.had8 && kn <= (len(b)-j-h)/schema.MinNodeLen {
				f.kn, f.ki, f.kidsAt, f.had8 = kn, 0, j, true
				nv.kidsOff, nv.kidsN = j+h, kn
				f.i, f.seen = p, seen
				return j + h, scanKids
			}
		case schema.KeyNodeScroll:
			var sc codec.Scroll
			if w = readScroll(b, j, &sc); w > 0 {
				nv.Scroll = codec.Opt[codec.Scroll]{Val: sc, Ok: true}
			}
		default: // a text, or a key the general path reads
			t := nv.textField(int(k))
			if t == nil {
				break
			}
			var v string
			if v, w = readText(b, j); w == 0 {
				break
			}
			*t = codec.Opt[string]{Val: v, Ok: true}
		}
		if w == 0 {
			stop = scanSlow
			break
		}
		seen |= 1 << k
		i = j + w
	}
	f.i, f.seen = p, seen
	return i, stop
}

// decodeCanon reads the pairs of a node map of n pairs at b[i:], 32
// bytes or more (the caller checks), as far as they follow the canonical
// layout, in straight-line code: id, class, bounds and flags (with heads
// of one to three bytes: all four are read, or none), then text, desc,
// res_pkg and res_name when present, in that order, and for a node
// without children scroll, hint and state. It returns where it stopped,
// the pairs read and the keys seen; decodePairs reads the rest.
func decodeCanon(b []byte, i, n int, nv *NodeView) (int, int, uint32) {
	// The first four pairs take 26 bytes at most: they are read through
	// a window of 32, offsets relative to i.
	win := (*[32]byte)(b[i : i+32])
	if win[0] != schema.KeyNodeID {
		return i, 0, 0
	}
	id, w0 := winHead[uint32](win, 1)
	j := 1 + w0
	class, w1 := winHead[uint32](win, j+1)
	if w0 == 0 || win[j&31] != schema.KeyNodeClass || w1 == 0 {
		return i, 0, 0
	}
	j += 1 + w1
	if win[j&31] != schema.KeyNodeBounds || win[(j+1)&31] != 0x84 {
		return i, 0, 0
	}
	l, n1 := winHead[int32](win, j+2)
	e := j + 2 + n1
	t, n2 := winHead[int32](win, e)
	e += n2
	r, n3 := winHead[int32](win, e)
	e += n3
	bo, n4 := winHead[int32](win, e)
	e += n4
	if n1 == 0 || n2 == 0 || n3 == 0 || n4 == 0 || win[e&31] != schema.KeyNodeFlags {
		return i, 0, 0
	}
	flags, w3 := winHead[uint32](win, e+1)
	if w3 == 0 {
		return i, 0, 0
	}
	nv.ID, nv.Class, nv.Flags = id, class, flags
	nv.Bounds = codec.Bounds{Left: l, Top: t, Right: r, Bottom: bo}
	i += e + 1 + w3
	p, seen := 4, uint32(nodeNeed)
	// The optional keys, in ascending order, one switch per pair present:
	// an absent key costs nothing. At a key out of order, the children
	// or a pair of another shape the loop stops, and decodePairs reads it
	// and the rest.
	for prev := schema.KeyNodeFlags; p < n && i+1 < len(b); {
		k := int(b[i])
		if k <= prev {
			break
		}
		w := 0
		switch k {
		case schema.KeyNodeResPkg:
			if i+5 < len(b) {
				var x uint32
				if x, w = shortHead[uint32](b, i+1); w > 0 {
					nv.ResPkg = codec.Opt[uint32]{Val: x, Ok: true}
				}
			}
		case schema.KeyNodeScroll:
			var sc codec.Scroll
			if w = readScroll(b, i+1, &sc); w > 0 {
				nv.Scroll = codec.Opt[codec.Scroll]{Val: sc, Ok: true}
			}
		default: // a text (textField), or a key decodePairs reads
			t := nv.textField(k)
			if t == nil {
				break
			}
			// A text of a head of one or two bytes (up to 255 bytes),
			// the commonest, is read here, and checked in line when it is
			// short ASCII; one of a longer head by readText.
			if c := b[i+1]; c >= 0x60 && c <= 0x78 {
				s, l := i+2, int(c-0x60)
				if c == 0x78 && i+2 < len(b) {
					s, l = i+3, int(b[i+2])
				}
				if e := s + l; e <= len(b) && (cbor.ShortASCII(b, s, e) || cbor.ValidUTF8(b[s:e])) {
					*t = codec.Opt[string]{Val: str(b[s:e:e]), Ok: true}
					w = e - i - 1
				}
			} else if v, wt := readText(b, i+1); wt > 0 {
				*t = codec.Opt[string]{Val: v, Ok: true}
				w = wt
			}
		}
		if w == 0 {
			break
		}
		i, p, seen, prev = i+1+w, p+1, seen|1<<(k&31), k // k is below nodeKeys (16 at most): the mask spares a test
	}
	return i, p, seen
}

// readText reads a definite text string with a head of one to three
// bytes at b[i:], checking its UTF-8: the string, and the length of the
// item, 0 when it is not one.
func readText(b []byte, i int) (string, int) {
	s, e := cbor.ValidTextAt(b, i)
	if e == 0 {
		return "", 0
	}
	return str(b[s:e:e]), e - i
}

// readBounds reads a canonical bounds array at b[i:] into r
// (shape.BoundsAt), returning its length, or 0 (r untouched).
func readBounds(b []byte, i int, r *codec.Bounds) int {
	if e := shape.BoundsAt(b, i, boundsTwin(r)); e > 0 {
		return e - i
	}
	return 0
}

// readScroll reads a canonical scroll map at b[i:] into s, zeroed
// (shape.ScrollAt), returning its length, or 0 for anything else (s
// partly written).
func readScroll(b []byte, i int, s *codec.Scroll) int {
	if e := shape.ScrollAt(b, i, scrollTwin(s)); e > 0 {
		return e - i
	}
	return 0
}

// readNode reads the node map at off into w.node if it is a definite map
// of canonical pairs, and reports whether it did. Its children array is
// only located, as parseNode does; a node the fast path does not read is
// left partly written, for parseNode to read again from the start.
func (w *Walker) readNode(off int) bool {
	b := w.buf
	nv := &w.node
	*nv = NodeView{}
	if off < 0 || off >= len(b) {
		return false
	}
	c := b[off]
	if c < 0xa0 || c > 0xb7 {
		return false
	}
	n := int(c - 0xa0)
	i := off + 1
	for p := 0; p < n; p++ {
		if i+1 >= len(b) {
			return false
		}
		k := b[i]
		j := i + 1
		var wd int
		switch k {
		case schema.KeyNodeID:
			nv.ID, wd = cbor.Uint32At(b, j)
		case schema.KeyNodeClass:
			nv.Class, wd = cbor.Uint32At(b, j)
		case schema.KeyNodeBounds:
			wd = readBounds(b, j, &nv.Bounds)
		case schema.KeyNodeFlags:
			nv.Flags, wd = cbor.Uint32At(b, j)
		case schema.KeyNodeResPkg:
			var v uint32
			v, wd = cbor.Uint32At(b, j)
			nv.ResPkg = codec.Opt[uint32]{Val: v, Ok: true}
		case schema.KeyNodeChildren:
			kn, h := cbor.ArrayAt(b, j)
			if h == 0 {
				return false
			}
			nv.kidsOff, nv.kidsN = j+h, kn
			if kn != 0 && p == n-1 {
				return true // the map ends with its children: endKnown stays false
			}
			if kn == 0 {
				wd = h
				break
			}
			end, ok := w.tails.get(j, &w.tailCur)
			if !ok || end < nv.kidsOff || end > len(b) {
				return false
			}
			wd = end - j
		case schema.KeyNodeScroll:
			nv.Scroll = codec.Opt[codec.Scroll]{Ok: true}
			wd = readScroll(b, j, &nv.Scroll.Val)
		default: // a text, or a key the general path reads
			t := nv.textField(int(k))
			if t == nil {
				return false
			}
			s, e := cbor.TextAt(b, j)
			if e == 0 {
				return false
			}
			*t = codec.Opt[string]{Val: str(b[s:e:e]), Ok: true}
			wd = e - j
		}
		if wd == 0 {
			return false
		}
		i = j + wd
	}
	nv.end, nv.endKnown = i, true
	return true
}
