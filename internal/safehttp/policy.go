package safehttp

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"code.dny.dev/ssrf"
)

var (
	// ErrBlocked is the errors.Is target for a refused destination: a
	// blocked address, a name that resolves to one, a blocked name, a port
	// other than 80/443 outside the allowlist, or an https→http redirect.
	// The wrapping error names the host/IP and the rule, never a response
	// body.
	ErrBlocked = errors.New("safehttp: destination blocked")
	// ErrTooLarge is returned by ReadBody when the decoded body passes the
	// caller's limit.
	ErrTooLarge = errors.New("safehttp: response body too large")
	// ErrInvalidURL is the errors.Is target for a URL that is not an
	// absolute http(s) URL with a plain host: other schemes, userinfo,
	// opaque forms, malformed hosts or ports.
	ErrInvalidURL = errors.New("safehttp: invalid URL")
	// ErrTooManyRedirects is returned when a redirect chain is longer than
	// Options.MaxRedirects.
	ErrTooManyRedirects = errors.New("safehttp: too many redirects")
)

// rule is one blocked prefix with the reason shown in errors, so an operator
// reading a refused crawl knows which rule fired.
type rule struct {
	prefix netip.Prefix
	why    string
}

func mustRules(pairs ...string) []rule {
	out := make([]rule, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, rule{netip.MustParsePrefix(pairs[i]), pairs[i+1]})
	}
	return out
}

// metadataRules are cloud instance-metadata and platform endpoints. Most sit
// inside ranges blocked anyway; they are listed first so the error says
// "cloud metadata", and because 168.63.129.16 (Azure WireServer) is a public
// address no special-purpose registry covers.
var metadataRules = mustRules(
	"169.254.169.254/32", "cloud metadata (AWS, GCP, Azure, OCI, DigitalOcean, ...)",
	"169.254.170.2/32", "cloud metadata (AWS ECS task metadata)",
	"169.254.169.123/32", "cloud platform service (AWS time sync)",
	"169.254.169.253/32", "cloud platform service (AWS VPC DNS)",
	"169.254.0.23/32", "cloud metadata (Tencent Cloud)",
	"100.100.100.200/32", "cloud metadata (Alibaba Cloud)",
	"168.63.129.16/32", "cloud platform service (Azure WireServer)",
	"192.0.0.192/32", "cloud metadata (Oracle Cloud legacy)",
	"fd00:ec2::254/128", "cloud metadata (AWS IMDS over IPv6)",
	"fd00:ec2::253/128", "cloud platform service (AWS VPC DNS over IPv6)",
	"fd00:ec2::23/128", "cloud platform service (AWS time sync over IPv6)",
	"fd20:ce::254/128", "cloud metadata (GCP over IPv6)",
)

// v4Rules names the IPv4 special-purpose ranges. The authoritative list is
// ssrf.IPv4DeniedPrefixes (generated from the IANA registry) and is checked
// after these, so a range IANA adds later is blocked even before it is named
// here.
var v4Rules = mustRules(
	"0.0.0.0/8", "unspecified / \"this network\" (RFC 791)",
	"10.0.0.0/8", "private (RFC 1918)",
	"100.64.0.0/10", "carrier-grade NAT shared space (RFC 6598)",
	"127.0.0.0/8", "loopback (RFC 1122)",
	"169.254.0.0/16", "link-local (RFC 3927)",
	"172.16.0.0/12", "private (RFC 1918)",
	"192.0.0.0/24", "IETF protocol assignments (RFC 6890)",
	"192.0.2.0/24", "documentation TEST-NET-1 (RFC 5737)",
	"192.31.196.0/24", "AS112 (RFC 7535)",
	"192.52.193.0/24", "AMT (RFC 7450)",
	"192.88.99.0/24", "6to4 relay anycast (RFC 7526)",
	"192.168.0.0/16", "private (RFC 1918)",
	"192.175.48.0/24", "AS112 direct delegation (RFC 7534)",
	"198.18.0.0/15", "benchmarking (RFC 2544)",
	"198.51.100.0/24", "documentation TEST-NET-2 (RFC 5737)",
	"203.0.113.0/24", "documentation TEST-NET-3 (RFC 5737)",
	"224.0.0.0/4", "multicast (RFC 1112)",
	"255.255.255.255/32", "limited broadcast (RFC 919)",
	"240.0.0.0/4", "reserved (RFC 1112)",
)

