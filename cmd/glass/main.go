// Command glass is the RFB gate as a program: it relays noVNC viewers to
// Xvnc servers, lets one surface at a time type, and serves the control API.
//
//	glass -computer agent1=127.0.0.1:5901 -password-file agent1=/run/vnc/agent1
//
// Then open http://127.0.0.1:7900/ (the viewer page, with noVNC built in:
// it lists the computers). deploy/ holds a systemd unit and a Dockerfile.
//
// At start glass dials each computer, completes the RFB handshake and the
// VNC authentication, and exits (status 2, one line) if one refuses the
// password or cannot be reached, unless -allow-down starts it anyway with
// that computer shown as down. It refuses to listen beyond loopback
// without -tls-cert and -tls-key (the screen and the keys would cross the
// network in clear) unless -insecure-listen says so.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"runtime/pprof"
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
	leaseGrace time.Duration
	adminToken string
	novnc      string
	origins    []string
	maxCutText int
	dial       rfbgate.DialPolicy
	tlsCert    string
	tlsKey     string
	cert       *tls.Certificate // loaded from tlsCert and tlsKey
	insecure   bool             // -insecure-listen
	allowDown  bool             // -allow-down
	perViewer  bool             // -per-viewer-upstream
	cpuProfile string           // -cpuprofile
	logFormat  string
	proxies    []netip.Prefix // -trusted-proxies
	resume     time.Duration  // -resume-window
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
	fs.Func("password-file", "NAME=PATH of that computer's VNC password: the binary file vncpasswd writes (Xvnc's -rfbauth), or a text file whose first line is the password (repeatable)", pairFlag(o.passwords, "PATH"))
	fs.DurationVar(&o.ticketTTL, "ticket-ttl", rfbgate.DefaultTicketTTL, "how long a watch ticket lives")
	fs.DurationVar(&o.leaseTTL, "lease-ttl", rfbgate.DefaultLeaseTTL, "how long a take-over lasts after its last renewal")
	fs.DurationVar(&o.leaseGrace, "lease-grace", rfbgate.DefaultLeaseGrace, fmt.Sprintf("how long the keyboard outlives its holder's closed viewer, so that a reload keeps it (at most %v)", rfbgate.MaxLeaseGrace))
	tokenFile := fs.String("admin-token-file", "", "file holding a bearer token the control API requires (optional)")
	fs.StringVar(&o.novnc, "novnc", "", "a noVNC 1.7 package directory (node_modules/@novnc/novnc) whose files the viewer page at /glass/ loads instead of glass's own copy")
	origins := fs.String("origins", "", "comma-separated browser origins (host patterns, path.Match syntax) allowed to use the control API and open streams besides glass's own")
	fs.IntVar(&o.maxCutText, "max-cut-text", rfbgate.DefaultMaxCutText, "largest clipboard text forwarded, in bytes")
	fs.IntVar(&o.dial.InFlight, "dial-in-flight", rfbgate.DefaultDialInFlight, "most handshakes in flight to one computer's Xvnc (TigerVNC blacklists the relay's address at 5 unauthenticated connections)")
	fs.IntVar(&o.dial.Queue, "dial-queue", rfbgate.DefaultDialQueue, "most viewers of one computer waiting for a turn to connect; more are closed with 1013")
	fs.DurationVar(&o.dial.Wait, "dial-wait", rfbgate.DefaultDialWait, "a viewer's deadline to be connected to Xvnc, waiting and retries included; then it is closed with 1013")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "PEM certificate (chain) to serve HTTPS and WSS with; needs -tls-key")
	fs.StringVar(&o.tlsKey, "tls-key", "", "PEM private key of -tls-cert")
	fs.BoolVar(&o.insecure, "insecure-listen", false, "allow -listen on a non-loopback address without TLS (the screen and the keys cross the network in clear)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile (pprof) of the whole run to this file when glass stops")
	fs.BoolVar(&o.perViewer, "per-viewer-upstream", false, "give every viewer its own connection to Xvnc, relayed byte for byte, instead of one shared connection per computer")
	fs.BoolVar(&o.allowDown, "allow-down", false, "start even when a computer fails its start-up check (wrong password, unreachable); it is shown as down")
	fs.StringVar(&o.logFormat, "log-format", "text", "log records as text (slog's key=value) or json (one object a line; durations in seconds)")
	proxies := fs.String("trusted-proxies", "", "comma-separated addresses and CIDR prefixes of reverse proxies whose X-Forwarded-For names the client (in logs, and for /metrics' loopback check)")
	fs.DurationVar(&o.resume, "resume-window", rfbgate.DefaultResumeWindow, "how long after its stream closed a page may reconnect with its resume credential (a ticket link's page has no other way back)")
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
	names := make([]string, 0, len(o.computers))
	for name := range o.computers {
		names = append(names, name)
	}
	sort.Strings(names)
	// A misspelt name first: it, not the computer it left without a
	// password, is the mistake.
	for _, name := range sortedKeys(o.passwords) {
		if _, ok := o.computers[name]; !ok {
			return nil, fmt.Errorf("-password-file %s names no -computer (the computers: %s)", name, strings.Join(names, ", "))
		}
	}
	for _, name := range names {
		addr := o.computers[name]
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("-computer %s=%s: %v", name, addr, err)
		}
		if _, ok := o.passwords[name]; !ok {
			return nil, fmt.Errorf("-computer %s has no -password-file %s=PATH", name, name)
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
	if *proxies != "" {
		var err error
		if o.proxies, err = rfbgate.ParseTrustedProxies(*proxies); err != nil {
			return nil, fmt.Errorf("-trusted-proxies %s: %v", *proxies, err)
		}
	}
	if o.resume <= 0 {
		return nil, errors.New("-resume-window must be positive")
	}
	if o.ticketTTL <= 0 || o.leaseTTL <= 0 {
		return nil, errors.New("-ticket-ttl and -lease-ttl must be positive")
	}
	if err := rfbgate.CheckLeaseGrace(o.leaseGrace); err != nil { // before the relay, so a 0 is not taken for the default
		return nil, fmt.Errorf("-lease-grace: %w", err)
	}
	if o.dial.InFlight <= 0 || o.dial.Queue <= 0 || o.dial.Wait <= 0 {
		return nil, errors.New("-dial-in-flight, -dial-queue and -dial-wait must be positive")
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return nil, errors.New("-tls-cert and -tls-key go together")
	}
	if o.tlsCert != "" {
		c, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("-tls-cert %s, -tls-key %s: %v", o.tlsCert, o.tlsKey, err)
		}
		o.cert = &c
	}
	if o.cert == nil && !o.insecure {
		if err := loopbackOnly(o.listen); err != nil {
			return nil, fmt.Errorf("-listen %s: %v; serve TLS with -tls-cert and -tls-key, put glass behind a TLS reverse proxy on loopback, or accept the risk with -insecure-listen", o.listen, err)
		}
	}
	return o, nil
}

