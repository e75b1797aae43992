# make generate: every generated file and test fixture of the repository,
# written again from the code, in the order they depend on each other:
#
#   1. go generate ./...: fieldgen's per-field code of a node (codec/schema,
#      codec, codec/zerocopy, bench/twins) from docs/protocol.md's Node table
#      and codec.Node, then msgp's methods of the twins;
#   2. make golden: the golden frames (golden/*.bin, golden/reference/) from
#      golden/samples.go;
#   3. cmd/wire/internal/wirejson's testdata/samples.jsonl, the JSON form of
#      the samples (-update);
#   4. cmd/wire's testdata/capture, the pcap and pcapng captures built from
#      the golden frames (-update-captures);
#   5. cmd/benchsummary's testdata/summary.golden.md (-update).
#
# Run it after a change to the schema, a codec type or a sample, then review
# the diff and commit it: generated files are never edited by hand
# (CONTRIBUTING.md). On a tree with nothing to regenerate it changes no file.
# TestAddNodeText (codec/internal/fieldgen) adds a node text with three hand
# edits and this target, then runs every package's tests.
.PHONY: generate
generate:
	$(GO) generate ./...
	@$(MAKE) --no-print-directory golden
	$(GO) test ./cmd/wire/internal/wirejson/ -run '^TestGoldenJSON$$' -count=1 -update
	$(GO) test ./cmd/wire/ -run '^TestCaptureFixtures$$' -count=1 -update-captures
	$(GO) test ./cmd/benchsummary/internal/summary/ -run '^TestSummaryOfRecordedRun$$' -count=1 -update
