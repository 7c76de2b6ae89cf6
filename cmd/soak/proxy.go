package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"sync/atomic"
	"time"
)

// proxyHeader marks answers the proxy made itself (no replica could be
// reached, or one died mid-request), so that the load never counts them
// as the service's.
const proxyHeader = "X-Soak-Proxy"

// replicaHeader names the replica that answered.
const replicaHeader = "X-Soak-Replica"

// roundRobin is the load balancer in front of the replicas: each request
// goes to the next replica; when that replica refuses the connection (it
// is down) the request goes to the following one. A request that reached a
// replica is never sent again: a replica dying mid-request is the client's
// error (502 from the proxy), as with a real balancer.
type roundRobin struct {
	addrs []string
	next  atomic.Uint64
	tr    *http.Transport

	rerouted atomic.Int64 // requests sent to another replica after a refused connection
}

func newProxy(addrs []string, keepAlive bool) (*roundRobin, http.Handler) {
	rr := &roundRobin{addrs: addrs, tr: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
		DisableKeepAlives:   !keepAlive,
	}}
	p := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = "http"
			pr.Out.URL.Host = "replica" // chosen by the transport
			pr.SetXForwarded()
		},
		Transport:     rr,
		FlushInterval: -1, // streams (chat, events) go through at once
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.Header().Set(proxyHeader, "1")
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "soak proxy: "+err.Error())
		},
	}
	return rr, p
}

func (rr *roundRobin) RoundTrip(req *http.Request) (*http.Response, error) {
	// The body is kept so that a refused connection can be retried on the
	// next replica; soak bodies are small.
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	start := rr.next.Add(1)
	var lastErr error
	for i := range len(rr.addrs) {
		addr := rr.addrs[(int(start)+i)%len(rr.addrs)]
		// A client that gives up ends the upstream request too, as behind a
		// real balancer.
		out := req.Clone(req.Context())
		out.URL.Host = addr
		out.Host = addr
		if body != nil {
			out.Body = io.NopCloser(bytes.NewReader(body))
			out.ContentLength = int64(len(body))
		}
		resp, err := rr.tr.RoundTrip(out)
		if err == nil {
			resp.Header.Set(replicaHeader, strconv.Itoa((int(start)+i)%len(rr.addrs)))
			return resp, nil
		}
		lastErr = err
		if !refused(err) {
			return nil, err
		}
		if i+1 < len(rr.addrs) {
			rr.rerouted.Add(1)
		}
	}
	return nil, lastErr
}

// refused reports whether err happened while dialling: the request never
// reached a replica, so sending it to another is safe.
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
