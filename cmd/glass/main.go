// Command glass is the RFB gate as a program: it relays noVNC viewers to
// Xvnc servers, lets one surface at a time type, and serves the control API.
//
//	glass -computer agent1=127.0.0.1:5901 -password-file agent1=/run/vnc/agent1 \
//	      -novnc node_modules/@novnc/novnc
//
// Then open http://127.0.0.1:7900/glass/?agent=agent1&surface=laptop.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/wirebench/wirebench/rfbgate"
)

// options are the parsed flags.
type options struct {
	listen     string
	computers  map[string]string
	passwords  map[string]string
	ticketTTL  time.Duration
	leaseTTL   time.Duration
	adminToken string
	novnc      string
	origins    []string
	maxCutText int
	dial       rfbgate.DialPolicy
	logFormat  string
}

// pairFlag collects repeatable NAME=VALUE flags.
func pairFlag(m map[string]string, what string) func(string) error {
	return func(s string) error {
		name, val, ok := strings.Cut(s, "=")
		if !ok || name == "" || val == "" {
			return fmt.Errorf("want NAME=%s, got %q", what, s)
		}
		if _, dup := m[name]; dup {
			return fmt.Errorf("%s given twice", name)
		}
		m[name] = val
		return nil
	}
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{computers: map[string]string{}, passwords: map[string]string{}}
	fs := flag.NewFlagSet("glass", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:7900", "address to serve HTTP on")
	fs.Func("computer", "NAME=HOST:PORT of an Xvnc (repeatable)", pairFlag(o.computers, "HOST:PORT"))
	fs.Func("password-file", "NAME=PATH of a file whose first line is that computer's VNC password (repeatable)", pairFlag(o.passwords, "PATH"))
	fs.DurationVar(&o.ticketTTL, "ticket-ttl", rfbgate.DefaultTicketTTL, "how long a watch ticket lives")
	fs.DurationVar(&o.leaseTTL, "lease-ttl", rfbgate.DefaultLeaseTTL, "how long a take-over lasts after its last renewal")
	tokenFile := fs.String("admin-token-file", "", "file holding a bearer token the control API requires (optional)")
	fs.StringVar(&o.novnc, "novnc", "", "noVNC 1.7 package directory; serves the viewer at /glass/")
	origins := fs.String("origins", "", "comma-separated browser origins (host patterns, path.Match syntax) allowed to use the control API and open streams besides glass's own")
	fs.IntVar(&o.maxCutText, "max-cut-text", rfbgate.DefaultMaxCutText, "largest clipboard text forwarded, in bytes")
	fs.IntVar(&o.dial.InFlight, "dial-in-flight", rfbgate.DefaultDialInFlight, "most handshakes in flight to one computer's Xvnc (TigerVNC blacklists the relay's address at 5 unauthenticated connections)")
	fs.IntVar(&o.dial.Queue, "dial-queue", rfbgate.DefaultDialQueue, "most viewers of one computer waiting for a turn to connect; more are closed with 1013")
	fs.DurationVar(&o.dial.Wait, "dial-wait", rfbgate.DefaultDialWait, "a viewer's deadline to be connected to Xvnc, waiting and retries included; then it is closed with 1013")
	fs.StringVar(&o.logFormat, "log-format", "text", "log records as text (slog's key=value) or json (one object a line)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.logFormat != "text" && o.logFormat != "json" {
		return nil, fmt.Errorf("-log-format %q: want text or json", o.logFormat)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if len(o.computers) == 0 {
		return nil, errors.New("at least one -computer NAME=HOST:PORT is required")
	}
	for name, addr := range o.computers {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("-computer %s=%s: %v", name, addr, err)
		}
		if _, ok := o.passwords[name]; !ok {
			return nil, fmt.Errorf("-computer %s has no -password-file %s=PATH", name, name)
		}
	}
	for name := range o.passwords {
		if _, ok := o.computers[name]; !ok {
			return nil, fmt.Errorf("-password-file %s names no -computer", name)
		}
	}
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return nil, fmt.Errorf("-admin-token-file: %w", err)
		}
		o.adminToken = strings.TrimSpace(string(b))
		if o.adminToken == "" {
			return nil, fmt.Errorf("-admin-token-file %s is empty", *tokenFile)
		}
	}
	if o.novnc != "" {
		if _, err := os.Stat(o.novnc + "/core/rfb.js"); err != nil {
			return nil, fmt.Errorf("-novnc %s: not a noVNC package directory (no core/rfb.js)", o.novnc)
		}
	}
	if *origins != "" {
		o.origins = strings.Split(*origins, ",")
	}
	if o.ticketTTL <= 0 || o.leaseTTL <= 0 {
		return nil, errors.New("-ticket-ttl and -lease-ttl must be positive")
	}
	if o.dial.InFlight <= 0 || o.dial.Queue <= 0 || o.dial.Wait <= 0 {
		return nil, errors.New("-dial-in-flight, -dial-queue and -dial-wait must be positive")
	}
	return o, nil
}

// newServer builds the relay and its HTTP handler from options.
func newServer(o *options, log *slog.Logger) (*rfbgate.Relay, http.Handler, error) {
	names := make([]string, 0, len(o.computers))
	for n := range o.computers {
		names = append(names, n)
	}
	sort.Strings(names)
	var comps []rfbgate.Computer
	for _, n := range names {
		pw, err := rfbgate.ReadPasswordFile(o.passwords[n])
		if err != nil {
			return nil, nil, fmt.Errorf("computer %s: %w", n, err)
		}
		comps = append(comps, rfbgate.Computer{Name: n, Addr: o.computers[n], Password: pw})
	}
	r, err := rfbgate.NewRelay(rfbgate.Config{
		Computers:      comps,
		TicketTTL:      o.ticketTTL,
		LeaseTTL:       o.leaseTTL,
		OriginPatterns: o.origins,
		Limits:         rfbgate.Limits{MaxCutText: o.maxCutText},
		Dial:           o.dial,
		Logger:         log,
		OnViewers: func(agent string, n int) {
			log.Info("glass: viewers", "agent", agent, "open", n)
		},
	})
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", r.MetricsHandler(o.adminToken))
	mux.Handle("/", rfbgate.NewHandler(r, rfbgate.HandlerOptions{AdminToken: o.adminToken, NoVNCDir: o.novnc}))
	return r, mux, nil
}

// newLogger is the program's logger: slog text or JSON on w.
func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

func run(ctx context.Context, args []string, stderr io.Writer, ready func(addr string)) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	log := newLogger(o.logFormat, stderr)
	relay, h, err := newServer(o, log)
	if err != nil {
		return err
	}
	defer relay.Close()
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	log.Info("glass: listening", "addr", ln.Addr().String(), "computers", len(o.computers), "viewer", o.novnc != "")
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	relay.Close() // viewers are hijacked connections: end them first
	return srv.Shutdown(sctx)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr, nil); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "glass:", err)
		os.Exit(2)
	}
}
