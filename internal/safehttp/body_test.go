package safehttp

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func itoa(i int) string { return strconv.Itoa(i) }

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestBombIsValid decodes a 4 MiB bomb of each form completely, so the
// bomb tests are refusing a real stream, not a corrupt one.
func TestBombIsValid(t *testing.T) {
	for _, kind := range []string{"gzip", "zlib", "raw"} {
		var buf bytes.Buffer
		if err := writeBomb(&buf, kind, 4); err != nil {
			t.Fatal(err)
		}
		wire := buf.Len()
		enc := map[string]string{"gzip": "gzip", "zlib": "deflate", "raw": "deflate"}[kind]
		resp := &http.Response{Header: http.Header{"Content-Encoding": {enc}}, Body: io.NopCloser(&buf), ContentLength: -1}
		b, err := ReadBody(resp, 8<<20)
		if err != nil || len(b) != 4<<20 || bytes.Count(b, []byte{0}) != len(b) {
			t.Errorf("%s: %d bytes, %v", kind, len(b), err)
		}
		t.Logf("%s: a 4 MiB bomb is %d bytes on the wire", kind, wire)
	}
}

// TestReadBodyBombs is G13's 1 GiB bomb: refused after max decoded bytes,
// with memory bounded by max, not by the bomb.
func TestReadBodyBombs(t *testing.T) {
	h := newHarness(t)
	c := h.client(Options{})
	const max = 1 << 20
	for _, path := range []string{"/gzipbomb", "/deflatebomb", "/rawdeflatebomb"} {
		t.Run(path, func(t *testing.T) {
			// Decoded bytes actually pulled out of the decompressor.
			resp, err := get(c, "http://public.test"+path)
			if err != nil {
				t.Fatal(err)
			}
			r, identity, err := decodedReader(resp)
			if err != nil || identity {
				t.Fatalf("decodedReader: identity=%v %v", identity, err)
			}
			cr := &countingReader{r: r}
			_, err = readAtMost(cr, max, 0)
			resp.Body.Close()
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("got %v, want ErrTooLarge", err)
			}
			if cr.n > max+1 {
				t.Errorf("decoded %d bytes for a limit of %d", cr.n, max)
			}

			// The public API, with the heap watched: a 1 GiB bomb must
			// cost a small multiple of max, whatever the server sends.
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			resp, err = get(c, "http://public.test"+path)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ReadBody(resp, max)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrTooLarge) || b != nil {
				t.Fatalf("ReadBody: %d bytes, %v; want ErrTooLarge", len(b), err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s refused in %v, %d KiB allocated in total (client and server)", path, time.Since(start), alloc>>10)
			if alloc > 32<<20 {
				t.Errorf("allocated %d MiB to refuse a bomb with a 1 MiB limit", alloc>>20)
			}
		})
	}
}

func TestReadBodyLimits(t *testing.T) {
	h := newHarness(t)
	c := h.client(Options{})
	for _, tc := range []struct {
		path string
		max  int64
		want error
		n    int
	}{
		{"/big?n=2000000&len=1", 1 << 20, ErrTooLarge, 0}, // declared too large: refused unread
		{"/big?n=2000000", 1 << 20, ErrTooLarge, 0},       // chunked, no length
		{"/big?n=1048576", 1 << 20, nil, 1 << 20},         // exactly max is fine
		{"/big?n=1048577", 1 << 20, ErrTooLarge, 0},
		{"/big?n=0&len=1", 10, nil, 0},
	} {
		resp, err := get(c, "http://public.test"+tc.path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ReadBody(resp, tc.max)
		if !errors.Is(err, tc.want) || (err == nil && len(b) != tc.n) {
			t.Errorf("%s max %d: %d bytes, %v; want %d, %v", tc.path, tc.max, len(b), err, tc.n, tc.want)
		}
	}
}

func TestReadBodyDecoding(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("hello, world"))
	zw.Close()
	mk := func(enc string, body []byte) *http.Response {
		hdr := http.Header{}
		if enc != "" {
			hdr.Set("Content-Encoding", enc)
		}
		return &http.Response{Header: hdr, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: -1}
	}
	for _, tc := range []struct {
		enc     string
		body    []byte
		want    string
		wantErr bool
	}{
		{"gzip", gz.Bytes(), "hello, world", false},
		{"X-Gzip", gz.Bytes(), "hello, world", false},
		{"identity", []byte("plain"), "plain", false},
		{"", []byte("plain"), "plain", false},
		{"gzip", nil, "", false}, // HEAD / 204 with a Content-Encoding
		{"br", []byte("x"), "", true},
		{"gzip", []byte("not gzip"), "", true},
		{"gzip, gzip, gzip", gz.Bytes(), "", true},
	} {
		b, err := ReadBody(mk(tc.enc, tc.body), 100)
		if (err != nil) != tc.wantErr || string(b) != tc.want {
			t.Errorf("%q: %q, %v", tc.enc, b, err)
		}
	}
	// Two layers, as a server may legally send.
	var gz2 bytes.Buffer
	zw = gzip.NewWriter(&gz2)
	zw.Write(gz.Bytes())
	zw.Close()
	if b, err := ReadBody(mk("gzip, gzip", gz2.Bytes()), 100); err != nil || string(b) != "hello, world" {
		t.Errorf("gzip, gzip: %q %v", b, err)
	}
	if _, err := ReadBody(mk("gzip", gz.Bytes()), 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("decoded over limit: %v", err)
	}
}

// TestTrickleServer is G13's 1 byte/s server: the client Timeout (here 300ms)
// cuts the request, whether the stall is in the headers or the body.
func TestTrickleServer(t *testing.T) {
	h := newHarness(t)
	c := h.client(Options{Timeout: 300 * time.Millisecond})
	for _, path := range []string{"/trickle", "/trickle?headers=late"} {
		start := time.Now()
		resp, err := get(c, "http://public.test"+path)
		if err == nil {
			_, err = ReadBody(resp, 1<<20)
		}
		elapsed := time.Since(start)
		if err == nil || !isTimeout(err) {
			t.Errorf("%s: got %v, want a timeout", path, err)
		}
		if elapsed < 250*time.Millisecond || elapsed > 2*time.Second {
			t.Errorf("%s: cut after %v, want about 300ms", path, elapsed)
		}
		if strings.Contains(err.Error(), "xxx") {
			t.Errorf("error carries body bytes: %v", err)
		}
	}
}
