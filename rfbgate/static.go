package rfbgate

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strings"

	"github.com/wirebench/wirebench/rfbgate/internal/novnc"
)

// noVNCFiles is the noVNC the viewer page loads: dir's when dir is not
// empty (HandlerOptions.NoVNCDir), else the copy vendored into glass
// (internal/novnc).
func noVNCFiles(dir string) fs.FS {
	if dir != "" {
		return os.DirFS(dir)
	}
	return novnc.Files
}

// filesOnly serves the regular files of fsys (noVNC's package) and nothing
// else: no directory listing, no index.html redirect, no dot files. A
// miss is the JSON error shape.
func filesOnly(fsys fs.FS) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		name := strings.TrimPrefix(path.Clean("/"+req.URL.Path), "/")
		if strings.HasPrefix(name, ".") || strings.Contains(name, "/.") || !fs.ValidPath(name) {
			writeError(w, http.StatusNotFound, "not_found", "no such file")
			return
		}
		f, err := fsys.Open(name)
		if err != nil {
			writeError(w, http.StatusNotFound, "not_found", "no such file")
			return
		}
		defer f.Close()
		st, err := f.Stat()
		rs, seekable := f.(io.ReadSeeker)
		if err != nil || !st.Mode().IsRegular() || !seekable {
			writeError(w, http.StatusNotFound, "not_found", "no such file")
			return
		}
		http.ServeContent(w, req, st.Name(), st.ModTime(), rs)
	})
}
