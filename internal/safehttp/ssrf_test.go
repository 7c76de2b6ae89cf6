package safehttp

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

type target struct {
	url  string
	want error // errors.Is target
}

// g12Targets is the RELIABILITY.md G12 matrix plus the other spellings the
// guard claims to handle. Names ending in .test resolve through the
// harness's fakeResolver.
var g12Targets = []target{
	// Loopback and "this host" in every spelling a parser or libc accepts.
	{"http://127.0.0.1/", ErrBlocked},
	{"http://127.1/", ErrBlocked},
	{"http://0.0.0.0/", ErrBlocked},
	{"http://0/", ErrBlocked},
	{"http://2130706433/", ErrBlocked},
	{"http://0x7f000001/", ErrBlocked},
	{"http://0x7f.1/", ErrBlocked},
	{"http://0177.0.0.1/", ErrBlocked},
	{"http://017700000001/", ErrBlocked},
	{"http://127.0.0.1./", ErrBlocked},
	{"http://１２７.０.０.１/", ErrBlocked},
	{"http://localhost/", ErrBlocked},
	{"http://LOCALHOST./", ErrBlocked},
	{"http://ｌｏｃａｌｈｏｓｔ/", ErrBlocked},
	{"http://app.localhost/", ErrBlocked},
	{"http://[::1]/", ErrBlocked},
	{"http://[::]/", ErrBlocked},
	{"http://[::ffff:127.0.0.1]/", ErrBlocked},
	{"http://[::ffff:7f00:1]/", ErrBlocked},
	{"http://[0:0:0:0:0:ffff:127.0.0.1]:80/", ErrBlocked},
	{"http://[::127.0.0.1]/", ErrBlocked},
	// Cloud metadata.
	{"http://169.254.169.254/latest/meta-data/", ErrBlocked},
	{"http://metadata.google.internal/computeMetadata/v1/", ErrBlocked},
	{"http://metadata/", ErrBlocked},
	{"http://[fd00:ec2::254]/", ErrBlocked},
	{"http://100.100.100.200/", ErrBlocked},
	{"http://168.63.129.16/", ErrBlocked},
	// Private, shared, special-purpose.
	{"http://10.0.0.1/", ErrBlocked},
	{"http://172.16.0.1/", ErrBlocked},
	{"http://192.168.1.1/", ErrBlocked},
	{"http://100.64.0.1/", ErrBlocked},
	{"http://198.18.0.1/", ErrBlocked},
	{"http://192.0.2.1/", ErrBlocked},
	{"http://224.0.0.1/", ErrBlocked},
	{"http://240.0.0.1/", ErrBlocked},
	{"http://255.255.255.255/", ErrBlocked},
	{"http://[fe80::1%25eth0]/", ErrBlocked},
	{"http://[fc00::1]/", ErrBlocked},
	{"http://[ff02::1]/", ErrBlocked},
	// IPv6 forms embedding an internal IPv4.
	{"http://[2002:7f00:1::]/", ErrBlocked},
	{"http://[64:ff9b::7f00:1]/", ErrBlocked},
	{"http://[64:ff9b::a9fe:a9fe]/", ErrBlocked},
	{"http://[64:ff9b:1::a00:1]/", ErrBlocked},
	{"http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", ErrBlocked},
	// Names whose DNS answer is internal: only the dial-time check sees it.
	{"http://private.test/", ErrBlocked},
	{"http://loop.test/", ErrBlocked},
	{"http://meta.test/", ErrBlocked},
	{"http://cgnat.test/", ErrBlocked},
	{"http://azure.test/", ErrBlocked},
	{"http://ula.test/", ErrBlocked},
	{"http://v6loop.test/", ErrBlocked},
	{"http://mapped.test/", ErrBlocked},
	{"http://nat64.test/", ErrBlocked},
	{"http://6to4.test/", ErrBlocked},
	{"http://mixed.test/", ErrBlocked},  // public first, then private: still refused
	{"http://mixed6.test/", ErrBlocked}, // public, then link-local IPv6
	// Ports other than 80/443 on a public name or address.
	{"http://public.test:22/", ErrBlocked},
	{"http://public.test:25/", ErrBlocked},
	{"http://public.test:6379/", ErrBlocked},
	{"http://public.test:8080/", ErrBlocked},
	{"http://" + publicIP + ":8080/", ErrBlocked},
	{"https://public.test:6379/", ErrBlocked},
	// Schemes.
	{"file:///etc/passwd", ErrInvalidURL},
	{"gopher://public.test:70/_SET%20x%201", ErrInvalidURL},
	{"ftp://public.test/", ErrInvalidURL},
	{"data:text/plain,hello", ErrInvalidURL},
	{"javascript:alert(1)", ErrInvalidURL},
	{"dict://public.test:11211/stat", ErrInvalidURL},
	// Userinfo.
	{"http://user:pass@public.test/", ErrInvalidURL},
	{"http://public@127.0.0.1/", ErrInvalidURL},
	{"http://public.test@127.0.0.1/", ErrInvalidURL},
	{"http://@public.test/", ErrInvalidURL},
	// Numeric hosts that are not addresses: never handed to a resolver.
	{"http://4294967296/", ErrInvalidURL},
	{"http://1.2.3.4.5/", ErrInvalidURL},
	{"http://public.test.0x/", ErrInvalidURL},
}

