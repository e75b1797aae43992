//go:build linux && !race

package bench

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/internal/peertest"
)

// relayIOSyscalls are the system calls of a relay's data path that
// TestRelaySyscalls counts: reading the computer, writing the browser,
// and asking either socket whether it can go on. The Go runtime's own
// (the scheduler's futexes, sysmon's sleeps, the poller's waits) are left
// out: how many of those a run makes follows the host's speed, not
// glass's code.
var relayIOSyscalls = []string{"read", "readv", "recvfrom", "recvmsg", "write", "writev", "sendto", "sendmsg",
	"splice", "tee", "poll", "ppoll", "ioctl", "getsockopt", "setsockopt"}

// relaySyscallsMax is the most I/O system calls glass may make per MiB
// relayed byte for byte to a reader that keeps up. A healthy relay sends
// batches of up to 1 MiB, each costing a look at what the computer has
// ready, a read or two of it, a writable check and one write: some 5-10 a
// MiB (7.4 measured with 1 MiB batches; 20-25 with 256 KiB ones, on a
// loaded host and an idle one alike). The regression of issue 39, batches
// of 32 KiB while a link "lagged" and a check every 2 ms while bytes
// waited unsent, made 226-243.
const relaySyscallsMax = 40

// relaySyscallMiB is how much TestRelaySyscalls relays while it counts.
const relaySyscallMiB = 64

// TestRelaySyscalls: the relay's write path at line speed, as a count
// that a busy host does not change. glass (its own process, byte for
// byte) relays a synthetic server's stream to a client that reads as fast
// as it can; perf counts the I/O system calls glass makes (relayIOSyscalls)
// while 64 MiB go through. It fails when they pass relaySyscallsMax per
// MiB.
//
// Why a count of system calls: on loopback a relay's time per MiB is its
// copies, fixed by the bytes, plus a cost per system call and per wake-up;
// what glass's code decides is the second part: how many bytes a batch
// carries, how often it asks the kernel whether it may go on, whether it
// waits instead of working. Each of those shows in the count, and the
// count does not depend on the host's speed: a reader that keeps up
// finds the socket empty whatever the load, and the synthetic server is
// always ahead of glass. Time on this shared host swings 20-50 %, so
// BenchmarkRelay's MB/s could not tell a regression from a busy
// neighbour; this count does (issue 39: 0.16x raw TCP went unseen).
func TestRelaySyscalls(t *testing.T) {
	perf := peertest.Program(t, "perf")
	payload := support.RFBFramebufferUpdates(1, 8<<20)
	srv, err := support.NewRFBServer(rfbBenchPassword, payload)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	g := startRelayGlass(t, srv.Addr())
	c := g.viewer(t)
	defer c.Close()
	readMiB(t, c, 8) // warm: glass's buffers, the sockets' windows

	var counts []float64
	for range 2 {
		n := relayCountSyscalls(t, perf, g.pid, func() { readMiB(t, c, relaySyscallMiB) })
		counts = append(counts, n/relaySyscallMiB)
	}
	t.Logf("glass's I/O system calls per MiB relayed: %.1f and %.1f (at most %d)", counts[0], counts[1], relaySyscallsMax)
	for _, n := range counts {
		if n > relaySyscallsMax {
			t.Errorf("glass made %.1f I/O system calls per MiB relayed to a reader that keeps up, over %d: its write path batches less or checks more than it should", n, relaySyscallsMax)
		}
	}
}

// readMiB reads n MiB from c.
func readMiB(t testing.TB, c net.Conn, n int) {
	buf := make([]byte, 256<<10)
	want := int64(n) << 20
	for got := int64(0); got < want; {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		k, err := c.Read(buf[:min(int64(len(buf)), want-got)])
		got += int64(k)
		if err != nil {
			t.Fatalf("after %d bytes: %v", got, err)
		}
	}
}

// relayCountSyscalls counts, with perf, the relayIOSyscalls process pid
// makes while run runs: perf starts with its counters off (-D -1) and
// they are turned on and off through its control FIFO, each command
// acknowledged, so that the count is run's whatever the time perf takes
// to start on a busy host.
func relayCountSyscalls(t testing.TB, perf string, pid int, run func()) float64 {
	events := make([]string, len(relayIOSyscalls))
	for i, s := range relayIOSyscalls {
		events[i] = "syscalls:sys_enter_" + s
	}
	dir := t.TempDir()
	ctlPath, ackPath := filepath.Join(dir, "ctl"), filepath.Join(dir, "ack")
	for _, p := range []string{ctlPath, ackPath} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	cmd := exec.Command(perf, "stat", "-x", ",", "-D", "-1", "--control", "fifo:"+ctlPath+","+ackPath,
		"-e", strings.Join(events, ","), "-p", strconv.Itoa(pid))
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// (opening a FIFO waits for its other end: perf's, once it is ready)
	ctl, err := os.OpenFile(ctlPath, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	ack, err := os.Open(ackPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ack.Close()
	acked := bufio.NewReader(ack)
	command := func(c string) {
		if _, err := io.WriteString(ctl, c+"\n"); err != nil {
			t.Fatalf("perf %s: %v\n%s", c, err, out.String())
		}
		// (perf ends each answer with a NUL)
		if line, err := acked.ReadString('\n'); err != nil || strings.Trim(line, "\x00 \n") != "ack" {
			t.Fatalf("perf %s: answered %q, %v\n%s", c, line, err, out.String())
		}
	}
	command("enable")
	run()
	command("disable")
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	total, seen := 0.0, 0
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 3 || !strings.HasPrefix(f[2], "syscalls:sys_enter_") {
			continue
		}
		seen++
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			total += v
		} else {
			t.Fatalf("perf stat cannot count %s (%q): it needs the kernel's syscall tracepoints\n%s", f[2], f[0], out.String())
		}
	}
	if seen != len(events) {
		t.Fatalf("perf stat counted %d of %d events:\n%s", seen, len(events), out.String())
	}
	return total
}
