package rfbgate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPasswordFileForms: the file TigerVNC's vncpasswd writes is read as
// what it is (its password authenticates to a real Xvnc started with the
// same file), text as before, and binary of another size is refused in
// words; a file its group or others can read is reported.
func TestPasswordFileForms(t *testing.T) {
	bin := needPeer(t, "vncpasswd")
	dir := t.TempDir()
	vncpasswd := func(pw string) []byte {
		cmd := exec.Command(bin, "-f")
		cmd.Stdin = strings.NewReader(pw + "\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("vncpasswd -f: %v", err)
		}
		return out
	}
	write := func(name string, b []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	for _, pw := range []string{testPassword, "12345678", "a", "p\nq"} {
		s, err := ReadPasswordFile(write("rfbauth", vncpasswd(pw), 0o600))
		want := strings.SplitN(pw, "\n", 2)[0]
		if len(want) > 8 {
			want = want[:8]
		}
		if err != nil || string(s.b) != want {
			t.Errorf("vncpasswd file of %q: %v (a %d-byte password)", pw, err, len(s.b))
		}
	}
	// With a view-only password, vncpasswd writes a second block: ignored.
	if s, err := ReadPasswordFile(write("rfbauth16", append(vncpasswd("full"), vncpasswd("view")...), 0o600)); err != nil || string(s.b) != "full" {
		t.Errorf("16-byte vncpasswd file: %v", err)
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"bin9", append(vncpasswd("x"), 0), "neither text nor a vncpasswd file (9 bytes"},
		{"bin7", []byte{1, 2, 3, 4, 5, 6, 7}, "neither text nor a vncpasswd file (7 bytes"},
		{"empty", vncPasswdFile(""), "an empty password"},
	} {
		if _, err := ReadPasswordFile(write(c.name, c.b, 0o600)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// Text of 8 bytes is still text.
	if s, err := ReadPasswordFile(write("text8", []byte("passwd1\n"), 0o600)); err != nil || string(s.b) != "passwd1" {
		t.Errorf("8-byte text file: %v", err)
	}
	// Modes: only the owner may read.
	for _, c := range []struct {
		mode    os.FileMode
		exposed bool
	}{{0o600, false}, {0o400, false}, {0o640, true}, {0o604, true}, {0o644, true}} {
		err := CheckPasswordFileMode(write("mode", []byte("pw\n"), c.mode))
		var ex *ExposedPasswordFileError
		if errors.As(err, &ex) != c.exposed || (!c.exposed && err != nil) {
			t.Errorf("mode %#o: %v, exposed want %v", c.mode, err, c.exposed)
		}
		if c.exposed && !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %#o: %v does not say the fix", c.mode, err)
		}
	}
	if err := CheckPasswordFileMode(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file has no mode")
	}
}

// TestCheckComputers: the start-up check against real Xvnc servers. The
// right password read from the vncpasswd file Xvnc itself uses passes and
// the computer is up; a wrong one fails in one line naming the computer
// and the refusal, shows it down in the status with the reason, and holds
// off viewers (no second refused attempt); a server that is not there
// fails in one line too. Each check's dial shows in the dial counters and
// the metrics by its result.
func TestCheckComputers(t *testing.T) {
	xv := startXvnc(t, testPassword)
	dir := t.TempDir()
	rfbauth := filepath.Join(dir, "rfbauth")
	os.WriteFile(rfbauth, vncPasswdFile(testPassword), 0o600)
	pw, err := ReadPasswordFile(rfbauth)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTestRelay(t, Config{Computers: []Computer{
		{Name: "good", Addr: xv.Addr, Password: pw},
		{Name: "wrong", Addr: xv.Addr, Password: NewSecret("not-" + testPassword)},
		{Name: "gone", Addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), Password: pw},
	}})
	if st, _ := tr.Status("good"); st.State != stateUnknown {
		t.Fatalf("before any dial: %+v", st.Health)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tr.Check(ctx, "good"); err != nil {
		t.Fatalf("right password from the vncpasswd file: %v", err)
	}
	if st, _ := tr.Status("good"); st.State != stateUp {
		t.Fatalf("after a good check: %+v", st.Health)
	}
	for _, c := range []struct{ name, want string }{
		{"wrong", "computer wrong (" + xv.Addr + "): the computer refused glass's VNC password"},
		{"gone", "computer gone (127.0.0.1:"},
	} {
		err := tr.Check(ctx, c.name)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), testPassword) {
			t.Fatalf("%s: %v, want one line with %q", c.name, err, c.want)
		}
		st, _ := tr.Status(c.name)
		if st.State != stateDown || st.Reason == "" {
			t.Fatalf("%s: status %+v, want down with a reason", c.name, st.Health)
		}
		t.Logf("%s: %v", c.name, err)
	}
	// A viewer of the refused computer is not dialled again: held off.
	tk, _ := tr.Watch("wrong", "s")
	if _, err := dialRFB(t, tr.wsURL(tk.Token, "wrong"), false); err == nil {
		t.Fatal("a viewer opened with the wrong password")
	}
	if n := tr.DialStats("wrong").AuthFailures; n != 1 {
		t.Fatalf("%d password failures, want the check's one", n)
	}
	// The checks' dials are counted as a viewer's are: one attempt each,
	// by result, in the dial counters and in /metrics.
	if n := tr.DialStats("good").Handshakes; n != 1 {
		t.Fatalf("%d handshakes counted for the good computer, want the check's one", n)
	}
	m := scrape(t, tr.Relay)
	for _, c := range []struct{ name, result string }{{"good", dialOK}, {"wrong", dialAuth}, {"gone", dialUnreachable}} {
		m.want(t, 1, "glass_dial_attempts_total", "computer", c.name, "result", c.result)
		m.want(t, 1, "glass_dial_attempts_total", "computer", c.name)
	}
}
