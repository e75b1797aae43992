//go:build turbojpeg && !cgo

package jpegenc

// The tag turbojpeg selects libjpeg-turbo through cgo, which this build
// has turned off: the name below is undefined on purpose, so that the
// build fails naming the cause rather than quietly using the Go encoder.
var _ = turbojpeg_tag_needs_cgo_set_CGO_ENABLED_1
