package rfbgate

// Per-viewer buffers of the relay loops. Each viewer allocates them and
// holds them for its whole life: a goroutine blocked in Read keeps its
// buffer, and every viewer of a computer receives the same updates at the
// same moment, so a pool shared between viewers would be empty exactly
// when it is needed. They are sized, not pooled.
//
// They were 256 KiB (Xvnc to browser), 32 KiB (browser to Xvnc) and a
// 64 KiB gate output: 352 KiB of heap per viewer. BenchmarkRelayScale
// (glass as its own process, a real Xvnc sending full Raw frames, three
// interleaved rounds) measured glass's resident set per viewer under load
// and its CPU per 100 MB against Xvnc's in the same run:
//
//	Xvnc read   50 viewers          200 viewers         glass/Xvnc CPU
//	256 KiB     411-456 KB/viewer   346-360 KB/viewer   0.71-0.83
//	 64 KiB     254-267 KB/viewer   152-201 KB/viewer   0.65-0.93
//	 32 KiB     207-212 KB/viewer   139-140 KB/viewer   0.98-1.31
//
// With every viewer open and no update yet all three cost 63-91 KB per
// viewer (pages never written are not resident). 64 KiB keeps most of the
// memory saving at a small CPU cost; 32 KiB costs a third more CPU per
// byte. The browser side reads small messages (noVNC's are a few bytes,
// its send queue 10 KiB), so 4 KiB is plenty there.
//
// The server side batches: RFB is a byte stream, so WebSocket message
// boundaries mean nothing to noVNC, and each message costs a frame, a
// write and the browser's event. pumpServer gathers what Xvnc has ready
// into one message of up to serverBatchMax bytes and sends it as soon as a
// read would wait (see upstream). Its buffer starts at serverBatchMin and
// doubles only when a batch fills it while Xvnc still has more: a viewer
// on a slow or idle computer keeps the small one.
//
// The cap is a trade. BenchmarkRelay (one viewer, interleaved rounds on a
// busy host) measured the CPU glass adds per MiB relayed, over the same
// bytes read straight from the server: 0.99 ms with batches of at most
// 64 KiB, 0.66 at 128 KiB, 0.56 at 256 KiB (1.08 before batching, with a
// cancelable context per write). But under BenchmarkRelayScale's load
// (Xvnc sending whole Raw frames as fast as it can) every viewer's buffer
// grows to the cap: RSS per viewer was 455 KB at 50 viewers and 441 KB at
// 200, against 289 and 172 KB with 64 KiB reads.
const (
	// serverBatchMin is the batch buffer a viewer starts with.
	serverBatchMin = 64 << 10
	// serverBatchMax is the largest batch: one WebSocket message.
	serverBatchMax = 256 << 10
	// serverReadMin is the least room worth a read: with less left the
	// batch is sent first.
	serverReadMin = 16 << 10
	// clientReadBuf is one read from the browser, fed to the gate; the
	// gate's output buffer starts at this size and grows if a message
	// or a release of held keys needs more.
	clientReadBuf = 4 << 10
)