// v6Rules names the IPv6 ranges outside or inside 2000::/3 that matter. The
// backstop is: anything outside global unicast 2000::/3 is blocked, then
// ssrf.IPv6DeniedPrefixes. The embedded-IPv4 forms (NAT64, 6to4, Teredo,
// IPv4-compatible, SIIT) are handled in v6Reason before these rules.
var v6Rules = mustRules(
	"::/128", "unspecified",
	"::1/128", "loopback",
	"100::/64", "discard-only (RFC 6666)",
	"fc00::/7", "unique local / private (RFC 4193)",
	"fe80::/10", "link-local (RFC 4291)",
	"fec0::/10", "site-local, deprecated (RFC 3879)",
	"ff00::/8", "multicast (RFC 4291)",
	"2001:db8::/32", "documentation (RFC 3849)",
	"3fff::/20", "documentation (RFC 9637)",
	"2001::/23", "IETF protocol assignments (RFC 2928)",
	"2620:4f:8000::/48", "AS112 direct delegation (RFC 7534)",
)

var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052
	nat64LocalUse  = netip.MustParsePrefix("64:ff9b:1::/48")  // RFC 8215
	sixToFour      = netip.MustParsePrefix("2002::/16")       // RFC 3056
	teredo         = netip.MustParsePrefix("2001::/32")       // RFC 4380
	v4Compatible   = netip.MustParsePrefix("::/96")           // RFC 4291 §2.5.5.1, deprecated
	siitTranslated = netip.MustParsePrefix("::ffff:0:0:0/96") // RFC 2765 IPv4-translated
)

// IsBlocked reports whether addr must not be connected to. It is the one
// predicate behind CheckURL, the dial-time check and the socket Control hook.
//
// An address inside an allow prefix is never blocked: the allowlist wins over
// every rule below, including metadata (the operator asked for it). IPv4-mapped
// IPv6 (::ffff:a.b.c.d) is unmapped first, so it can neither dodge an IPv4
// rule nor miss an IPv4 allow entry. Zones are ignored for matching
// (netip.Prefix.Contains is false for any zoned address, which would
// otherwise let "fe80::1%eth0" slip past a prefix list).
func IsBlocked(addr netip.Addr, allow []netip.Prefix) bool {
	return blockReason(addr, allow) != ""
}

// blockReason is IsBlocked with the reason, "" meaning "may connect".
func blockReason(addr netip.Addr, allow []netip.Prefix) string {
	if !addr.IsValid() {
		return "invalid address"
	}
	a := addr.WithZone("").Unmap()
	if inAllow(a, allow) {
		return ""
	}
	for _, r := range metadataRules {
		if r.prefix.Contains(a) {
			return r.why
		}
	}
	if a.Is4() {
		return v4Reason(a)
	}
	return v6Reason(a)
}

func v4Reason(a netip.Addr) string {
	for _, r := range v4Rules {
		if r.prefix.Contains(a) {
			return r.why + " " + r.prefix.String()
		}
	}
	for _, p := range ssrf.IPv4DeniedPrefixes {
		if p.Contains(a) {
			return "special-purpose " + p.String()
		}
	}
	return ""
}

