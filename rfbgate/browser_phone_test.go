package rfbgate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"
	"github.com/chromedp/chromedp/kb"
)

// xKeymap reads display's keymap with xkbcomp: keycode to the key's first
// keysym name, so key events seen by xinput can be read as text.
func xKeymap(t *testing.T, display int) map[int]string {
	t.Helper()
	cmd := exec.Command(needPeer(t, "xkbcomp"), "-xkb", fmt.Sprintf(":%d", display), "-")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xkbcomp: %v", err)
	}
	codes := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\s*<(\w+)>\s*=\s*(\d+);`).FindAllStringSubmatch(string(out), -1) {
		codes[m[1]], _ = strconv.Atoi(m[2])
	}
	keymap := map[int]string{}
	for _, m := range regexp.MustCompile(`key\s+<(\w+)>\s*\{(?:[^}]*?=)?\s*\[\s*([^,\s\]]+)`).FindAllStringSubmatch(string(out), -1) {
		if c, ok := codes[m[1]]; ok {
			keymap[c] = m[2]
		}
	}
	if keymap[codes["AC06"]] != "h" || keymap[codes["BKSP"]] != "BackSpace" {
		t.Fatalf("xkbcomp's keymap was not understood (%d keys)", len(keymap))
	}
	return keymap
}

// pressed is the keysym names of the key presses in ev.
func pressed(ev []xEvent, keymap map[int]string) []string {
	var out []string
	for _, e := range ev {
		if e.Type == "KeyPress" {
			out = append(out, keymap[e.Detail])
		}
	}
	return out
}

// tap touches the middle of the element sel with one finger, as a phone
// does (Input.dispatchTouchEvent).
func tap(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	xy := pageEval[[]float64](t, ctx, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, sel))
	for _, p := range []input.DispatchTouchEventParams{
		{Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: xy[0], Y: xy[1]}}},
		{Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}},
	} {
		if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, p); err != nil {
			t.Fatalf("tap %s: %v", sel, err)
		}
	}
}

// touch sends one touch event with the fingers at pts (x, y pairs).
func touch(t *testing.T, ctx context.Context, typ input.DispatchTouchEventType, pts ...float64) {
	t.Helper()
	tp := []*input.TouchPoint{}
	for i := 0; i+1 < len(pts); i += 2 {
		id := float64(i / 2)
		tp = append(tp, &input.TouchPoint{X: pts[i], Y: pts[i+1], ID: &id})
	}
	if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: typ, TouchPoints: tp}); err != nil {
		t.Fatalf("touch %s: %v", typ, err)
	}
}

// swipe moves one finger (or two: a pinch) from one place to another in
// steps, as a finger does.
func swipe(t *testing.T, ctx context.Context, from, to []float64) {
	t.Helper()
	touch(t, ctx, input.DispatchTouchEventTypeTouchStart, from...)
	for i := 1; i <= 10; i++ {
		at := make([]float64, len(from))
		for j := range from {
			at[j] = from[j] + (to[j]-from[j])*float64(i)/10
		}
		touch(t, ctx, input.DispatchTouchEventTypeTouchMove, at...)
		time.Sleep(16 * time.Millisecond)
	}
	touch(t, ctx, input.DispatchTouchEventTypeTouchEnd)
}

// shoot saves a screenshot of the page as name: into $GLASS_SCREENSHOTS
// when set (docs/glass/ holds the committed ones), else the temp dir.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	time.Sleep(300 * time.Millisecond) // the layout and the last update settle
	// At the page's CSS size (360×640), whatever the device's pixel ratio.
	vp := pageEval[[]float64](t, ctx, `[innerWidth, innerHeight, devicePixelRatio]`)
	var shot []byte
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng,
			Clip: &page.Viewport{Width: vp[0], Height: vp[1], Scale: 1 / vp[2]}})
		shot = res.Data
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("GLASS_SCREENSHOTS")
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, name), shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

// zoomState is the page's zoom: noVNC's scale (CSS px per desktop px),
// the fitted scale, and the viewport's place and size in desktop px.
type zoomState struct {
	Scale, Fit, X, Y, W, H float64
}

func zoomOf(t *testing.T, ctx context.Context) zoomState {
	t.Helper()
	return pageEval[zoomState](t, ctx, `(() => { const d = window.glass.rfb._display, v = d._viewportLoc, el = document.getElementById("screen");
		return {Scale: d.scale, Fit: el.clientWidth / d.width, X: v.x, Y: v.y, W: v.w, H: v.h}; })()`)
}

// TestBrowserPhone: a Galaxy S5 (360×640, touch, mobile viewport) emulated
// in headless Chromium, on a real Xvnc (640×480). /glass/ without ?agent=
// lists the computers; the page fits the screen without zooming, with
// touch targets of 44 px at least, the desktop fitted to the width at the
// top. Watching: a tap says the input is not sent; a double tap zooms to a
// region, a drag pans it, a pinch zooms further and back to fit. The
// phone takes the keyboard by touch and the screen does not move (the key
// row was there already); "Keyboard" focuses the input that raises the
// on-screen keyboard, and the phone types as a phone keyboard does (text
// inserted, not key events): the word, a correction with Backspace and
// Enter reach the X display as those keys. From the row of keys a phone
// keyboard lacks, Esc, Tab and Ctrl then "c" reach X as Escape, Tab and
// Control+c, the phone keyboard staying up. A tap on the screen is a
// click. A watch-only link on the phone shows neither Take over nor the
// key row. Screenshots at 360×640: watching, holding, zoomed, watch-only
// (GLASS_SCREENSHOTS=docs/glass writes the committed ones). Nothing lands
// in the console.
func TestBrowserPhone(t *testing.T) {
	rig := newPageRig(t)
	srv, con := rig.srv, rig.con
	xe := watchX(t, rig.xv.Display)
	keymap := xKeymap(t, rig.xv.Display)
	// Something to read on the desktop: a window of text in its top left.
	msg := exec.Command(needPeer(t, "xmessage"), "-geometry", "+12+12", "-buttons", "",
		"An agent's desktop, 640x480, on a phone:\nfitted to the width, then zoomed by a\ndouble tap or a pinch, and panned by a drag.")
	msg.Env = append(os.Environ(), fmt.Sprintf("DISPLAY=:%d", rig.xv.Display))
	if err := msg.Start(); err != nil {
		t.Fatalf("xmessage: %v", err)
	}
	t.Cleanup(func() { msg.Process.Kill(); msg.Wait() })
	phone, cancel := chromedp.NewContext(rig.browser, chromedp.WithListener(con.listen("phone")))
	t.Cleanup(cancel)
	if err := chromedp.Do(phone, chromedp.Emulate(device.GalaxyS5), chromedp.Navigate(srv.URL+"/glass/")); err != nil {
		t.Fatal(err)
	}
	// The list of computers; its link opens the viewer.
	waitPage(t, phone, "phone", `document.querySelector('#computers a') !== null`, 10*time.Second)
	if got := pageEval[string](t, phone, `document.querySelector('#computers a').textContent`); got != "agent1" {
		t.Fatalf("the computer list shows %q", got)
	}
	tap(t, phone, "#computers a")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) { // the tap navigates
		if s, err := chromedp.Run(phone, chromedp.Evaluate[string](`location.search`)); err == nil && s == "?agent=agent1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("tapping the computer's link did not open its page")
		}
	}
	waitPage(t, phone, "phone", `document.body.dataset.state === "watching" && !document.getElementById("keys").hidden`, 20*time.Second)

	// It fits: no sideways scrolling, nothing below the fold, every visible
	// button at least 44×44 CSS px, the desktop as wide as the screen and
	// at its top.
	layout := pageEval[map[string]float64](t, phone, `(() => {
		const b = [...document.querySelectorAll('button')].filter((e) => e.offsetParent !== null).map((e) => e.getBoundingClientRect());
		const s = document.getElementById('screen').getBoundingClientRect();
		const c = document.querySelector('#screen canvas').getBoundingClientRect();
		const k = document.getElementById('keys').getBoundingClientRect();
		return { vw: innerWidth, vh: innerHeight, sw: document.documentElement.scrollWidth, sh: document.documentElement.scrollHeight,
			minW: Math.min(...b.map((r) => r.width)), minH: Math.min(...b.map((r) => r.height)),
			screenTop: s.top, screenBottom: s.bottom, screenH: s.height, canvasW: c.width, canvasTop: c.top, canvasRight: c.right, keysBottom: k.bottom };
	})()`)
	if layout["vw"] != 360 || layout["sw"] > layout["vw"] || layout["sh"] > layout["vh"] || layout["keysBottom"] > layout["vh"] ||
		layout["canvasRight"] > layout["vw"] || layout["minW"] < 44 || layout["minH"] < 44 || layout["screenH"] < 200 ||
		layout["canvasW"] < 359 || layout["canvasTop"] != layout["screenTop"] {
		t.Fatalf("the page does not fit a 360×640 phone: %v", layout)
	}
	t.Logf("360×640: screen %v px high, canvas %v px wide, smallest button %v×%v", layout["screenH"], layout["canvasW"], layout["minW"], layout["minH"])
	if kbd := pageEval[bool](t, phone, `!document.getElementById("kbd").hidden && document.getElementById("kbd").disabled`); !kbd {
		t.Fatal("the phone's Keyboard button is not there (disabled) while it watches")
	}
	shoot(t, phone, "glass-phone-watching.png")
	screenAt := `JSON.stringify(document.getElementById("screen").getBoundingClientRect())`
	before := pageEval[string](t, phone, screenAt)

	// Watching: a tap is not sent, and the page says so.
	xe.take()
	tap(t, phone, "#screen canvas")
	waitPage(t, phone, "phone", `!document.getElementById("hint").hidden && document.getElementById("hint-text").textContent.includes("not sent")`, 2*time.Second)

	// A double tap zooms to the region tapped; a drag pans; a pinch zooms
	// further, and pinching in goes back to fit.
	fit := zoomOf(t, phone)
	if fit.Scale < fit.Fit*0.99 || fit.Scale > fit.Fit*1.01 || fit.W != 640 {
		t.Fatalf("fitted: %+v", fit)
	}
	c := pageEval[[]float64](t, phone, `(() => { const r = document.querySelector("#screen canvas").getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()`)
	cx, cy := c[0]+c[2]*0.75, c[1]+c[3]*0.75 // the lower right quarter
	touch(t, phone, input.DispatchTouchEventTypeTouchStart, cx, cy)
	touch(t, phone, input.DispatchTouchEventTypeTouchEnd)
	time.Sleep(80 * time.Millisecond)
	touch(t, phone, input.DispatchTouchEventTypeTouchStart, cx, cy)
	touch(t, phone, input.DispatchTouchEventTypeTouchEnd)
	var zoomed zoomState
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if zoomed = zoomOf(t, phone); zoomed.Scale >= 1 || time.Now().After(deadline) {
			break
		}
	}
	if zoomed.Scale < 1 || zoomed.W >= 640 || zoomed.X < 200 {
		t.Fatalf("a double tap at the lower right did not zoom there: %+v (fitted %+v)", zoomed, fit)
	}
	if px := (cx - c[0]) / fit.Scale; px < zoomed.X || px > zoomed.X+zoomed.W {
		t.Fatalf("the double tap at desktop x %v zoomed to %+v", px, zoomed)
	}
	swipe(t, phone, []float64{200, c[1] + 150}, []float64{300, c[1] + 150}) // the desktop moves right: the view goes left
	if panned := zoomOf(t, phone); panned.X >= zoomed.X || panned.Scale != zoomed.Scale {
		t.Fatalf("a drag did not pan: %+v, then %+v", zoomed, panned)
	}
	// To the top left corner, where the text is, for the screenshot.
	swipe(t, phone, []float64{60, c[1] + 60}, []float64{340, c[1] + 400})
	if corner := zoomOf(t, phone); corner.X != 0 || corner.Y != 0 {
		t.Fatalf("dragged to the top left: %+v", corner)
	}
	waitPage(t, phone, "phone", `document.getElementById("hint").hidden`, 5*time.Second) // the tap's word has gone
	shoot(t, phone, "glass-phone-zoomed.png")
	mid := c[1] + 150
	swipe(t, phone, []float64{150, mid, 210, mid}, []float64{80, mid, 280, mid}) // each finger past noVNC's 50 px threshold
	if pinched := zoomOf(t, phone); pinched.Scale <= zoomed.Scale*1.2 {
		t.Fatalf("pinching out did not zoom in: %+v, then %+v", zoomed, pinched)
	}
	swipe(t, phone, []float64{60, mid, 300, mid}, []float64{170, mid, 190, mid})
	if back := zoomOf(t, phone); back.Scale > back.Fit*1.01 || back.W != 640 {
		t.Fatalf("pinching in did not go back to fit: %+v", back)
	}
	if ev := xe.take(); len(ev) != 0 {
		t.Fatalf("the watcher's taps, drags and pinches reached X: %v", ev)
	}

	// Take over by touch: the Keyboard button comes alive and focuses the
	// input; the screen stays where it was.
	tap(t, phone, "#take")
	waitPage(t, phone, "phone", `document.body.dataset.state === "typing" && !document.getElementById("kbd").disabled && !document.querySelector("#keys button").disabled`, 5*time.Second)
	if after := pageEval[string](t, phone, screenAt); after != before {
		t.Fatalf("the screen moved when the phone took the keyboard: %s, then %s", before, after)
	}
	shoot(t, phone, "glass-phone-holding.png")
	tap(t, phone, "#kbd")
	if id := pageEval[string](t, phone, `document.activeElement.id`); id != "typer" {
		t.Fatalf("the Keyboard button focused %q, not the input that raises the on-screen keyboard", id)
	}
	xe.take()
	// A phone keyboard inserts text; Backspace and Enter come as keys.
	insert := func(text string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text})
			return err
		})
	}
	if err := chromedp.Do(phone, insert("hellp"), chromedp.KeyEvent(kb.Backspace), insert("o"), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	want := []string{"h", "e", "l", "l", "p", "BackSpace", "o", "Return"}
	ev := xe.waitFor(5*time.Second, func(e []xEvent) bool {
		return len(pressed(e, keymap)) >= len(want) && count(e, "KeyRelease") >= len(want)
	})
	if got := pressed(ev, keymap); strings.Join(got, " ") != strings.Join(want, " ") || count(ev, "KeyRelease") != len(want) {
		t.Fatalf("the phone typed %q into X (%d releases), want %q", got, count(ev, "KeyRelease"), want)
	}
	// The key row: Esc, Tab, then Ctrl held for the "c" typed next.
	xe.take()
	tap(t, phone, `#keys [data-key="Escape"]`)
	tap(t, phone, `#keys [data-key="Tab"]`)
	tap(t, phone, `#keys [data-mod="Control"]`)
	if got := pageEval[string](t, phone, `document.activeElement.id + " " + document.querySelector('#keys [data-mod="Control"]').getAttribute("aria-pressed")`); got != "typer true" {
		t.Fatalf("after Esc, Tab and Ctrl on the key row: focus and Ctrl %q, want the phone keyboard's input still focused and Ctrl held", got)
	}
	if err := chromedp.Do(phone, insert("c")); err != nil {
		t.Fatal(err)
	}
	want = []string{"Escape", "Tab", "Control_L", "c"}
	ev = xe.waitFor(5*time.Second, func(e []xEvent) bool { return count(e, "KeyRelease") >= len(want) })
	if got := pressed(ev, keymap); strings.Join(got, " ") != strings.Join(want, " ") || count(ev, "KeyRelease") != len(want) {
		t.Fatalf("the key row typed %q into X (%d releases; %v), want %q", got, count(ev, "KeyRelease"), ev, want)
	}
	if held := pageEval[string](t, phone, `document.querySelector('#keys [data-mod="Control"]').getAttribute("aria-pressed")`); held != "false" {
		t.Fatal("Ctrl stayed held after the key it was for")
	}
	// A tap on the screen is a click.
	xe.take()
	tap(t, phone, "#screen canvas")
	if ev := xe.waitFor(5*time.Second, func(e []xEvent) bool { return count(e, "ButtonRelease") >= 1 }); count(ev, "ButtonPress") != 1 {
		t.Fatalf("a tap on the screen: X saw %v, want one click", ev)
	}

	// A watch-only link on a phone.
	tk, err := rig.tr.Issue("agent1", Grant{Surface: "crowd", Access: AccessWatch, Name: "Crowd"})
	if err != nil {
		t.Fatal(err)
	}
	crowd, cancel2 := chromedp.NewContext(rig.browser, chromedp.WithListener(con.listen("crowd")))
	t.Cleanup(cancel2)
	if err := chromedp.Do(crowd, chromedp.Emulate(device.GalaxyS5), chromedp.Navigate(srv.URL+ticketLink(tk))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, crowd, "crowd", `document.body.dataset.state === "watching" && document.getElementById("keyboard").textContent === "An Android phone has the keyboard"`, 20*time.Second)
	if shown := pageEval[string](t, crowd, `["take", "give", "kbd", "clipbtn", "keys"].filter((id) => getComputedStyle(document.getElementById(id)).display !== "none").join(" ")`); shown != "" {
		t.Fatalf("the watch-only phone shows %q", shown)
	}
	shoot(t, crowd, "glass-phone-watch-only.png")
	for _, e := range con.all() {
		t.Errorf("browser console: %s", e)
	}
}
