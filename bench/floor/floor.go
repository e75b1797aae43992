// Package floor is the workbench's floor (impl=floor): the least work any
// validating decoder of a message must do, to measure the codecs against.
// Walk checks that its input is one well-formed CBOR item, with definite
// lengths only, no tags, nesting within MaxDepth and valid UTF-8 in every
// text, and builds nothing. The encode floor is a memmove of the encoded
// bytes (BenchmarkEncode/impl=floor).
package floor

import (
	"encoding/binary"
	"errors"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// MaxDepth is the deepest nesting Walk accepts: the protocol's deepest
// message, a snapshot of schema.MaxNodeDepth node levels, nests that far
// (response, result, windows, window, root, then a children array and a
// node map per level, and the node's bounds).
const MaxDepth = 2*schema.MaxNodeDepth + 5

// inlineDepth is the nesting Walk keeps on the goroutine's stack: a
// snapshot's trees are about 20 node levels (45 CBOR levels) deep.
const inlineDepth = 64

// maxLen is the longest input Walk reads: its counts of due items are
// kept as uint32.
const maxLen = 1<<32 - 1

// Errors of Walk.
var (
	ErrShort      = errors.New("floor: input ends inside an item")
	ErrTrailing   = errors.New("floor: bytes after the item")
	ErrIndefinite = errors.New("floor: indefinite length")
	ErrTag        = errors.New("floor: tag")
	ErrReserved   = errors.New("floor: reserved additional information")
	ErrSimple     = errors.New("floor: two-byte simple value below 32")
	ErrDepth      = errors.New("floor: nested deeper than MaxDepth")
	ErrUTF8       = errors.New("floor: text is not valid UTF-8")
	ErrTooLong    = errors.New("floor: input longer than 4 GiB")
)

// Walk reports whether b is exactly one well-formed CBOR item within the
// limits above (nil), or the first thing that is not. It keeps, for each
// open array or map, the count of items still due on a stack of
// inlineDepth levels on the goroutine's stack, spilled to the heap only
// past that: memory stays bounded whatever a length claims (a length
// larger than the bytes left is refused before anything is kept).
//
// The commonest items take the shortest paths: a one-byte integer (every
// map key of the protocol), and a short text whose bytes are checked for
// ASCII a word at a time, in place (cbor.ShortASCII), before the full
// UTF-8 check is called (cbor.ValidUTF8): the checks our decoders make,
// through cbor.ValidUTF8In, whose one call costs Walk less than the
// checks in line (they cost the loop registers: +5 % on request_tap).
func Walk(b []byte) error {
	if uint64(len(b)) > maxLen {
		return ErrTooLong
	}
	var inline [inlineDepth]uint32
	stack := inline[:]
	depth := 0
	due := 1 // items still due at the current level
	i := 0
	for {
		if due == 0 {
			for due == 0 {
				if depth == 0 {
					if i != len(b) {
						return ErrTrailing
					}
					return nil
				}
				depth--
				due = int(stack[depth])
			}
		}
		due--
		if i >= len(b) {
			return ErrShort
		}
		ib := b[i]
		if ib < 0x40 && ib&31 < 24 { // an integer of one byte
			i++
			continue
		}
		major, ai := ib>>5, ib&31
		i++
		arg := int(ai)
		if ai >= 24 {
			switch ai {
			case 24:
				if i >= len(b) {
					return ErrShort
				}
				arg = int(b[i])
				i++
			case 25:
				if i+2 > len(b) {
					return ErrShort
				}
				arg = int(binary.BigEndian.Uint16(b[i:]))
				i += 2
			case 26:
				if i+4 > len(b) {
					return ErrShort
				}
				arg = int(binary.BigEndian.Uint32(b[i:]))
				i += 4
			case 27:
				if i+8 > len(b) {
					return ErrShort
				}
				v := binary.BigEndian.Uint64(b[i:])
				i += 8
				// No length this large fits in the input; integers and
				// floats of 8 bytes need no argument.
				arg = len(b) + 1
				if v < uint64(len(b)) {
					arg = int(v)
				}
			case 31:
				return ErrIndefinite
			default:
				return ErrReserved
			}
		}
		switch major {
		case 0, 1: // integers: the head is all
		case 2: // bytes
			if arg > len(b)-i {
				return ErrShort
			}
			i += arg
		case 3: // text
			if arg > len(b)-i {
				return ErrShort
			}
			if !cbor.ValidUTF8In(b, i, i+arg) {
				return ErrUTF8
			}
			i += arg
		case 4, 5: // array, map: arg items (pairs) due, each at least a byte
			if major == 5 {
				if arg > (len(b)-i)/2 {
					return ErrShort
				}
				arg *= 2
			} else if arg > len(b)-i {
				return ErrShort
			}
			if arg > 0 {
				if depth == len(stack) {
					if depth == MaxDepth {
						return ErrDepth
					}
					grown := append(stack, 0)
					stack = grown[:min(cap(grown), MaxDepth)]
				}
				stack[depth] = uint32(due)
				depth++
				due = arg
			}
		case 6:
			return ErrTag
		case 7: // simple values and floats: the head is all
			if ai == 24 && arg < 32 {
				return ErrSimple
			}
		}
	}
}
