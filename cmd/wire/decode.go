package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/wirebench/wirebench/cmd/wire/internal/wirejson"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
)

// runDecode is `wire decode`: frames in, one JSON object per frame out.
func runDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	doc := "Reads length-prefixed frames (stdin when no FILE; any number back to back)\nand prints each message as one JSON object per line."
	return runFrames("decode", doc, args, stdin, stdout, stderr, func(out *bufio.Writer) func([]byte) error {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		return func(payload []byte) error {
			m, err := codec.Decode(payload)
			if err != nil {
				return err
			}
			j, err := wirejson.Value(m)
			if err != nil {
				return err
			}
			return writeErr{enc.Encode(j)}.orNil()
		}
	})
}

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

// runFrames runs a verb that reads frames: it parses the verb's flags,
// and runs the function newEach makes over out on the payload of every
// frame of every input (see scanInputs).
func runFrames(verb, doc string, args []string, stdin io.Reader, stdout, stderr io.Writer, newEach func(out *bufio.Writer) func(payload []byte) error) int {
	names, limit, code := verbArgs(verb, doc, args, stderr)
	if code >= 0 {
		return code
	}
	out := bufio.NewWriter(stdout)
	return scanInputs(verb, names, stdin, stderr, out, limit, newEach(out))
}

// writeErr marks a failure to write the output, which ends the run, apart
// from a bad frame, which is reported and skipped.
type writeErr struct{ err error }

func (e writeErr) Error() string { return e.err.Error() }

func (e writeErr) orNil() error {
	if e.err == nil {
		return nil
	}
	return e
}

// scanInputs runs each on the payload of every frame of every input and
// returns the exit status. Bad frames are reported on stderr, naming the
// input, the frame's index and stream offset, and the offset and field of
// the problem; the frames after them are still read when the framing
// allows. each owns the payload it is given.
func scanInputs(verb string, names []string, stdin io.Reader, stderr io.Writer, out *bufio.Writer, limit uint32, each func(payload []byte) error) int {
	rep := &reporter{verb: verb, w: stderr}
	err := eachInput(names, stdin, func(src string, in io.Reader) error {
		return scanFrames(rep, src, in, limit, func(payload []byte) error {
			if err := each(payload); err != nil {
				return err
			}
			if err := out.Flush(); err != nil {
				return writeErr{err}
			}
			return nil
		})
	})
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		rep.reportf("%v", err)
	}
	return rep.status()
}

// scanFrames reads the frames of one stream. It returns only errors that
// end the run (I/O, a failed write); bad frames are reported through rep.
func scanFrames(rep *reporter, src string, in io.Reader, limit uint32, each func(payload []byte) error) error {
	fr := codec.NewReader(retryEmpty{in}, limit)
	var (
		index    int   // of the frame being read
		start    int64 // its stream offset
		skipping bool  // the previous frame was oversized and its payload is being skipped
		overAt   int64 // stream offset of that frame
	)
	for {
		f, err := fr.Next()
		var oe *codec.FrameTooLargeError
		var te *codec.TruncatedFrameError
		switch {
		case err == nil:
			skipping = false
			payload := f.Payload
			f.Payload = nil // the payload now belongs to each: f is not released
			if err := safeCall(each, payload); err != nil {
				var we writeErr
				if errors.As(err, &we) {
					return we.err
				}
				rep.reportf("%s: %s", src, describeFrameError(index, start, len(payload), err))
			}
			index++
			start = fr.Offset()
		case errors.As(err, &oe):
			rep.reportf("%s: frame %d at stream offset %d: field length header: claims a payload of %d bytes, over -max-frame %d%s; payload skipped",
				src, index, oe.Offset, oe.Size, oe.Limit, peekNote(oe.Envelope))
			skipping, overAt = true, oe.Offset
			index++
			start = oe.Offset + codec.HeaderLen + int64(oe.Size)
		case errors.As(err, &te):
			if skipping {
				rep.reportf("%s: frame %d at stream offset %d: field payload: truncated: the stream ends at offset %d inside the oversized frame's payload", src, index-1, overAt, te.Offset)
			} else {
				what := "payload"
				if te.What == "a frame header" {
					what = "length header"
				}
				rep.reportf("%s: frame %d at stream offset %d: field %s: truncated: the stream ends at offset %d inside %s", src, index, start, what, te.Offset, te.What)
			}
			return nil
		case err == io.EOF:
			return nil
		default:
			return fmt.Errorf("%s: %w", src, err)
		}
	}
}

// retryEmpty retries a Read that returns no bytes and no error, which
// io.Reader allows now and then but codec.Reader takes for a stuck stream
// (io.ErrNoProgress) on the first one.
type retryEmpty struct{ r io.Reader }

func (r retryEmpty) Read(p []byte) (int, error) {
	for range 100 {
		n, err := r.r.Read(p)
		if n > 0 || err != nil || len(p) == 0 {
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}

// safeCall runs each, turning a panic into an error so that a codec bug
// shows up as a report naming the frame, never as a crash.
func safeCall(each func([]byte) error, payload []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: the decoder panicked: %v", p)
		}
	}()
	return each(payload)
}

// peekNote tells what the first bytes of an oversized frame said.
func peekNote(e codec.Envelope) string {
	if !e.Kind.Ok {
		return ""
	}
	return " (" + e.String() + ")"
}

// describeFrameError locates a decoding error: the frame, the byte in the
// stream (frame offset + header + payload offset) and in the payload, and
// the field path.
func describeFrameError(index int, start int64, size int, err error) string {
	loc := fmt.Sprintf("frame %d at stream offset %d (payload of %d bytes)", index, start, size)
	var de *cbor.Error
	if !errors.As(err, &de) {
		return loc + ": " + err.Error()
	}
	field := de.Path()
	if field == "" {
		field = "(top level)"
	}
	msg := de.Kind.Error()
	if de.Detail != "" {
		msg += ": " + de.Detail
	}
	return fmt.Sprintf("%s: field %s at stream offset %d (payload offset %d): %s",
		loc, field, start+codec.HeaderLen+int64(de.Offset), de.Offset, msg)
}
