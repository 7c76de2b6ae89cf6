package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/netip"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"concierge/internal/logging"
)

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// requestID takes a well-formed X-Request-Id from the caller (a proxy's) or
// makes one, and echoes it in the response.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !requestIDPattern.MatchString(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(logging.WithRequestID(r.Context(), id)))
	})
}

type clientIPKey struct{}

// ClientIP returns the caller's address as resolved by the clientIP
// middleware.
func ClientIP(ctx context.Context) netip.Addr {
	a, _ := ctx.Value(clientIPKey{}).(netip.Addr)
	return a
}

// clientIP resolves the caller's address: the connection's, unless the
// connection comes from a configured trusted proxy, in which case the
// right-most X-Forwarded-For entry that is not itself a trusted proxy. An
// X-Forwarded-For from anyone else is ignored, so it cannot dodge per-address
// limits.
func (s *Server) clientIP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr := remoteAddr(r.RemoteAddr)
		if len(s.trusted) > 0 && s.isTrusted(addr) {
			addr = s.forwardedFor(r, addr)
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientIPKey{}, addr)))
	})
}

func remoteAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap()
	}
	return netip.IPv4Unspecified()
}

func (s *Server) isTrusted(a netip.Addr) bool {
	for _, p := range s.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func (s *Server) forwardedFor(r *http.Request, peer netip.Addr) netip.Addr {
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return peer // garbage from here on: stop at the last hop we trust
		}
		a = a.Unmap()
		if !s.isTrusted(a) {
			return a
		}
		peer = a
	}
	return peer
}

// statusWriter records the status and size for logs and metrics. It passes
// Flush and Unwrap through so streaming responses keep working.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe logs one line per request and feeds the request metrics, labelled
// by route pattern (never the raw path, which holds ids).
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			took := time.Since(start)
			route := "unmatched"
			if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
				route = rc.RoutePattern()
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			s.metrics.requests.WithLabelValues(r.Method, route, strconv.Itoa(status)).Inc()
			s.metrics.latency.WithLabelValues(r.Method, route).Observe(took.Seconds())
			if s.accessLog {
				s.log.InfoContext(r.Context(), "request", "method", r.Method, "route", route, "status", status,
					"bytes", sw.bytes, "duration_ms", float64(took.Microseconds())/1000, "client", ClientIP(r.Context()).String())
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

// recoverer turns a panic into a 500 whose body reveals nothing; the stack
// goes to the log with the request id.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.ErrorContext(r.Context(), "panic serving request", "panic", p, "stack", string(debug.Stack()))
			if sw, ok := w.(*statusWriter); ok && sw.status != 0 {
				return // headers are gone; the connection closes with a short body
			}
			writeError(w, http.StatusInternalServerError, "internal server error", nil)
		}()
		next.ServeHTTP(w, r)
	})
}

// securityHeaders are safe on every API response.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "concierge_http_requests_total",
			Help: "HTTP requests by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "concierge_http_request_duration_seconds",
			Help:    "HTTP request latency by method and route pattern.",
			Buckets: []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}, []string{"method", "route"}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.latency)
	}
	return m
}

// connControl keeps each request's http.ResponseController in its
// context, for releaseBodyDeadline.
func connControl(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), connControlKey{}, http.NewResponseController(w))))
	})
}

type connControlKey struct{}

// releaseBodyDeadline clears, once huma has read a request's body, the read
// deadline it set for reading it (Operation.BodyReadTimeout, 5 s). Left in
// place, that deadline expires while a long request (a model slow to
// answer) is still being handled: net/http's background read on the
// connection then times out, which it takes for the client having gone,
// and it cancels the request and every later request on the same
// kept-alive connection (behind a load balancer, 499s to everything; found
// by the soak). Operation handlers call it first (register).
func releaseBodyDeadline(ctx context.Context) {
	if rc, ok := ctx.Value(connControlKey{}).(*http.ResponseController); ok {
		_ = rc.SetReadDeadline(time.Time{})
	}
}
