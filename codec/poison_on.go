//go:build wirebench_poison

package codec

// poisonReleased is set by the wirebench_poison build tag: released frame
// buffers are overwritten with 0xDB before they go back to the pool.
const poisonReleased = true
