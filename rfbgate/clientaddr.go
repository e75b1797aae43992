package rfbgate

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientAddr is the address of the client behind req, as the logs, the
// refusal records and the metrics' loopback check name it: the
// connection's peer (host:port), or, when that peer is one of
// Config.TrustedProxies, the address its X-Forwarded-For names: the
// rightmost entry that is not itself a trusted proxy (entries left of it
// were written by the client and prove nothing). A proxy that sends no
// usable X-Forwarded-For is named itself.
func (r *Relay) clientAddr(req *http.Request) string {
	return forwardedFor(req.RemoteAddr, req.Header.Values("X-Forwarded-For"), r.cfg.TrustedProxies)
}

// forwardedFor is clientAddr's rule, for a peer address and the
// X-Forwarded-For header's values.
func forwardedFor(peer string, xff []string, trusted []netip.Prefix) string {
	if len(trusted) == 0 || len(xff) == 0 {
		return peer
	}
	ip, ok := addrOf(peer)
	if !ok || !inPrefixes(ip, trusted) {
		return peer
	}
	var hops []string
	for _, v := range xff {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		hop, ok := addrOf(strings.TrimSpace(hops[i]))
		if !ok {
			return peer // a malformed entry: trust nothing left of it
		}
		if !inPrefixes(hop, trusted) || i == 0 {
			return hop.String()
		}
	}
	return peer
}

// addrOf parses an IP address, with or without a port.
func addrOf(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	return a.Unmap(), err == nil
}

func inPrefixes(ip netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ParseTrustedProxies parses a comma-separated list of addresses and
// CIDR prefixes ("127.0.0.1,10.0.0.0/8") for Config.TrustedProxies.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, err
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, err
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// fromLoopback reports whether a client address (host:port or an IP) is
// a loopback address.
func fromLoopback(remote string) bool {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		remote = host
	}
	ip, ok := addrOf(remote)
	return ok && ip.IsLoopback()
}
