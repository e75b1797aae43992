package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wirebench/wirebench/cmd/wire/internal/wirejson"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// runDecode is `wire decode`: frames in, one JSON object per frame out.
func runDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	doc := "Reads length-prefixed frames (stdin when no FILE; any number back to back)\nand prints each message as one JSON object per line; from -in pcap, as\n{\"conn\":N,\"from\":\"host:port\",\"to\":\"host:port\",\"message\":{...}}."
	return runFrames("decode", doc, args, stdin, stdout, stderr, func(out *bufio.Writer) eachFunc {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		var line []byte
		return func(label *streamLabel, payload []byte) error {
			m, err := codec.Decode(payload)
			if err != nil {
				return err
			}
			if label != nil {
				j, err := wirejson.Value(m)
				if err != nil {
					return err
				}
				return writeErr{enc.Encode(labelled{streamLabel: *label, Message: j})}.orNil()
			}
			// The line as the encoder would print it, without its second
			// pass over JSON that wirejson wrote (AppendJSON).
			if line, err = wirejson.AppendJSON(line[:0], m); err != nil {
				return err
			}
			_, err = out.Write(append(line, '\n'))
			return writeErr{err}.orNil()
		}
	})
}

// labelled is a message of a captured connection as `wire decode` prints it.
type labelled struct {
	streamLabel
	Message any `json:"message"`
}

// runDiag is `wire diag`: frames in, the RFC 8949 diagnostic notation of
// each payload out, one line per frame. The payload need only be one
// well-formed CBOR item, not a valid message.
func runDiag(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	doc := "Reads length-prefixed frames (stdin when no FILE) and prints each payload\nin RFC 8949 diagnostic notation, one line per frame; from -in pcap, after\nthe connection: \"conn N host:port > host:port: \"."
	return runFrames("diag", doc, args, stdin, stdout, stderr, func(out *bufio.Writer) eachFunc {
		var line []byte
		return func(label *streamLabel, payload []byte) error {
			line = line[:0]
			if label != nil {
				line = fmt.Appendf(line, "%s: ", label)
			}
			// AppendDiag streams: memory follows the output, not the item
			// count, so a frame of 16 M tiny items costs no Value tree.
			var err error
			line, err = cbor.AppendDiag(line, payload)
			if err != nil {
				return err
			}
			_, err = out.Write(append(line, '\n'))
			return writeErr{err}.orNil()
		}
	})
}

// eachFunc takes the payload of one frame, and the connection and
// direction it came from in a capture (nil otherwise). It owns payload.
type eachFunc func(label *streamLabel, payload []byte) error

// inputOpts are the flags that say how to read the frames.
type inputOpts struct {
	form   string // -in: raw, hex, base64 or pcap
	resync bool   // -resync
	limit  uint32 // -max-frame
}

// inputForms are the values of -in.
var inputForms = []string{"raw", "hex", "base64", "pcap"}

// runFrames runs a verb that reads frames: it parses the verb's flags,
// and runs the function newEach makes over out on the payload of every
// frame of every input (see scanInputs).
func runFrames(verb, doc string, args []string, stdin io.Reader, stdout, stderr io.Writer, newEach func(out *bufio.Writer) eachFunc) int {
	fs, mf := newFlagSet(verb, "[FILE...]", doc, stderr)
	var opts inputOpts
	fs.StringVar(&opts.form, "in", "raw", "the input's form: raw (frames as they are on the wire), hex (plain digits, xxd or hexdump -C),\nbase64 (standard or URL alphabet), or pcap (a pcap or pcapng capture of TCP traffic,\nboth directions of each connection reassembled)")
	fs.BoolVar(&opts.resync, "resync", false, "start mid-stream: skip to the first offset where a frame head and a decodable message\nbegin, and report how many bytes were skipped (after a gap in a capture this is done anyway)")
	names, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if !slices.Contains(inputForms, opts.form) {
		fmt.Fprintf(stderr, "wire %s: -in %q: want one of %s\n", verb, opts.form, strings.Join(inputForms, ", "))
		return 2
	}
	opts.limit = mf.limit
	out := bufio.NewWriter(stdout)
	return scanInputs(verb, names, stdin, stderr, out, opts, newEach(out))
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
// allows.
func scanInputs(verb string, names []string, stdin io.Reader, stderr io.Writer, out *bufio.Writer, opts inputOpts, each eachFunc) int {
	rep := &reporter{verb: verb, w: stderr}
	flushed := func(label *streamLabel, payload []byte) error {
		if err := each(label, payload); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return writeErr{err}
		}
		return nil
	}
	err := eachInput(names, stdin, func(src string, in io.Reader) error {
		switch opts.form {
		case "pcap":
			return scanCapture(rep, src, in, opts, flushed)
		case "hex":
			in = newHexReader(&progressReader{r: in})
		case "base64":
			in = newBase64Reader(&progressReader{r: in})
		}
		return scanStream(rep, src, in, opts, &streamAt{}, flushed)
	})
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		rep.reportf("%v", err)
	}
	return rep.status()
}

