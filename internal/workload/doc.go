// Package workload is the project's own screen workload for the viewer
// benchmarks: a web page with text, a photo-like image, steady scrolling,
// a small animation and a key square that changes colour on each keydown,
// served by a Server from what the package generates itself (no network,
// no files from outside the repository), and a real, non-headless Chromium
// window showing it inside an X display (an Xvnc's) for a test.
//
// The page is deterministic: its text and image come from fixed seeds,
// the page scrolls at a fixed rate by the clock (not by frames drawn), and
// the animation turns at a fixed rate, so two runs of a benchmark carry
// comparable damage.
//
// The key square sits at a fixed place in the window (KeySpot), whatever
// the scrolling; a viewer that sends a key into the display sees that
// place turn to the next colour of Palette.
package workload