// sortedKeys is m's keys, sorted.
func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// loopbackOnly says why addr (host:port) is reachable from beyond this
// machine, or nil when it is loopback only.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "" {
		return errors.New("every interface would be served without TLS")
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else if ips, err = net.LookupIP(host); err != nil {
		return fmt.Errorf("cannot tell whether %s is loopback: %v", host, err)
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s is not a loopback address: the network would see the screen and the keys in clear", ip)
		}
	}
	return nil
}

// newServer builds the relay and its HTTP handler from options.
func newServer(o *options, log *slog.Logger) (*rfbgate.Relay, http.Handler, error) {
	var comps []rfbgate.Computer
	for _, n := range sortedKeys(o.computers) {
		pw, err := rfbgate.ReadPasswordFile(o.passwords[n])
		if err != nil {
			return nil, nil, fmt.Errorf("computer %s: %w", n, err)
		}
		var exposed *rfbgate.ExposedPasswordFileError
		if err := rfbgate.CheckPasswordFileMode(o.passwords[n]); errors.As(err, &exposed) {
			log.Warn("glass: "+exposed.Error(), "computer", n)
		}
		comps = append(comps, rfbgate.Computer{Name: n, Addr: o.computers[n], Password: pw})
	}
	r, err := rfbgate.NewRelay(rfbgate.Config{
		Computers:         comps,
		TicketTTL:         o.ticketTTL,
		LeaseTTL:          o.leaseTTL,
		LeaseGrace:        o.leaseGrace,
		OriginPatterns:    o.origins,
		Limits:            rfbgate.Limits{MaxCutText: o.maxCutText},
		PerViewerUpstream: o.perViewer,
		Dial:              o.dial,
		Logger:            log,
		TrustedProxies:    o.proxies,
		ResumeWindow:      o.resume,
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

// newLogger is the program's logger: slog text or JSON on w. In JSON a
// duration is a number of seconds (slog would write nanoseconds); text
// writes it as Go does ("1.5s").
func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: durationSeconds}))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// durationSeconds writes a duration attribute as seconds.
func durationSeconds(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.Float64(a.Key, a.Value.Duration().Seconds())
	}
	return a
}

