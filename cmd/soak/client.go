package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"
)

// sample is one request's outcome.
type sample struct {
	kind    string
	status  int // 0: no answer (client error)
	proxy   bool
	replica int // the replica that answered; -1: none
	start   time.Time
	lat     time.Duration
}

// recorder keeps every request's outcome, the service's 5xx answers with
// their bodies, and every response that carried another workspace's data.
type recorder struct {
	mu      sync.Mutex
	samples []sample
	errs5xx []string // kind, status and body of 500s and of 503s without Retry-After
	n500    int
	n503bad int // 503 without Retry-After
	leaks   []string
}

func (r *recorder) add(s sample) {
	r.mu.Lock()
	r.samples = append(r.samples, s)
	r.mu.Unlock()
}

func (r *recorder) snapshot() []sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sample(nil), r.samples...)
}

// client sends the soak's requests through the proxy and records them.
type client struct {
	base string
	http *http.Client
	rec  *recorder
}

// markerRE finds workspace markers: every workspace writes "soakws<n>z"
// into its bot names and documents, so a response to workspace n that
// holds another number carries another workspace's data.
var markerRE = regexp.MustCompile(`soakws([0-9]+)z`)

func marker(ws int) string { return "soakws" + strconv.Itoa(ws) + "z" }

type call struct {
	kind        string
	method      string
	path        string
	cred, value string // header name and value
	ctype       string
	body        []byte
	ws          int // the caller's workspace index; -1: no marker check
}

type result struct {
	status int
	body   []byte
	header http.Header
	proxy  bool // the proxy answered (no replica, or one died mid-request)
	err    error
}

func (r result) ok() bool { return r.err == nil && r.status >= 200 && r.status < 300 }

func (c *client) do(ctx context.Context, cl call) result {
	var rd io.Reader
	if cl.body != nil {
		rd = bytes.NewReader(cl.body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, c.base+cl.path, rd)
	if err != nil {
		return result{err: err}
	}
	if cl.ctype != "" {
		req.Header.Set("Content-Type", cl.ctype)
	} else if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if cl.cred != "" {
		req.Header.Set(cl.cred, cl.value)
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	var res result
	if err != nil {
		res.err = err
	} else {
		res.body, res.err = io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		resp.Body.Close()
		res.status, res.header = resp.StatusCode, resp.Header
		res.proxy = resp.Header.Get(proxyHeader) != ""
	}
	if ctx.Err() != nil && res.status == 0 {
		return res // the run is over: not the service's doing
	}
	replica := -1
	if res.header != nil && res.header.Get(replicaHeader) != "" {
		replica, _ = strconv.Atoi(res.header.Get(replicaHeader))
	}
	c.rec.add(sample{kind: cl.kind, status: res.status, proxy: res.proxy, replica: replica, start: start, lat: time.Since(start)})
	if !res.proxy && res.status >= 500 {
		bad := res.status == http.StatusInternalServerError ||
			(res.status == http.StatusServiceUnavailable && res.header.Get("Retry-After") == "")
		if bad {
			c.rec.mu.Lock()
			if res.status == 500 {
				c.rec.n500++
			} else {
				c.rec.n503bad++
			}
			if len(c.rec.errs5xx) < 50 {
				c.rec.errs5xx = append(c.rec.errs5xx, start.Format("15:04:05.000")+" "+cl.kind+" "+cl.method+" "+cl.path+
					" → "+strconv.Itoa(res.status)+": "+excerpt(string(res.body), 300))
			}
			c.rec.mu.Unlock()
		}
	}
	if cl.ws >= 0 && res.status > 0 {
		for _, m := range markerRE.FindAllSubmatch(res.body, -1) {
			if n, _ := strconv.Atoi(string(m[1])); n != cl.ws {
				c.rec.mu.Lock()
				c.rec.leaks = append(c.rec.leaks, cl.kind+" "+cl.path+" for workspace "+strconv.Itoa(cl.ws)+
					" carried "+string(m[0]))
				c.rec.mu.Unlock()
				break
			}
		}
	}
	return res
}

func decode(b []byte, v any) bool { return json.Unmarshal(b, v) == nil }

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// percentile of sorted durations.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	i := int(float64(len(d)-1) * p)
	return d[i]
}