func v6Reason(a netip.Addr) string {
	b := a.As16()
	embedded := func(off int) netip.Addr { return netip.AddrFrom4([4]byte(b[off : off+4])) }
	switch {
	case nat64WellKnown.Contains(a):
		// The only translation prefix with a legitimate use (IPv6-only hosts
		// behind DNS64+NAT64 reach IPv4-only sites through it), so it is
		// judged by the IPv4 address it carries.
		v4 := embedded(12)
		if why := v4Reason(v4); why != "" {
			return fmt.Sprintf("NAT64 64:ff9b::/96 embedding %s: %s", v4, why)
		}
		for _, r := range metadataRules {
			if r.prefix.Contains(v4) {
				return fmt.Sprintf("NAT64 64:ff9b::/96 embedding %s: %s", v4, r.why)
			}
		}
		return ""
	case nat64LocalUse.Contains(a):
		// Where the IPv4 bits sit depends on the operator's prefix length,
		// so the embedded address cannot be checked: refuse the range.
		return "NAT64 local-use 64:ff9b:1::/48 (RFC 8215)"
	case sixToFour.Contains(a):
		return fmt.Sprintf("6to4 2002::/16 embedding %s (deprecated, RFC 7526)", embedded(2))
	case teredo.Contains(a):
		client := embedded(12).As4()
		for i := range client {
			client[i] ^= 0xff
		}
		return fmt.Sprintf("Teredo 2001::/32 (server %s, client %s)", embedded(4), netip.AddrFrom4(client))
	case siitTranslated.Contains(a):
		return fmt.Sprintf("IPv4-translated ::ffff:0:0:0/96 embedding %s", embedded(12))
	case v4Compatible.Contains(a) && a.Compare(netip.MustParseAddr("::1")) > 0:
		return fmt.Sprintf("IPv4-compatible ::/96 embedding %s (deprecated)", embedded(12))
	}
	for _, r := range v6Rules {
		if r.prefix.Contains(a) {
			return r.why + " " + r.prefix.String()
		}
	}
	if !ssrf.IPv6GlobalUnicast.Contains(a) {
		return "outside IPv6 global unicast 2000::/3"
	}
	for _, p := range ssrf.IPv6DeniedPrefixes {
		if p.Contains(a) {
			return "special-purpose " + p.String()
		}
	}
	return ""
}

// inAllow reports whether a (unzoned, unmapped) is inside an allow prefix.
// Allow prefixes written in IPv4-mapped form are unmapped the same way.
func inAllow(a netip.Addr, allow []netip.Prefix) bool {
	a = a.WithZone("").Unmap()
	for _, p := range allow {
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		if p.IsValid() && p.Contains(a) {
			return true
		}
	}
	return false
}

// portAllowed is the port half of the policy: 80 and 443 everywhere, any port
// inside the allowlist (local test servers, intranet services).
func portAllowed(a netip.Addr, port uint16, allow []netip.Prefix) bool {
	return port == 80 || port == 443 || inAllow(a, allow)
}

// ParseAllow parses CONCIERGE_OUTBOUND_ALLOW: CIDR prefixes or bare IPs
// (taken as /32 or /128) separated by commas or whitespace. An empty string
// is an empty allowlist.
func ParseAllow(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	}) {
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, fmt.Errorf("safehttp: outbound allowlist entry %q: %w", f, err)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("safehttp: outbound allowlist entry %q: %w", f, err)
		}
		if a.Zone() != "" {
			return nil, fmt.Errorf("safehttp: outbound allowlist entry %q: zones are not supported", f)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// blockedNames are hosts that point inside the deployment whatever DNS says
// (resolver search paths, /etc/hosts, cluster DNS), refused by name so the
// error is clear and so no lookup for them ever leaves the box.
var blockedNames = map[string]string{
	"localhost":                "loopback name",
	"ip6-localhost":            "loopback name (/etc/hosts)",
	"ip6-loopback":             "loopback name (/etc/hosts)",
	"metadata":                 "cloud metadata name (GCP search path)",
	"metadata.goog":            "cloud metadata name (GCP)",
	"metadata.google.internal": "cloud metadata name (GCP)",
	"instance-data":            "cloud metadata name (AWS)",
	"metadata.tencentyun.com":  "cloud metadata name (Tencent Cloud)",
	"kubernetes":               "cluster-internal name",
	"kubernetes.default":       "cluster-internal name",
	"kubernetes.default.svc":   "cluster-internal name",
}

// blockedSuffixes are special-use domains that never name a public host.
var blockedSuffixes = []struct{ suffix, why string }{
	{"localhost", "special-use .localhost (RFC 6761)"},
	{"local", "multicast DNS .local (RFC 6762)"},
	{"internal", "private-use .internal (ICANN 2024)"},
	{"localdomain", "local domain convention"},
	{"home.arpa", "home network .home.arpa (RFC 8375)"},
	{"arpa", "infrastructure .arpa"},
}

// nameReason returns why a normalised (lower-case, no trailing dot) host
// name is refused, or "".
func nameReason(host string) string {
	if why, ok := blockedNames[host]; ok {
		return why
	}
	for _, s := range blockedSuffixes {
		if host == s.suffix || strings.HasSuffix(host, "."+s.suffix) {
			return s.why
		}
	}
	return ""
}
