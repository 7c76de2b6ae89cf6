package safehttp

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"
)

// How these tests stay on loopback while exercising "public" destinations.
//
// The policy blocks every documentation range (TEST-NET-1/2/3 and
// 2001:db8::/32), so a "public" host here is a real public address:
// publicIP. Nothing ever connects to it. The injected fakeResolver hands
// that address out for names like public.test and example.com, the guard
// checks it like any other public address and asks the raw dialer for
// "93.184.216.34:80", and the injected recDialer RECORDS that request and
// then connects to a local httptest listener instead (port 80 → plain
// server, port 443 → TLS server whose certificate covers example.com). Any
// address without a route is recorded and refused, never dialed, so even a
// bug in the guard cannot send a packet off the machine; the recording is
// what the tests assert on ("zero attempts to a blocked address or port").
const publicIP = "93.184.216.34"

// fakeResolver answers from a table; dynamic answers (rebinding) come from
// fn, called with the 1-based number of lookups of that name so far.
type fakeResolver struct {
	mu    sync.Mutex
	hosts map[string][]string
	fn    map[string]func(call int) []string
	calls map[string]int
}

func (r *fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	r.calls[host]++
	n := r.calls[host]
	addrs, ok := r.hosts[host]
	if f := r.fn[host]; f != nil {
		addrs, ok = f(n), true
	}
	r.mu.Unlock()
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []net.IPAddr
	for _, a := range addrs {
		out = append(out, net.IPAddr{IP: net.ParseIP(a)})
	}
	return out, nil
}

func (r *fakeResolver) lookups(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}

// recDialer records every (network, addr) it is asked for and connects only
// to loopback: routed public stand-ins go to their httptest listener, and
// literal loopback addresses are dialed only when directLoopback is set
// (allowlist tests).
type recDialer struct {
	mu             sync.Mutex
	seen           []string
	routes         map[string]string
	directLoopback bool
}

func (d *recDialer) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.seen = append(d.seen, addr)
	to, routed := d.routes[addr]
	direct := d.directLoopback
	d.mu.Unlock()
	var nd net.Dialer
	if routed {
		return nd.DialContext(ctx, network, to)
	}
	if ap, err := netip.ParseAddrPort(addr); err == nil && direct && ap.Addr().IsLoopback() {
		return nd.DialContext(ctx, network, addr)
	}
	return nil, fmt.Errorf("test dialer: %s is not routed (refused, never dialed)", addr)
}

func (d *recDialer) attempts() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.seen...)
}

// harness is a "public internet" of two local servers.
type harness struct {
	plain, tls *httptest.Server
	res        *fakeResolver
	dial       *recDialer
	roots      *x509.CertPool
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") })
	mux.HandleFunc("/ua", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.UserAgent()) })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		if code == 0 {
			code = http.StatusFound
		}
		// Set Location raw: http.Redirect would clean or re-escape it and
		// the point is to hand the client the hostile string verbatim.
		w.Header().Set("Location", r.URL.Query().Get("to"))
		w.WriteHeader(code)
	})
	mux.HandleFunc("/chain", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if n <= 0 {
			io.WriteString(w, "end of chain")
			return
		}
		w.Header().Set("Location", fmt.Sprintf("http://public.test/chain?n=%d", n-1))
		w.WriteHeader(http.StatusFound)
	})
	mux.HandleFunc("/gzipbomb", bombHandler("gzip"))
	mux.HandleFunc("/deflatebomb", bombHandler("zlib"))
	mux.HandleFunc("/rawdeflatebomb", bombHandler("raw"))
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Query().Get("len") == "1" {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		chunk := make([]byte, 32<<10)
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := w.Write(chunk[:k]); err != nil {
				return
			}
			n -= k
		}
	})
	mux.HandleFunc("/trickle", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("headers") != "late" {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		}
		// One byte a second (and, with headers=late, no status line at
		// all): a slowloris server that would hold a fetch for minutes.
		for range 120 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
			}
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	h.plain = httptest.NewServer(mux)
	t.Cleanup(h.plain.Close)

	tmux := http.NewServeMux()
	tmux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "secure") })
	tmux.HandleFunc("/downgrade", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Location", "http://public.test/")
		w.WriteHeader(http.StatusMovedPermanently)
	})
	h.tls = httptest.NewTLSServer(tmux)
	t.Cleanup(h.tls.Close)
	h.roots = x509.NewCertPool()
	h.roots.AddCert(h.tls.Certificate())

	h.res = &fakeResolver{
		hosts: map[string][]string{
			"public.test":  {publicIP},
			"example.com":  {publicIP}, // the httptest certificate's name
			"private.test": {"10.1.2.3"},
			"loop.test":    {"127.0.0.1"},
			"meta.test":    {"169.254.169.254"},
			"cgnat.test":   {"100.64.0.1"},
			"azure.test":   {"168.63.129.16"},
			"ula.test":     {"fd12:3456::1"},
			"v6loop.test":  {"::1"},
			"mapped.test":  {"::ffff:169.254.169.254"},
			"nat64.test":   {"64:ff9b::a9fe:a9fe"},
			"6to4.test":    {"2002:a00:1::"},
			"mixed.test":   {publicIP, "10.0.0.1"},
			"mixed6.test":  {publicIP, "fe80::1"},
		},
		fn:    map[string]func(int) []string{},
		calls: map[string]int{},
	}
	h.dial = &recDialer{routes: map[string]string{
		publicIP + ":80":  h.plain.Listener.Addr().String(),
		publicIP + ":443": h.tls.Listener.Addr().String(),
	}}
	return h
}