// assertNoBlockedDials is the G12 pass condition: across everything a
// client did, the raw dialer was never asked for a blocked address or port.
func assertNoBlockedDials(t *testing.T, d *recDialer, allow []netip.Prefix) {
	t.Helper()
	for _, a := range d.attempts() {
		ap, err := netip.ParseAddrPort(a)
		if err != nil {
			t.Errorf("raw dialer asked for a non-literal address %q: a second resolution could happen", a)
			continue
		}
		if IsBlocked(ap.Addr(), allow) || !portAllowed(ap.Addr(), ap.Port(), allow) {
			t.Errorf("raw dialer asked for blocked destination %s", a)
		}
	}
}

func TestG12DirectTargets(t *testing.T) {
	h := newHarness(t)
	c := h.client(Options{})
	if len(g12Targets) < 40 {
		t.Fatalf("matrix has %d targets, G12 asks for at least 40", len(g12Targets))
	}
	for _, tc := range g12Targets {
		t.Run(tc.url, func(t *testing.T) {
			before := len(h.dial.attempts())
			resp, err := get(c, tc.url)
			if resp != nil {
				resp.Body.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want errors.Is %v", err, tc.want)
			}
			if got := h.dial.attempts()[before:]; len(got) != 0 {
				t.Errorf("dialer was asked for %v", got)
			}
			t.Logf("refused: %v", err)
		})
	}
	// The same matrix through HTTP() (no CheckURL up front): the Transport
	// and dialer must refuse it on their own.
	hc := c.HTTP()
	for _, tc := range g12Targets {
		req, err := http.NewRequest(http.MethodGet, tc.url, nil)
		if err != nil {
			continue // unparsable by net/http itself: nothing could be sent
		}
		resp, err := hc.Do(req)
		if resp != nil {
			resp.Body.Close()
		}
		if err == nil {
			t.Errorf("HTTP().Do(%s) succeeded", tc.url)
		}
	}
	if got := h.dial.attempts(); len(got) != 0 {
		t.Errorf("dialer was asked for %v", got)
	}
	assertNoBlockedDials(t, h.dial, nil)
}

func TestG12PublicControl(t *testing.T) {
	// Positive controls: without them, a harness that refuses everything
	// would pass the matrix.
	h := newHarness(t)
	c := h.client(Options{})
	for _, u := range []string{"http://public.test/", "http://" + publicIP + "/", "http://PUBLIC.test.:80/#frag", "https://example.com/", "http://[64:ff9b::5db8:d822]/"} {
		resp, err := get(c, u)
		if u == "http://[64:ff9b::5db8:d822]/" {
			// NAT64 of a public address passes the policy; the test
			// dialer has no route for it, which proves it got that far.
			if err == nil || errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "not routed") {
				t.Errorf("%s: got %v, want the dialer's not-routed error", u, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		body, err := ReadBody(resp, 1<<10)
		if err != nil || (string(body) != "hello" && string(body) != "secure") {
			t.Errorf("%s: body %q, %v", u, body, err)
		}
	}
	got := h.dial.attempts()
	if !slices.Contains(got, publicIP+":80") || !slices.Contains(got, publicIP+":443") {
		t.Errorf("dial attempts %v, want the public stand-in on 80 and 443", got)
	}
	assertNoBlockedDials(t, h.dial, nil)
}

func TestG12Redirects(t *testing.T) {
	h := newHarness(t)
	c := h.client(Options{})
	n := 0
	for _, code := range []int{301, 302, 303, 307, 308} {
		for _, tc := range g12Targets {
			n++
			u := "http://public.test/redirect?code=" + strconv.Itoa(code) + "&to=" + url.QueryEscape(tc.url)
			before := len(h.dial.attempts())
			resp, err := get(c, u)
			if resp != nil {
				resp.Body.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("%d → %s: got %v, want errors.Is %v", code, tc.url, err, tc.want)
				continue
			}
			for _, a := range h.dial.attempts()[before:] {
				if a != publicIP+":80" {
					t.Errorf("%d → %s: dialer asked for %s", code, tc.url, a)
				}
			}
		}
	}
	t.Logf("%d redirect cases", n)
	assertNoBlockedDials(t, h.dial, nil)
}

func TestG12RedirectChainAndDowngrade(t *testing.T) {
	h := newHarness(t)
	c := h.client(Options{})

	// Five hops are allowed (the default), six are not.
	resp, err := get(c, "http://public.test/chain?n=5")
	if err != nil {
		t.Fatalf("5 redirects: %v", err)
	}
	resp.Body.Close()
	for _, hops := range []string{"6", "7", "50"} {
		resp, err = get(c, "http://public.test/chain?n="+hops)
		if resp != nil {
			resp.Body.Close()
		}
		if !errors.Is(err, ErrTooManyRedirects) {
			t.Errorf("%s hops: got %v, want ErrTooManyRedirects", hops, err)
		}
	}
	// MaxRedirects: 2 allows two; negative follows none.
	c2 := h.client(Options{MaxRedirects: 2})
	if resp, err = get(c2, "http://public.test/chain?n=3"); !errors.Is(err, ErrTooManyRedirects) {
		t.Errorf("MaxRedirects 2, 3 hops: got %v", err)
	}
	if resp != nil {
		resp.Body.Close()
	}
	c3 := h.client(Options{MaxRedirects: -1})
	resp, err = get(c3, "http://public.test/chain?n=1")
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Errorf("MaxRedirects -1: got %v, %v; want the 302 itself", resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}

	// https → http downgrade.
	before := len(h.dial.attempts())
	resp, err = get(c, "https://example.com/downgrade")
	if resp != nil {
		resp.Body.Close()
	}
	if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "downgrade") {
		t.Errorf("downgrade: got %v", err)
	}
	if got := h.dial.attempts()[before:]; !slices.Equal(got, []string{publicIP + ":443"}) {
		t.Errorf("downgrade: dial attempts %v, want only the https origin", got)
	}

	// TLS is verified against the URL's name, not the dialed IP: the
	// certificate covers example.com but not 93.184.216.34.
	resp, err = get(c, "https://"+publicIP+"/")
	if resp != nil {
		resp.Body.Close()
	}
	if err == nil || errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("https to the bare IP: got %v, want a certificate error", err)
	}
	assertNoBlockedDials(t, h.dial, nil)
}

