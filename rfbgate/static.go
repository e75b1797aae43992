package rfbgate

import (
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// filesOnly serves the regular files under dir (noVNC's package) and
// nothing else: no directory listing, no index.html redirect, no dot files.
// A miss is the JSON error shape.
func filesOnly(dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		name := path.Clean("/" + req.URL.Path)
		if strings.Contains(name, "/.") {
			writeError(w, http.StatusNotFound, "not_found", "no such file")
			return
		}
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			writeError(w, http.StatusNotFound, "not_found", "no such file")
			return
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			writeError(w, http.StatusNotFound, "not_found", "no such file")
			return
		}
		http.ServeContent(w, req, st.Name(), st.ModTime(), f)
	})
}
