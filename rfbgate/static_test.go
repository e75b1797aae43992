package rfbgate

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/rfbgate/internal/novnc"
)

// TestVendoredNoVNC: the noVNC glass embeds is the npm package's, file
// for file (core/, vendor/pako/, the licences), compared with the package
// `make test` installs in node_modules; its licence is there.
func TestVendoredNoVNC(t *testing.T) {
	dir := noVNCDir(t)
	n := 0
	err := fs.WalkDir(novnc.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == "VERSION" {
			return err
		}
		ours, _ := fs.ReadFile(novnc.Files, p)
		theirs, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Errorf("%s: not in the npm package: %v", p, err)
			return nil
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("%s differs from the npm package's", p)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every file of the npm package's core is vendored.
	filepath.WalkDir(filepath.Join(dir, "core"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			if _, err := fs.Stat(novnc.Files, filepath.ToSlash(rel)); err != nil {
				t.Errorf("%s is not vendored", rel)
			}
		}
		return nil
	})
	lic, _ := fs.ReadFile(novnc.Files, "LICENSE.txt")
	mpl, _ := fs.ReadFile(novnc.Files, "docs/LICENSE.MPL-2.0")
	ver, _ := fs.ReadFile(novnc.Files, "VERSION")
	if !bytes.Contains(lic, []byte("MPL 2.0")) || !bytes.Contains(mpl, []byte("Mozilla Public License")) || !bytes.Contains(ver, []byte("noVNC "+novnc.Version+" ")) {
		t.Fatalf("the licence or the version record is missing: %d, %d, %q", len(lic), len(mpl), ver)
	}
	t.Logf("%d vendored files, the same as noVNC %s's on npm", n, novnc.Version)
}

// TestPageServedWithoutFlags: with no noVNC directory glass serves its
// page and its own noVNC (JavaScript as JavaScript, never a listing);
// NoVNCDir overrides the copy; / redirects to the page; /healthz answers
// without the admin token.
func TestPageServedWithoutFlags(t *testing.T) {
	r, err := NewRelay(Config{Computers: []Computer{{Name: "a", Addr: "127.0.0.1:1", Password: NewSecret(testPassword)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	srv := httptest.NewServer(NewHandler(r, HandlerOptions{AdminToken: "tok"}))
	defer srv.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(c *http.Client, url string) (*http.Response, string) {
		resp, err := c.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if resp, body := get(http.DefaultClient, srv.URL+"/glass/"); resp.StatusCode != 200 || !strings.Contains(body, "import RFB from './novnc/core/rfb.js'") {
		t.Fatalf("/glass/: %d", resp.StatusCode)
	}
	resp, body := get(http.DefaultClient, srv.URL+"/glass/novnc/core/rfb.js")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") || !strings.Contains(body, "export default class RFB") {
		t.Fatalf("rfb.js: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, _ := get(http.DefaultClient, srv.URL+"/glass/novnc/vendor/pako/lib/zlib/inflate.js"); resp.StatusCode != 200 {
		t.Fatalf("pako: %d", resp.StatusCode)
	}
	for _, p := range []string{"/glass/novnc/", "/glass/novnc/core/", "/glass/novnc/core", "/glass/novnc/../novnc.go", "/glass/novnc/%2e%2e/novnc.go", "/glass/novnc/nope.js", "/nothing"} {
		if resp, body := get(http.DefaultClient, srv.URL+p); resp.StatusCode != 404 || !strings.Contains(body, "not_found") {
			t.Errorf("GET %s: %d %s", p, resp.StatusCode, body)
		}
	}
	if resp, _ := get(noRedirect, srv.URL+"/"); resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/glass/" {
		t.Fatalf("/: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, body := get(http.DefaultClient, srv.URL+"/healthz"); resp.StatusCode != 200 || !strings.Contains(body, `"ok"`) {
		t.Fatalf("/healthz without the token: %d %s", resp.StatusCode, body)
	}
	// NoVNCDir: that directory's files instead.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "core"), 0o755)
	os.WriteFile(filepath.Join(dir, "core", "rfb.js"), []byte("// another noVNC\n"), 0o644)
	other := httptest.NewServer(NewHandler(r, HandlerOptions{NoVNCDir: dir}))
	defer other.Close()
	if resp, body := get(http.DefaultClient, other.URL+"/glass/novnc/core/rfb.js"); resp.StatusCode != 200 || body != "// another noVNC\n" {
		t.Fatalf("NoVNCDir's rfb.js: %d %q", resp.StatusCode, body)
	}
}
