//go:build !race

package callgrind

const raceBuild = false
