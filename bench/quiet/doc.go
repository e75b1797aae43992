// Package quiet decides whether a Linux host is quiet enough to benchmark
// on: the logic of cmd/quiethost.
//
// A Source reads Snapshots of the host's counters from a filesystem laid
// out like / (proc/stat, proc/self/stat, proc/pressure/cpu, the cgroup's
// cpu.stat, proc/loadavg), so that the decisions can be tested on recorded
// samples (testdata/). Measure turns two snapshots a window apart into
// Readings: CPU busy by other processes, steal and iowait as % of all CPUs'
// capacity, PSI cpu "some avg10", the cgroup's nr_throttled increase, and
// load per CPU (advice only). Readings.Check compares them with Thresholds.
// A Waiter measures back-to-back windows until Need of them in a row are
// quiet or the wait runs out, and NewReport turns the outcome into a Report
// whose ConfigLines go at the top of every benchmark report.
//
// Optional readings (PSI, throttling, load) that the host does not provide
// are reported as n/a and never fail a window; a missing or malformed
// /proc/stat or /proc/self/stat is an error.
package quiet
