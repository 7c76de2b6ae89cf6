package safehttp

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// host is a URL or dial host after normalisation: either a literal IP or a
// lower-case ASCII name without a trailing dot.
type host struct {
	ip   netip.Addr // valid when the host is a literal in any spelling
	name string     // set when it is a name
}

func (h host) String() string {
	if h.ip.IsValid() {
		return h.ip.String()
	}
	return h.name
}

// parseHost normalises a host the way the layers below us would read it, so
// the check and the connection agree on what the host means:
//
//   - non-ASCII names go through IDNA UTS #46 mapping exactly like
//     net/http does before dialing, so "ｌｏｃａｌｈｏｓｔ" and
//     "１２７.０.０.１" are seen as localhost and 127.0.0.1;
//   - numeric hosts are decoded with inet_aton rules (what getaddrinfo, and
//     so the cgo resolver, accepts): 127.1, 2130706433, 0x7f000001,
//     0177.0.0.1, 0;
//   - a host whose last label is numeric but that is not a valid IPv4 in
//     any spelling is refused rather than handed to a resolver, because no
//     public name ends in a numeric label and resolvers disagree on them.
func parseHost(raw string) (host, error) {
	s := raw
	if s == "" {
		return host{}, fmt.Errorf("%w: empty host", ErrInvalidURL)
	}
	if strings.Contains(s, ":") {
		// Only IPv6 literals contain a colon once the port is split off.
		a, err := netip.ParseAddr(s)
		if err != nil {
			return host{}, fmt.Errorf("%w: bad IPv6 literal %q", ErrInvalidURL, raw)
		}
		return host{ip: a}, nil
	}
	if !isASCII(s) {
		a, err := idna.Lookup.ToASCII(s)
		if err != nil {
			return host{}, fmt.Errorf("%w: host %q: %v", ErrInvalidURL, raw, err)
		}
		s = a
	}
	s = strings.ToLower(s)
	// One trailing dot is the fully-qualified spelling of the same name
	// ("localhost." is localhost); more than one is malformed.
	s = strings.TrimSuffix(s, ".")
	if s == "" || strings.HasPrefix(s, ".") || strings.Contains(s, "..") {
		return host{}, fmt.Errorf("%w: malformed host %q", ErrInvalidURL, raw)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return host{}, fmt.Errorf("%w: host %q has character %q", ErrInvalidURL, raw, c)
		}
	}
	if a, numeric, err := parseInetAton(s); numeric {
		if err != nil {
			return host{}, fmt.Errorf("%w: numeric host %q is not an IPv4 address", ErrInvalidURL, raw)
		}
		return host{ip: a}, nil
	}
	if len(s) > 253 {
		return host{}, fmt.Errorf("%w: host name too long", ErrInvalidURL)
	}
	return host{name: s}, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

var errNotIPv4 = errors.New("not an IPv4 address")

// parseInetAton decodes the IPv4 spellings inet_aton(3) and the WHATWG URL
// standard accept: one to four dot-separated parts, each decimal, octal
// (leading 0) or hex (0x); the last part fills all remaining bytes. numeric
// reports whether the host ends in a numeric label, i.e. must be read as an
// IPv4 address at all (the WHATWG "ends in a number" rule).
func parseInetAton(s string) (a netip.Addr, numeric bool, err error) {
	parts := strings.Split(s, ".")
	if !isNumericLabel(parts[len(parts)-1]) {
		return netip.Addr{}, false, nil
	}
	if len(parts) > 4 {
		return netip.Addr{}, true, errNotIPv4
	}
	var vals []uint64
	for _, p := range parts {
		v, err := parseIPv4Part(p)
		if err != nil {
			return netip.Addr{}, true, err
		}
		vals = append(vals, v)
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, true, errNotIPv4
		}
		n |= v << (8 * (3 - i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, true, errNotIPv4
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true, nil
}

func isNumericLabel(l string) bool {
	if l == "" {
		return false
	}
	if len(l) >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
		for i := 2; i < len(l); i++ {
			if !isHex(l[i]) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func parseIPv4Part(p string) (uint64, error) {
	if p == "" {
		return 0, errNotIPv4
	}
	base := 10
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		p, base = p[2:], 16
		if p == "" {
			return 0, nil // "0x" is zero for WHATWG
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	v, err := strconv.ParseUint(p, base, 64)
	if err != nil || v > 0xffffffff {
		return 0, errNotIPv4
	}
	return v, nil
}
