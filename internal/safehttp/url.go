package safehttp

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
)

// CheckURL validates a customer-supplied URL before any connection is made
// and returns the parsed, normalised URL (lower-case scheme and host, IDNA
// mapped, canonical IP literal, default port dropped, fragment removed).
//
// It refuses (ErrInvalidURL) anything but an absolute http/https URL with a
// host, and any userinfo: "http://user:pass@host" leaks credentials and
// "http://public@127.0.0.1" exists to fool humans. It refuses (ErrBlocked)
// literal hosts that IsBlocked, in every spelling (see parseHost), blocked
// names (localhost, *.localhost, metadata.google.internal, *.internal, ...)
// and ports other than 80/443 unless the literal IP is allowlisted.
//
// A name cannot be judged here: its addresses are checked at dial time,
// which is the check that really enforces the policy. For the same reason a
// name on another port passes when allow is non-empty (it may resolve into
// the allowlist) and is refused at dial time otherwise.
func CheckURL(raw string, allow []netip.Prefix) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse's error quotes the whole input; keep it, it is the
		// caller's own string.
		return nil, fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	return checkParsed(u, allow)
}

// checkParsed is CheckURL on an already parsed URL; it never modifies u.
// The Transport runs it on every request, including each redirect hop.
func checkParsed(u *url.URL, allow []netip.Prefix) (*url.URL, error) {
	if u == nil {
		return nil, fmt.Errorf("%w: nil URL", ErrInvalidURL)
	}
	var defPort uint16
	switch u.Scheme {
	case "http":
		defPort = 80
	case "https":
		defPort = 443
	default:
		return nil, fmt.Errorf("%w: scheme %q is not http or https", ErrInvalidURL, u.Scheme)
	}
	if u.Opaque != "" {
		return nil, fmt.Errorf("%w: not an absolute URL with a host", ErrInvalidURL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: URLs with userinfo (user@host) are not allowed", ErrInvalidURL)
	}
	port := defPort
	if ps := u.Port(); ps != "" {
		p, err := strconv.ParseUint(ps, 10, 16)
		if err != nil || p == 0 {
			return nil, fmt.Errorf("%w: bad port %q", ErrInvalidURL, ps)
		}
		port = uint16(p)
	}
	h, err := parseHost(u.Hostname())
	if err != nil {
		return nil, err
	}
	if err := checkHost(h, port, allow); err != nil {
		return nil, err
	}

	n := *u
	n.User = nil
	n.Fragment, n.RawFragment = "", ""
	if n.Path == "" && n.RawPath == "" {
		n.Path = "/"
	}
	hs := h.name
	if h.ip.IsValid() {
		hs = h.ip.Unmap().String()
	}
	if port != defPort {
		n.Host = net.JoinHostPort(hs, strconv.Itoa(int(port)))
	} else if h.ip.Is6() && !h.ip.Is4In6() {
		n.Host = "[" + hs + "]"
	} else {
		n.Host = hs
	}
	return &n, nil
}

// checkHost applies what can be known before resolution: the address policy
// to literals, the name list to names, and the port rule.
func checkHost(h host, port uint16, allow []netip.Prefix) error {
	if h.ip.IsValid() {
		if why := blockReason(h.ip, allow); why != "" {
			return fmt.Errorf("%w: %s is %s", ErrBlocked, h.ip, why)
		}
		if h.ip.Zone() != "" && !inAllow(h.ip, allow) {
			return fmt.Errorf("%w: scoped address %s", ErrInvalidURL, h.ip)
		}
		if !portAllowed(h.ip, port, allow) {
			return fmt.Errorf("%w: port %d on %s (only 80 and 443 outside the allowlist)", ErrBlocked, port, h.ip)
		}
		return nil
	}
	if why := nameReason(h.name); why != "" {
		return fmt.Errorf("%w: %s is a %s", ErrBlocked, h.name, why)
	}
	if port != 80 && port != 443 && len(allow) == 0 {
		return fmt.Errorf("%w: port %d on %s (only 80 and 443 outside the allowlist)", ErrBlocked, port, h.name)
	}
	return nil
}
