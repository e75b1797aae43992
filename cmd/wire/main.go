// Command wire is the tool a daemon engineer reaches for with a frame
// captured from a device: it turns length-prefixed protocol frames into
// JSON Lines and back, shows their payloads in CBOR diagnostic notation,
// and writes the golden samples.
//
//	wire decode [-max-frame N] [-in FORM] [-resync] [FILE...]   frames → one JSON object per frame
//	wire encode [-max-frame N] [FILE...]   JSON Lines → frames
//	wire diag [-max-frame N] [-in FORM] [-resync] [FILE...]     frames → RFC 8949 diagnostic notation, one line each
//	wire samples [-o FILE] [NAME...]       list the golden samples, or write them as frames
//	wire agent-sim ...                     a simulated device agent
//	wire host ...                          a host session against an agent
//
// Input comes from the files named, one stream each, or from stdin.
// decode and diag read frames as people have them (-in): raw (as on the
// wire), hex (plain digits, xxd or hexdump -C), base64, or pcap: a pcap
// or pcapng capture of TCP traffic (an `adb forward` port captured with
// tcpdump, say), each direction of each connection reassembled and its
// messages labelled with it. -resync starts each stream at the first
// frame head followed by a decodable message, saying how many bytes it
// skipped. Bad
// input is reported on stderr with the frame's index (from 0) and stream
// offset, the byte offset of the problem and the field it is in (for JSON,
// the line number and field), and makes the exit status 1; frames or lines
// after a bad one are still processed when the framing allows. Usage
// errors exit with status 2. Memory stays bounded by -max-frame whatever a
// length header claims: an over-limit frame is reported and skipped
// without being buffered.
//
// The JSON form uses docs/protocol.md's field names; kinds, methods, streams and
// event types by name (a number when unknown), error codes as text, byte
// strings in standard base64, integers exact (u64 included), bounds as
// [left, top, right, bottom]. Optional fields are present exactly when the
// message has them. `wire decode | wire encode` reproduces every canonical
// frame byte for byte.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: wire <verb> [flags] [args]

verbs:
  decode [-max-frame N] [-in raw|hex|base64|pcap] [-resync] [FILE...]
                                    frames (stdin when no FILE) → JSON Lines
  encode [-max-frame N] [FILE...]   JSON Lines (stdin when no FILE) → frames
  diag [-max-frame N] [-in raw|hex|base64|pcap] [-resync] [FILE...]
                                    frames → RFC 8949 diagnostic notation
  samples [-o FILE] [NAME...]       list the golden samples, or write them as frames
  agent-sim ...                     a simulated device agent
  host ...                          a host session against an agent

Bad input exits with status 1 and a message naming the input, the frame
(index from 0, and its stream offset), the byte offset of the problem and
the field it is in (for JSON: the line number and the field); frames and
lines after a bad one are still processed. Usage errors exit with status 2.
Run 'wire <verb> -h' for a verb's flags.
`

// run is the whole command: it returns the exit status (0 fine, 1 bad
// input or I/O failure, 2 usage error).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "decode":
		return runDecode(args[1:], stdin, stdout, stderr)
	case "encode":
		return runEncode(args[1:], stdin, stdout, stderr)
	case "diag":
		return runDiag(args[1:], stdin, stdout, stderr)
	case "samples":
		return runSamples(args[1:], stdout, stderr)
	case "agent-sim":
		return runAgentSim(args[1:], stdout, stderr)
	case "host":
		return runHost(args[1:], stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "wire: unknown verb %q\n%s", args[0], usage)
	return 2
}

// reporter writes error messages to stderr and counts them.
type reporter struct {
	verb string
	w    io.Writer
	n    int
}

func (r *reporter) reportf(format string, a ...any) {
	fmt.Fprintf(r.w, "wire %s: %s\n", r.verb, fmt.Sprintf(format, a...))
	r.n++
}

// status is the exit status for the errors reported.
func (r *reporter) status() int {
	if r.n > 0 {
		return 1
	}
	return 0
}

// eachInput calls fn on each named file in turn ("-" is stdin), or on
// stdin when there are none. It stops at the first error fn returns; a
// file that cannot be opened is such an error.
func eachInput(names []string, stdin io.Reader, fn func(src string, in io.Reader) error) error {
	if len(names) == 0 {
		return fn("stdin", stdin)
	}
	for _, name := range names {
		if name == "-" {
			if err := fn("stdin", stdin); err != nil {
				return err
			}
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = fn(name, f)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
