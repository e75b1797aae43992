package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/wirebench/wirebench/cmd/wire/internal/wirejson"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// runEncode is `wire encode`: JSON Lines in, frames out. Its memory is
// bounded by the frame limit, whatever a line holds (see encodeBudget).
func runEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	names, limit, code := verbArgs("encode", "Reads messages as JSON Lines (the form `wire decode` prints; stdin when no FILE)\nand writes each as a frame to stdout. A bad line is reported with its line\nnumber and field and writes nothing; the lines after it are still encoded.\nMemory stays under 1.5 × -max-frame + 32 MiB: a line or message too large\nfor that is refused, and a larger -max-frame allows it.", args, stderr)
	if code >= 0 {
		return code
	}
	// The garbage collector keeps the heap under the budget: the line
	// of a message is garbage once it is read, and must not add to the
	// frame it is encoded into.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(encodeBudget(limit)))
	out := bufio.NewWriter(stdout)
	rep := &reporter{verb: "encode", w: stderr}
	err := eachInput(names, stdin, func(src string, in io.Reader) error {
		return encodeStream(rep, src, in, out, limit)
	})
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		rep.reportf("%v", err)
	}
	return rep.status()
}

// encodeBudget is the memory wire encode may use for a frame limit:
// 1.5 × the limit + 32 MiB.
func encodeBudget(limit uint32) int64 { return int64(limit)*3/2 + 32<<20 }

// encodeSlack is the part of the budget kept for what is not a line, a
// message or a frame: the runtime, buffers, the parser's index.
const encodeSlack = 8 << 20

// The budget, less the slack, is shared in three phases, each of which
// holds at most two of these at once:
//   - reading a line: its chunks and then the line, 2 × the line;
//   - parsing it: the line and the message (ParseLimited's budget);
//   - encoding: the message and the frame, sized exactly (PayloadLen)
//     and refused before encoding when over the limit.
//
// So a line may be half the budget, and a message the budget less the
// larger of its line and the largest frame.

// maxLineLen bounds a JSON line for a frame limit: half the budget, and
// no more than base64 and field names can make a frame's JSON larger than
// its CBOR.
func maxLineLen(limit uint32) int {
	return int(min(8*uint64(limit)+(1<<20), uint64(encodeBudget(limit)-encodeSlack)/2, 1<<31-1))
}

// messageBudget is the memory a line's message may take.
func messageBudget(limit uint32, lineLen int) int64 {
	return encodeBudget(limit) - encodeSlack - max(int64(lineLen), schema.HeaderLen+int64(limit))
}

// encodeStream encodes the JSON lines of one input. It returns only errors
// that end the stream (I/O); bad lines are reported and skipped.
func encodeStream(rep *reporter, src string, in io.Reader, out *bufio.Writer, limit uint32) error {
	br := bufio.NewReaderSize(in, 64<<10)
	maxLen := maxLineLen(limit)
	var frame []byte
	for line := 1; ; line++ {
		text, tooLong, err := readLine(br, maxLen)
		big := len(text) > bigLine
		if big {
			debug.FreeOSMemory() // the chunks the line was read in
		}
		if tooLong {
			rep.reportf("%s: line %d: longer than %d bytes, the most wire encode holds for -max-frame %d (a larger -max-frame allows more)", src, line, maxLen, limit)
		} else if len(bytes.TrimSpace(text)) > 0 {
			m, ferr := safely(func() (codec.Message, error) { return parseLine(text, limit) })
			text = nil
			if big {
				debug.FreeOSMemory() // the line, before the frame is made
			}
			if ferr == nil {
				frame, ferr = safely(func() ([]byte, error) { return appendFrame(frame[:0], m, limit) })
			}
			m = nil
			if ferr != nil {
				rep.reportf("%s: line %d: %v", src, line, ferr)
			} else {
				if _, werr := out.Write(frame); werr != nil {
					return werr
				}
				if werr := out.Flush(); werr != nil {
					return werr
				}
			}
			if cap(frame) > 1<<20 {
				frame = nil // a large frame's buffer would count against the next line
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
	}
}

// readLine reads one line without its newline, holding at most max bytes:
// the rest of a longer line is discarded and tooLong set. The line is
// gathered in chunks and joined once, so that it never takes more than
// twice its length, where growing one slice would take three times.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	var chunks [][]byte
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong && n+len(chunk) > max+1 {
			tooLong, chunks = true, nil
		}
		if !tooLong {
			chunks = append(chunks, bytes.Clone(chunk))
			n += len(chunk)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(chunks) == 1 {
			line = chunks[0]
		} else if len(chunks) > 1 {
			line = make([]byte, 0, n)
			for i, c := range chunks {
				line = append(line, c...)
				chunks[i] = nil
			}
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		return line, tooLong, err
	}
}

// bigLine is the length from which wire encode returns the memory of a
// line's phase to the system before the next: a line's chunks before it
// is parsed, the line before its frame is made.
const bigLine = 4 << 20

// safely runs fn, turning a panic into an error.
func safely[T any](fn func() (T, error)) (out T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: the encoder panicked: %v", p)
		}
	}()
	return fn()
}

// parseLine reads the message of one JSON line, within the memory the
// line leaves it.
func parseLine(line []byte, limit uint32) (codec.Message, error) {
	return wirejson.ParseLimited(line, messageBudget(limit, len(line)))
}

// appendFrame appends the frame of m to dst, refusing a payload over the
// limit before encoding it, in a buffer of exactly the frame's size.
func appendFrame(dst []byte, m codec.Message, limit uint32) ([]byte, error) {
	size, err := wirejson.PayloadLen(m)
	if err == nil && uint64(size) > uint64(limit) {
		return dst, fmt.Errorf("the payload of %d bytes is over -max-frame %d", size, limit)
	}
	if need := schema.HeaderLen + size; err == nil && cap(dst)-len(dst) < need {
		dst = append(make([]byte, 0, len(dst)+need), dst...) // exactly: no growth while encoding
	}
	out, err := codec.AppendFrame(dst, m, limit)
	var ee *codec.EncodeError
	var fe *codec.FrameTooLargeError
	switch {
	case errors.As(err, &ee):
		return dst, wirejson.EncodeFieldError(ee)
	case errors.As(err, &fe):
		return dst, fmt.Errorf("the payload of %d bytes is over -max-frame %d", fe.Size, limit)
	}
	return out, err
}
