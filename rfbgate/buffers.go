package rfbgate

import "sync"

// Buffers of the relay loops. A viewer holds none between messages: the
// server side waits for Xvnc's bytes without a buffer (upstream.wait) and
// takes a batch buffer from batchPool only while it reads and sends one
// batch; the browser side waits for a message (clientStream.next) and
// takes a read buffer from clientPool only while it feeds that message to
// the gate. A viewer idle or blocked waiting keeps nothing but its
// connections, its gate's output (sized to what the gate wrote) and a
// split header of at most rfb.MaxServerHeader bytes.
//
// History, measured with BenchmarkRelayScale (glass as its own process, a
// real Xvnc sending full Raw frames to every viewer; RSS per viewer under
// load):
//
//	per-viewer buffers held for the viewer's life    50 viewers  200 viewers
//	256 KiB read, 32 KiB client, 64 KiB gate          411-456 KB  346-360 KB
//	64 KiB read (one message a read), 4+4 KiB         254-289 KB  152-210 KB
//	64 KiB batch growing to 256 KiB, 4+4 KiB          455-463 KB  431-441 KB
//	none: pooled for one batch or message              112 KB      68 KB
//
// Every viewer under that load grew its batch buffer to the cap and kept
// it. Pooled, the buffers in use at once are those of the viewers being
// served at that moment (a few per core), whatever the number of viewers.
// A viewer that stops reading holds none either: before each batch
// pumpServer waits, without a buffer, until the browser's socket can take
// more, and reads from Xvnc no more than the socket can take then
// (downstream), so its write does not wait holding the batch (before
// that, each stalled viewer held 256 KiB until WriteTimeout: 325 KiB of
// live heap a viewer in TestStalledViewersRetain). TestIdleViewersRetain
// and TestStalledViewersRetain (heap_test.go) bound what idle and stalled
// viewers keep.
//
// The server side batches: RFB is a byte stream, so WebSocket message
// boundaries mean nothing to noVNC, and each message costs a frame, a
// write and the browser's event. pumpServer gathers what Xvnc has ready
// into one message of up to serverBatchMax bytes and sends it as soon as a
// read would wait (see upstream). The cap is a trade: BenchmarkRelay (one
// viewer) measured the CPU glass adds per MiB relayed, over the same bytes
// read straight from the server, at 0.99 ms with batches of at most
// 64 KiB, 0.66 at 128 KiB, 0.56 at 256 KiB (1.08 before batching); with
// glass as its own process, 0.68-0.70 ms at 256 KiB and 0.50-0.52 at
// 1 MiB (1024-1074 MB/s and 1177-1225, interleaved runs, loaded host). A
// batch is as large as the browser's socket can take at once, so only a
// viewer whose link keeps up gets large ones, and only while it is being
// written.
const (
	// serverBatchMax is the largest batch: one WebSocket message, and the
	// size of batchPool's buffers.
	serverBatchMax = 1 << 20
	// serverReadMin is the least room worth a read: with less left the
	// batch is sent first.
	serverReadMin = 16 << 10
	// clientReadBuf is one read from the browser, fed to the gate (noVNC's
	// messages are a few bytes, its send queue 10 KiB).
	clientReadBuf = 4 << 10
	// downstreamMin is the least batch read when the browser's socket is
	// writable but its measured room is smaller (downstream.wait).
	downstreamMin = 4 << 10
	// downstreamLowatMin and downstreamLowatMax bound the
	// TCP_NOTSENT_LOWAT of a browser's socket (downstream): the kernel
	// lets about that many bytes at most wait unsent in it, so that the
	// rest waits in Xvnc or in glass, where it can be skipped or
	// replaced. A socket starts at the least, about a round trip of a
	// 2 Mbit/s phone link, and doubles it while its link takes every
	// byte (the batches grow with it, so a link that keeps up gets
	// whole batches), halving it again when bytes wait.
	downstreamLowatMin = 16 << 10
	downstreamLowatMax = serverBatchMax
)

// smallBatch is the size of the batch buffers of smallBatchPool: what a
// batch takes when the computer has no more ready, or the browser's socket
// has no more room (most batches of a viewer at rest, or on a slow link).
const smallBatch = 64 << 10

// batchPool holds server batch buffers of serverBatchMax bytes, and
// smallBatchPool of smallBatch.
var (
	batchPool      = sync.Pool{New: func() any { b := make([]byte, serverBatchMax); return &b }}
	smallBatchPool = sync.Pool{New: func() any { b := make([]byte, smallBatch); return &b }}
)

// getBatch returns a batch buffer for a batch of room bytes at most, when
// ready bytes wait to be read (0: unknown), and the pool to put it back
// in: a large one only when both call for it.
func getBatch(room, ready int) (*[]byte, *sync.Pool) {
	if room > smallBatch && (ready == 0 || ready > smallBatch/2) {
		return batchPool.Get().(*[]byte), &batchPool
	}
	return smallBatchPool.Get().(*[]byte), &smallBatchPool
}

// clientPool holds browser read buffers of clientReadBuf bytes.
var clientPool = sync.Pool{New: func() any { b := make([]byte, clientReadBuf); return &b }}
