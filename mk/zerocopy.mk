# codec/zerocopy (issue 4). make test-poison runs the codec tests, zerocopy's among them,
# with released frame buffers poisoned (0xDB), so that a view used after
# Frame.Release is caught; the plain `go test ./...` runs the rest.
.PHONY: test-poison
test-poison: ; $(GO) test -tags wirebench_poison ./codec/ ./codec/zerocopy/