// progressReader is the one retry of the empty reads of an input that is
// not read as frames directly (-in hex, base64, pcap): it retries up to
// maxEmptyReads in a row, then gives up with io.ErrNoProgress for good.
// Raw frames have codec.Reader's retry instead; what the text and capture
// readers make of their input never reads empty.
type progressReader struct {
	r     io.Reader
	stuck bool
}

// maxEmptyReads is as codec.Reader's.
const maxEmptyReads = 100

func (p *progressReader) Read(b []byte) (int, error) {
	if p.stuck {
		return 0, io.ErrNoProgress
	}
	for range maxEmptyReads {
		if n, err := p.r.Read(b); n > 0 || err != nil || len(b) == 0 {
			return n, err
		}
	}
	p.stuck = true
	return 0, io.ErrNoProgress
}

// streamAt is where the part of a stream being read starts (all of it,
// or in a capture the part after a gap): its stream offset and the index
// of its first frame, and the stream's label in a capture (nil
// otherwise). scanFrames moves index on.
type streamAt struct {
	base  int64
	index int
	label *streamLabel
}

// scanStream reads the frames of (a part of) a stream, from its first
// sync point when resync is asked for.
func scanStream(rep *reporter, src string, in io.Reader, opts inputOpts, at *streamAt, each eachFunc) error {
	if !opts.resync {
		return scanFrames(rep, src, in, opts.limit, func() int64 { return at.base }, at, each)
	}
	rs := newResyncReader(in, opts.limit)
	err := scanFrames(rep, src, rs, opts.limit, func() int64 { return at.base + rs.skipped }, at, each)
	if !rs.synced && err == nil {
		rep.reportf("%s: resync: no frame head followed by a decodable message in the %d bytes from stream offset %d", src, rs.skipped, at.base)
	}
	return err
}

// scanFrames reads the frames of one stream. It returns only errors that
// end the run (I/O, a failed write); bad frames are reported through rep.
// origin is the stream offset of in's first byte (it moves while a
// resyncReader skips).
func scanFrames(rep *reporter, src string, in io.Reader, limit uint32, origin func() int64, at *streamAt, each eachFunc) error {
	// codec.Reader retries empty reads itself, and gives up with
	// io.ErrNoProgress when a stream is stuck.
	fr := codec.NewReader(in, limit)
	label := at.label
	index := &at.index // of the frame being read
	var (
		start    int64 // its offset in in
		skipping bool  // the previous frame was oversized and its payload is being skipped
		overAt   int64 // offset of that frame in in
		synced   bool  // the resync note is written
	)
	for {
		f, err := fr.Next()
		base := origin()
		if rs, ok := in.(*resyncReader); ok && rs.synced && !synced {
			synced = true
			note(rep, "%s: resync: skipped %d bytes: the first frame is at stream offset %d", src, rs.skipped, base)
		}
		var oe *codec.FrameTooLargeError
		var te *codec.TruncatedFrameError
		switch {
		case err == nil:
			skipping = false
			payload := f.Payload
			f.Payload = nil // the payload now belongs to each: f is not released
			if err := safeCall(each, label, payload); err != nil {
				var we writeErr
				if errors.As(err, &we) {
					return we.err
				}
				rep.reportf("%s: %s", src, describeFrameError(*index, base+start, len(payload), err))
			}
			*index++
			start = fr.Offset()
		case errors.As(err, &oe):
			rep.reportf("%s: frame %d at stream offset %d: field length header: claims a payload of %d bytes, over -max-frame %d%s; payload skipped",
				src, *index, base+oe.Offset, oe.Size, oe.Limit, peekNote(oe.Envelope))
			skipping, overAt = true, oe.Offset
			*index++
			start = oe.Offset + schema.HeaderLen + int64(oe.Size)
		case errors.As(err, &te):
			if skipping {
				rep.reportf("%s: frame %d at stream offset %d: field payload: truncated: the stream ends at offset %d inside the oversized frame's payload", src, *index-1, base+overAt, base+te.Offset)
			} else {
				what := "payload"
				if te.What == "a frame header" {
					what = "length header"
				}
				rep.reportf("%s: frame %d at stream offset %d: field %s: truncated: the stream ends at offset %d inside %s; the frames before it are kept", src, *index, base+start, what, base+te.Offset, te.What)
			}
			*index++ // the cut frame counts, for the frames after a gap in a capture
			return nil
		case err == io.EOF:
			return nil
		case errors.Is(err, io.ErrNoProgress):
			return fmt.Errorf("%s: the input is stuck at stream offset %d: it gave only empty reads (no bytes, no error) until the reader gave up (%w)", src, base+fr.Offset(), err)
		default:
			return fmt.Errorf("%s: %w", src, err)
		}
	}
}

// note writes a message to stderr that is no error: it leaves the exit
// status alone.
func note(rep *reporter, format string, a ...any) {
	fmt.Fprintf(rep.w, "wire %s: %s\n", rep.verb, fmt.Sprintf(format, a...))
}

// safeCall runs each, turning a panic into an error so that a codec bug
// shows up as a report naming the frame, never as a crash.
func safeCall(each eachFunc, label *streamLabel, payload []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: the decoder panicked: %v", p)
		}
	}()
	return each(label, payload)
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
		loc, field, start+schema.HeaderLen+int64(de.Offset), de.Offset, msg)
}
