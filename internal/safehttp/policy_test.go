package safehttp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

// publicAddrs must stay reachable: through IsBlocked and through the
// production Control hook (our policy plus the ssrf Guardian).
var publicAddrs = []string{
	"93.184.216.34", "8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255",
	"172.32.0.0", "192.169.0.0", "198.17.255.255", "198.20.0.0", "223.255.255.255",
	"::ffff:8.8.8.8", "2606:4700:4700::1111", "2a00:1450::1",
	"64:ff9b::808:808", // NAT64 of a public address: judged by the embedded v4
}

func TestIsBlocked(t *testing.T) {
	blocked := []string{
		"0.0.0.0", "0.1.2.3", "127.0.0.1", "127.255.255.254", "10.0.0.1", "10.255.255.255",
		"172.16.0.1", "172.31.255.255", "192.168.0.1", "100.64.0.1", "100.127.255.255",
		"169.254.0.1", "169.254.169.254", "169.254.170.2", "100.100.100.200", "168.63.129.16",
		"192.0.0.192", "192.0.0.1", "192.0.2.1", "198.51.100.1", "203.0.113.1", "198.18.0.1",
		"198.19.255.255", "192.88.99.1", "224.0.0.1", "239.255.255.250", "240.0.0.1",
		"255.255.255.255",
		"::", "::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
		"::127.0.0.1", "::ffff:0:7f00:1", "fc00::1", "fd00:ec2::254", "fd20:ce::254",
		"fe80::1", "fe80::1%eth0", "fec0::1", "ff02::1", "100::1", "2001:db8::1", "3fff::1",
		"2002:7f00:1::", "2002:a9fe:a9fe::", "2002:5db8:d822::", // 6to4, even of a public v4
		"64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::a83f:8110",
		"64:ff9b:1::1", "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:10::1",
		"2620:4f:8000::1", "4000::1", "::2",
	}
	for _, s := range blocked {
		a := netip.MustParseAddr(s)
		if !IsBlocked(a, nil) {
			t.Errorf("%s is not blocked", s)
		}
	}
	for _, s := range publicAddrs {
		a := netip.MustParseAddr(s)
		if IsBlocked(a, nil) {
			t.Errorf("%s is blocked: %s", s, blockReason(a, nil))
		}
	}
	if !IsBlocked(netip.Addr{}, nil) {
		t.Error("the zero Addr is not blocked")
	}
	// Every prefix of the ssrf library is covered (its lists are the
	// backstop; this guards against a refactor dropping them).
	for _, r := range v4Rules {
		if !IsBlocked(r.prefix.Addr(), nil) {
			t.Errorf("%s not blocked", r.prefix)
		}
	}

	// The allowlist wins over every rule, in mapped form too.
	allow := []netip.Prefix{
		netip.MustParsePrefix("127.0.0.1/32"),
		netip.MustParsePrefix("169.254.0.0/16"),
		netip.MustParsePrefix("::ffff:10.0.0.0/104"),
		netip.MustParsePrefix("fd00::/8"),
	}
	for _, s := range []string{"127.0.0.1", "::ffff:127.0.0.1", "169.254.169.254", "10.1.2.3", "fd00:ec2::254"} {
		if IsBlocked(netip.MustParseAddr(s), allow) {
			t.Errorf("%s blocked despite the allowlist", s)
		}
	}
	for _, s := range []string{"127.0.0.2", "::1", "64:ff9b::7f00:1", "192.168.0.1"} {
		if !IsBlocked(netip.MustParseAddr(s), allow) {
			t.Errorf("%s not blocked: the allowlist must not leak past its prefixes", s)
		}
	}
}