func TestG12DNSRebinding(t *testing.T) {
	h := newHarness(t)
	// First answer public, every later answer loopback: a TOCTOU guard that
	// resolves to check and resolves again to dial would connect to
	// 127.0.0.1 on the second lookup.
	h.res.fn["rebind.test"] = func(call int) []string {
		if call == 1 {
			return []string{publicIP}
		}
		return []string{"127.0.0.1"}
	}
	c := h.client(Options{})
	resp, err := get(c, "http://rebind.test/")
	if err != nil {
		t.Fatalf("first fetch: %v", err)
	}
	if body, err := ReadBody(resp, 100); err != nil || string(body) != "hello" {
		t.Fatalf("first fetch body %q %v", body, err)
	}
	if n := h.res.lookups("rebind.test"); n != 1 {
		t.Errorf("name resolved %d times for one connection, want exactly 1 (the checked answer is the dialed one)", n)
	}
	if got := h.dial.attempts(); !slices.Equal(got, []string{publicIP + ":80"}) {
		t.Errorf("dial attempts %v", got)
	}
	// A new connection resolves again, gets loopback, and is refused.
	c.CloseIdleConnections()
	resp, err = get(c, "http://rebind.test/")
	if resp != nil {
		resp.Body.Close()
	}
	if !errors.Is(err, ErrBlocked) {
		t.Fatalf("second fetch: got %v, want ErrBlocked", err)
	}
	if got := h.dial.attempts(); len(got) != 1 {
		t.Errorf("dial attempts %v after the rebinding answer", got)
	}
	assertNoBlockedDials(t, h.dial, nil)
}

func TestUserAgentOnEveryRequest(t *testing.T) {
	h := newHarness(t)
	c := h.client(Options{UserAgent: "TestBot/2"})
	for _, u := range []string{"http://public.test/ua", "http://public.test/redirect?to=%2Fua"} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("User-Agent", "curl/8")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "TestBot/2" {
			t.Errorf("%s: User-Agent %q", u, body)
		}
		if req.Header.Get("User-Agent") != "curl/8" {
			t.Errorf("caller's request was modified")
		}
	}
	d := New(Options{})
	if d.userAgent != DefaultUserAgent || d.maxRedirects != DefaultMaxRedirects || d.client.Timeout != DefaultTimeout {
		t.Errorf("defaults: %q %d %v", d.userAgent, d.maxRedirects, d.client.Timeout)
	}
}

func TestEnvironmentProxyIgnored(t *testing.T) {
	h := newHarness(t)
	var hits atomic.Int32
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.Error(w, "proxied", http.StatusTeapot)
	}))
	t.Cleanup(ps.Close)
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		t.Setenv(k, ps.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")

	c := h.client(Options{})
	if c.transport.Proxy != nil {
		t.Fatal("Transport.Proxy is set")
	}
	for _, u := range []string{"http://public.test/", "https://example.com/"} {
		resp, err := get(c, u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		body, _ := ReadBody(resp, 100)
		if string(body) != "hello" && string(body) != "secure" {
			t.Errorf("%s: body %q", u, body)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("environment proxy received %d requests", n)
	}
	for _, a := range h.dial.attempts() {
		if a != publicIP+":80" && a != publicIP+":443" {
			t.Errorf("dialed %s", a)
		}
	}
}
