//go:build !wirebench_poison

package codec

// poisonReleased is set by the wirebench_poison build tag.
const poisonReleased = false