// client builds a guarded client on the harness; TLS trusts the httptest CA
// (in-package access: production has no knob for it).
func (h *harness) client(opts Options) *Client {
	opts.Resolver = h.res
	opts.Dial = h.dial.Dial
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	c := New(opts)
	c.transport.TLSClientConfig.RootCAs = h.roots
	return c
}

func get(c *Client, rawURL string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	return c.Do(req)
}

// A bomb is 1 GiB of zeros served compressed, about 1 MiB on the wire. It is
// streamed by the handler, but built from pieces compressed once per test
// binary: compressing a whole GiB (or even the few MiB a client reads before
// hanging up) costs seconds under -race. Both forms are real, valid streams
// (TestBombIsValid decodes a short one end to end):
//   - gzip: 1 MiB-of-zeros members back to back; a gzip stream may hold
//     many members and decoders concatenate them;
//   - deflate: the blocks emitted for a second MiB of zeros after a sync
//     flush only refer back into zeros, so the same bytes can be repeated.
type bombParts struct {
	gzipMember                           []byte
	deflateHead, deflateSeg, deflateTail []byte
}

var (
	bombOnce sync.Once
	bomb     bombParts
)

const bombMiB = 1024 // 1 GiB decoded

func bombPieces() bombParts {
	bombOnce.Do(func() {
		zeros := make([]byte, 1<<20)
		var g bytes.Buffer
		gw, _ := gzip.NewWriterLevel(&g, gzip.BestCompression)
		gw.Write(zeros)
		gw.Close()
		bomb.gzipMember = g.Bytes()

		var d bytes.Buffer
		fw, _ := flate.NewWriter(&d, flate.BestCompression)
		cut := func() []byte { b := bytes.Clone(d.Bytes()); d.Reset(); return b }
		fw.Write(zeros)
		fw.Flush()
		bomb.deflateHead = cut()
		fw.Write(zeros)
		fw.Flush()
		bomb.deflateSeg = cut()
		fw.Close()
		bomb.deflateTail = cut()
	})
	return bomb
}

// writeBomb writes a bomb of mib MiB in the given form ("gzip", "zlib",
// "raw") to w, stopping at the first write error (the client hung up).
func writeBomb(w io.Writer, kind string, mib int) error {
	p := bombPieces()
	write := func(b []byte) error { _, err := w.Write(b); return err }
	if kind == "gzip" {
		for range mib {
			if err := write(p.gzipMember); err != nil {
				return err
			}
		}
		return nil
	}
	if kind == "zlib" {
		if err := write([]byte{0x78, 0xda}); err != nil { // deflate, 32K window, best compression
			return err
		}
	}
	if err := write(p.deflateHead); err != nil {
		return err
	}
	for range mib - 1 {
		if err := write(p.deflateSeg); err != nil {
			return err
		}
	}
	if err := write(p.deflateTail); err != nil {
		return err
	}
	if kind == "zlib" {
		// Adler-32 of n zeros: a stays 1, b grows by 1 per byte.
		b := uint32((uint64(mib) << 20) % 65521)
		return write(binary.BigEndian.AppendUint32(nil, b<<16|1))
	}
	return nil
}

func bombHandler(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		enc := "deflate"
		if kind == "gzip" {
			enc = "gzip"
		}
		w.Header().Set("Content-Encoding", enc)
		writeBomb(w, kind, bombMiB)
	}
}

// isTimeout reports whether err is a deadline/timeout error.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
