package main

import (
	"bufio"
	"io"

	"github.com/wirebench/wirebench/codec/cbor"
)

// runDiag is `wire diag`: frames in, the RFC 8949 diagnostic notation of
// each payload out, one line per frame. The payload need only be one
// well-formed CBOR item, not a valid message.
func runDiag(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	doc := "Reads length-prefixed frames (stdin when no FILE) and prints each payload\nin RFC 8949 diagnostic notation, one line per frame."
	return runFrames("diag", doc, args, stdin, stdout, stderr, func(out *bufio.Writer) func([]byte) error {
		var line []byte
		return func(payload []byte) error {
			// AppendDiag streams: memory follows the output, not the item
			// count, so a frame of 16 M tiny items costs no Value tree.
			var err error
			line, err = cbor.AppendDiag(line[:0], payload)
			if err != nil {
				return err
			}
			_, err = out.Write(append(line, '\n'))
			return writeErr{err}.orNil()
		}
	})
}
