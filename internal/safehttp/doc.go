// Package safehttp owns every outbound HTTP request Concierge makes to a URL
// that a customer supplied or influenced: the crawler, auto-recrawl, sitemap
// and robots.txt fetches, webhook deliveries and the demo page helper. It is
// the only package allowed to build an http.Client, an http.Transport or a
// net.Dialer for such traffic; a repository-wide static test
// (staticcheck_test.go) fails the build if any other package does so outside
// a short, reviewed allowlist of operator-configured endpoints.
//
// The guard (RELIABILITY.md G12/G13) works at three layers so that no single
// mistake opens a hole:
//
//  1. CheckURL (also run by the Transport on every request, including each
//     redirect hop) refuses anything that is not an absolute http(s) URL on
//     port 80/443 without userinfo, and refuses hosts that are obviously
//     internal in any spelling the URL parser, IDNA mapping or the C
//     resolver would accept (127.1, 0x7f000001, [::ffff:7f00:1],
//     "ｌｏｃａｌｈｏｓｔ", metadata.google.internal, ...).
//  2. The Transport's DialContext resolves the name once with the configured
//     Resolver, refuses the whole name if ANY resolved address is blocked
//     (IsBlocked) or the port is not 80/443 for it, and then dials the
//     checked literal IP, so a second DNS answer (rebinding, TOCTOU) can
//     never be the one that is connected to.
//  3. The default raw dialer also carries a net.Dialer.Control hook that
//     re-applies the same predicate to the socket address the kernel is
//     about to connect to.
//
// The Transport never consults HTTP_PROXY/HTTPS_PROXY (a proxy would turn
// the address check into a check of the proxy's address), refuses https→http
// downgrades and bounds redirects, header size and every timeout. ReadBody
// caps the DECODED size of a body, so a gzip bomb costs at most its limit.
//
// The only way to reach a blocked address is Options.Allow, a list of CIDR
// prefixes (CONCIERGE_OUTBOUND_ALLOW, parsed by ParseAllow) that are
// reachable on any port; tests use 127.0.0.1/32 and private deployments
// their intranet.
package safehttp