// logStop says, once, that glass is stopping, why, and what was open:
// each computer's viewers, how many of them watched, and who held its
// keyboard.
func logStop(log *slog.Logger, why error, relay *rfbgate.Relay) {
	attrs := []any{"why", why.Error()}
	total := 0
	for _, n := range relay.Names() {
		st, err := relay.Status(n)
		if err != nil {
			continue
		}
		total += len(st.Viewers)
		g := []any{"viewers", len(st.Viewers), "watching", st.Watching}
		if st.Keyboard != nil {
			g = append(g, "keyboard", st.KeyboardName)
		}
		attrs = append(attrs, slog.Group(n, g...))
	}
	log.Info("glass: stopping", append([]any{"viewers", total}, attrs...)...)
}

// checkComputers dials each computer once (all at a time). The first
// failure, as one line, stops the start unless -allow-down; then every
// failure is logged and the computer shown as down.
func checkComputers(ctx context.Context, o *options, relay *rfbgate.Relay, log *slog.Logger) error {
	names := relay.Names()
	errs := make([]error, len(names))
	done := make(chan struct{})
	for i, n := range names {
		go func() { errs[i] = relay.Check(ctx, n); done <- struct{}{} }()
	}
	for range names {
		<-done
	}
	if err := errors.Join(errs...); err != nil && !o.allowDown {
		for _, err := range errs {
			if err != nil { // the first, in name order: one line
				return fmt.Errorf("start-up check: %s (-allow-down starts anyway)", strings.TrimPrefix(err.Error(), "rfbgate: "))
			}
		}
	}
	for i, err := range errs {
		if err != nil {
			log.Warn("glass: start-up check failed; starting anyway (-allow-down): "+strings.TrimPrefix(err.Error(), "rfbgate: "), "computer", names[i])
			continue
		}
		log.Info("glass: start-up check passed", "computer", names[i])
	}
	return nil
}

func run(ctx context.Context, args []string, stderr io.Writer, ready func(addr string)) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	log := newLogger(o.logFormat, stderr)
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	relay, h, err := newServer(o, log)
	if err != nil {
		return err
	}
	defer relay.Close()
	if err := checkComputers(ctx, o, relay, log); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelInfo)}
	scheme := "http"
	if o.cert != nil {
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*o.cert}, MinVersion: tls.VersionTLS12}
		scheme = "https"
	}
	novncFrom := "built in"
	if o.novnc != "" {
		novncFrom = o.novnc
	}
	log.Info("glass: listening", "addr", ln.Addr().String(), "scheme", scheme, "computers", len(o.computers), "novnc", novncFrom)
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() {
		if o.cert != nil {
			errc <- srv.ServeTLS(ln, "", "")
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logStop(log, context.Cause(ctx), relay)
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