func TestParseHostSpellings(t *testing.T) {
	cases := map[string]string{
		"127.1": "127.0.0.1", "2130706433": "127.0.0.1", "0x7f000001": "127.0.0.1",
		"0X7F000001": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "0": "0.0.0.0", "0x7f.0.0.1": "127.0.0.1",
		"127.0.1": "127.0.0.1", "10.1": "10.0.0.1", "0x0a.0x00.0x00.0x01": "10.0.0.1",
		"00000000177.0.0.1": "127.0.0.1", "1.2.3.4.": "1.2.3.4", "0x": "0.0.0.0",
		"::ffff:7f00:1": "::ffff:127.0.0.1", "１２７.０.０.１": "127.0.0.1",
		"Example.COM.": "example.com", "ｅｘａｍｐｌｅ.com": "example.com",
		"bücher.example": "xn--bcher-kva.example", "1x.example": "1x.example",
	}
	for in, want := range cases {
		h, err := parseHost(in)
		if err != nil || h.String() != want {
			t.Errorf("parseHost(%q) = %v, %v; want %s", in, h, err, want)
		}
	}
	for _, in := range []string{"256.1.1.1", "1.2.3.4.5", "4294967296", "0x100000000", "1.256.0.0.0", "08.0.0.1",
		"a..b", ".a", "..", "a b", "exa$mple.com", "1..2", "[::1]", "::1::", "example.09"} {
		if h, err := parseHost(in); err == nil {
			t.Errorf("parseHost(%q) = %v, want an error", in, h)
		}
	}
}

func TestCheckURLNormalises(t *testing.T) {
	cases := map[string]string{
		"HTTP://Example.COM:80/a?b=c#frag": "http://example.com/a?b=c",
		"https://example.com:443":          "https://example.com/",
		"https://example.com:8443/x":       "", // refused without an allowlist
		"http://0x5db8d822/":               "http://93.184.216.34/",
		"http://[::ffff:93.184.216.34]/":   "http://93.184.216.34/",
		"http://[2606:4700::1111]:80/":     "http://[2606:4700::1111]/",
		"http://ｅｘａｍｐｌｅ.com/":              "http://example.com/",
		"http://example.com./p":            "http://example.com/p",
		"http://example.com:080/":          "http://example.com/",
	}
	for in, want := range cases {
		u, err := CheckURL(in, nil)
		if want == "" {
			if err == nil {
				t.Errorf("CheckURL(%q) = %v, want an error", in, u)
			}
			continue
		}
		if err != nil || u.String() != want {
			t.Errorf("CheckURL(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	// Allowlisted literal: any port; a name on another port is left to the
	// dial-time check when an allowlist exists.
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	if _, err := CheckURL("http://127.0.0.1:6379/", allow); err != nil {
		t.Errorf("allowlisted port: %v", err)
	}
	if _, err := CheckURL("http://127.0.0.2:80/", allow); !errors.Is(err, ErrBlocked) {
		t.Errorf("127.0.0.2 with 127.0.0.1/32 allowed: %v", err)
	}
	if _, err := CheckURL("http://svc.test:8080/", allow); err != nil {
		t.Errorf("name on 8080 with an allowlist: %v", err)
	}
	for _, bad := range []string{"", "/relative", "//example.com/", "http:example.com", "http://", "http://:80/", "http://example.com:0/", "http://example.com:65536/", "http://exa%20mple.com/", " http://example.com/"} {
		if _, err := CheckURL(bad, nil); !errors.Is(err, ErrInvalidURL) {
			t.Errorf("CheckURL(%q): %v, want ErrInvalidURL", bad, err)
		}
	}
}

func TestParseAllow(t *testing.T) {
	got, err := ParseAllow(" 127.0.0.1/32, 10.0.0.0/8 ::1\tfd00::1/8,192.168.1.1 ")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"127.0.0.1/32", "10.0.0.0/8", "::1/128", "fd00::/8", "192.168.1.1/32"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("entry %d: %s, want %s", i, got[i], want[i])
		}
	}
	if p, err := ParseAllow(""); err != nil || len(p) != 0 {
		t.Errorf("empty: %v %v", p, err)
	}
	for _, bad := range []string{"localhost", "10.0.0.0/33", "fe80::1%eth0", "10.0.0.0/8;"} {
		if _, err := ParseAllow(bad); err == nil {
			t.Errorf("ParseAllow(%q) accepted", bad)
		}
	}
}

func TestAllowList(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("local")) }))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	res := &fakeResolver{hosts: map[string][]string{"svc.test": {"127.0.0.1"}}, calls: map[string]int{}}

	// Allowed: the literal and a name resolving into the prefix, on a
	// random (non-80/443) port.
	d := &recDialer{directLoopback: true}
	c := New(Options{Allow: allow, Resolver: res, Dial: d.Dial, Timeout: 5 * time.Second})
	for _, u := range []string{srv.URL + "/", "http://svc.test:" + itoa(port) + "/"} {
		resp, err := get(c, u)
		if err != nil {
			t.Fatalf("%s with the allowlist: %v", u, err)
		}
		if b, err := ReadBody(resp, 10); err != nil || string(b) != "local" {
			t.Errorf("%s: %q %v", u, b, err)
		}
	}
	assertNoBlockedDials(t, d, allow)

	// Same targets without the allowlist: refused, nothing dialed.
	d2 := &recDialer{directLoopback: true}
	c2 := New(Options{Resolver: res, Dial: d2.Dial, Timeout: 5 * time.Second})
	for _, u := range []string{srv.URL + "/", "http://svc.test:" + itoa(port) + "/", "http://svc.test/"} {
		if resp, err := get(c2, u); !errors.Is(err, ErrBlocked) {
			if resp != nil {
				resp.Body.Close()
			}
			t.Errorf("%s without the allowlist: %v", u, err)
		}
	}
	if got := d2.attempts(); len(got) != 0 {
		t.Errorf("dialed %v without the allowlist", got)
	}

	// The production raw dialer (no injected Dial) on the allowlisted
	// loopback server: exercises net.Dialer plus the Control hook.
	c3 := New(Options{Allow: allow, Timeout: 5 * time.Second})
	resp, err := get(c3, srv.URL+"/")
	if err != nil {
		t.Fatalf("default dialer: %v", err)
	}
	resp.Body.Close()
}

func TestControlHookRefusesSocketAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// Call the production raw dialer directly, skipping dialContext, as if
	// a future change had dialed a name-derived address unchecked: the
	// Control hook still refuses before connect(2).
	c := New(Options{})
	conn, err := c.dial(context.Background(), "tcp", ln.Addr().String())
	if err == nil {
		conn.Close()
		t.Fatal("default raw dialer connected to loopback")
	}
	if !errors.Is(err, ErrBlocked) {
		t.Fatalf("got %v, want ErrBlocked", err)
	}
	if err := c.control("tcp4", "93.184.216.34:8080", nil); !errors.Is(err, ErrBlocked) {
		t.Errorf("Control allowed port 8080: %v", err)
	}
	for _, s := range publicAddrs {
		a := netip.MustParseAddr(s).Unmap()
		network := "tcp4"
		if a.Is6() {
			network = "tcp6"
		}
		if err := c.control(network, netip.AddrPortFrom(a, 443).String(), nil); err != nil {
			t.Errorf("Control refused public %s: %v", a, err)
		}
	}
	if err := c.control("tcp6", "[::ffff:10.0.0.1]:80", nil); !errors.Is(err, ErrBlocked) {
		t.Errorf("Control allowed mapped private: %v", err)
	}
}

func TestErrorsCarryNoBody(t *testing.T) {
	// A refused redirect must surface without the origin's response body.
	h := newHarness(t)
	c := h.client(Options{})
	_, err := get(c, "http://public.test/redirect?to="+url.QueryEscape("http://127.0.0.1/secret"))
	if !errors.Is(err, ErrBlocked) || strings.Contains(err.Error(), "hello") {
		t.Errorf("got %v", err)
	}
}
