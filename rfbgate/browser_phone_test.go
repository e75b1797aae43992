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
	for _, m := range regexp.MustCompile(`key <(\w+)>\s*\{(?:[^}]*?=)?\s*\[\s*([^,\s\]]+)`).FindAllStringSubmatch(string(out), -1) {
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

// TestBrowserPhone: a Galaxy S5 (360×640, touch, mobile viewport) emulated
// in headless Chromium. /glass/ without ?agent= lists the computers; the
// page fits the screen without zooming, with touch targets of 44 px at
// least; the phone takes the keyboard by touch, taps "Keyboard", which
// focuses the input that raises the on-screen keyboard, and types as a
// phone keyboard does (text inserted, not key events): the word, a
// correction with Backspace and Enter reach the X display as those keys.
// A tap on the screen is a click. Nothing lands in the console.
func TestBrowserPhone(t *testing.T) {
	rig := newPageRig(t)
	srv, con := rig.srv, rig.con
	xe := watchX(t, rig.xv.Display)
	keymap := xKeymap(t, rig.xv.Display)
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
	waitPage(t, phone, "phone", `document.body.dataset.state === "watching"`, 20*time.Second)

	// It fits: no sideways scrolling, nothing below the fold, and every
	// visible button at least 44×44 CSS px.
	layout := pageEval[map[string]float64](t, phone, `(() => {
		const b = [...document.querySelectorAll('button')].filter((e) => e.offsetParent !== null).map((e) => e.getBoundingClientRect());
		const s = document.getElementById('screen').getBoundingClientRect();
		const c = document.querySelector('#screen canvas').getBoundingClientRect();
		return { vw: innerWidth, vh: innerHeight, sw: document.documentElement.scrollWidth, sh: document.documentElement.scrollHeight,
			minW: Math.min(...b.map((r) => r.width)), minH: Math.min(...b.map((r) => r.height)),
			screenBottom: s.bottom, canvasW: c.width, canvasRight: c.right, screenH: s.height };
	})()`)
	if layout["vw"] != 360 || layout["sw"] > layout["vw"] || layout["sh"] > layout["vh"] || layout["screenBottom"] > layout["vh"] ||
		layout["canvasRight"] > layout["vw"] || layout["minW"] < 44 || layout["minH"] < 44 || layout["screenH"] < 200 {
		t.Fatalf("the page does not fit a 360×640 phone: %v", layout)
	}
	t.Logf("360×640: screen %v px high, canvas %v px wide, smallest button %v×%v", layout["screenH"], layout["canvasW"], layout["minW"], layout["minH"])

	// Take over by touch; the Keyboard button appears and focuses the input.
	tap(t, phone, "#take")
	waitPage(t, phone, "phone", `document.body.dataset.state === "typing" && !document.getElementById("kbd").hidden`, 5*time.Second)
	time.Sleep(300 * time.Millisecond) // the 360 px screenshot, taken after the layout settled
	shot, err := chromedp.Run(phone, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(os.TempDir(), "glass-phone-360x640.png"), shot, 0o644)
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
	// A tap on the screen is a click.
	xe.take()
	tap(t, phone, "#screen canvas")
	if ev := xe.waitFor(5*time.Second, func(e []xEvent) bool { return count(e, "ButtonRelease") >= 1 }); count(ev, "ButtonPress") != 1 {
		t.Fatalf("a tap on the screen: X saw %v, want one click", ev)
	}
	for _, e := range con.all() {
		t.Errorf("browser console: %s", e)
	}
}
