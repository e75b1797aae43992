package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/wirebench/wirebench/cmd/wire/internal/wirejson"
	"github.com/wirebench/wirebench/codec"
)

// runEncode is `wire encode`: JSON Lines in, frames out.
func runEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	names, limit, code := verbArgs("encode", "Reads messages as JSON Lines (the form `wire decode` prints; stdin when no FILE)\nand writes each as a frame to stdout. A bad line is reported with its line\nnumber and field and writes nothing; the lines after it are still encoded.", args, stderr)
	if code >= 0 {
		return code
	}
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

// maxLineLen bounds a JSON line for a frame limit: base64 and field names
// make JSON larger than CBOR, but not by more than this.
func maxLineLen(limit uint32) int {
	return int(min(8*uint64(limit)+(1<<20), 1<<31-1))
}

// encodeStream encodes the JSON lines of one input. It returns only errors
// that end the stream (I/O); bad lines are reported and skipped.
func encodeStream(rep *reporter, src string, in io.Reader, out *bufio.Writer, limit uint32) error {
	br := bufio.NewReaderSize(in, 64<<10)
	maxLen := maxLineLen(limit)
	var frame []byte
	for line := 1; ; line++ {
		text, tooLong, err := readLine(br, maxLen)
		if tooLong {
			rep.reportf("%s: line %d: longer than %d bytes, the most a frame of -max-frame %d can need", src, line, maxLen, limit)
		} else if len(bytes.TrimSpace(text)) > 0 {
			var ferr error
			frame, ferr = encodeLine(frame[:0], text, limit)
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
// the rest of a longer line is discarded and tooLong set.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > max+1 {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		return line, tooLong, err
	}
}

// encodeLine appends the frame of one JSON line to dst.
func encodeLine(dst, line []byte, limit uint32) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = dst, fmt.Errorf("internal error: the encoder panicked: %v", p)
		}
	}()
	m, err := wirejson.Parse(line)
	if err != nil {
		return dst, err
	}
	out, err = codec.AppendFrame(dst, m, limit)
	var ee *codec.EncodeError
	var fe *codec.FrameTooLargeError
	switch {
	case errors.As(err, &ee):
		return dst, &wirejson.FieldError{Path: ee.Field, Msg: ee.Detail}
	case errors.As(err, &fe):
		return dst, fmt.Errorf("the payload of %d bytes is over -max-frame %d", fe.Size, fe.Limit)
	}
	return out, err
}
