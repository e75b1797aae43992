package rfbgate_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/wirebench/wirebench/rfbgate"
)

// A daemon serves the relay's metrics beside its HTTP surface; without an
// admin token only loopback scrapers are answered.
func ExampleRelay_MetricsHandler() {
	relay, err := rfbgate.NewRelay(rfbgate.Config{
		Computers: []rfbgate.Computer{{Name: "demo", Addr: "127.0.0.1:5977", Password: rfbgate.NewSecret("pw")}},
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer relay.Close()
	mux := http.NewServeMux()
	mux.Handle("/metrics", relay.MetricsHandler(""))
	mux.Handle("/", rfbgate.NewHandler(relay, rfbgate.HandlerOptions{}))
	srv := httptest.NewServer(mux) // on loopback
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "glass_viewers{") {
			fmt.Println(sc.Text())
		}
	}
	// Output:
	// glass_viewers{computer="demo",role="holder"} 0
	// glass_viewers{computer="demo",role="watcher"} 0
}
