// Package razorpaytest runs an in-process HTTP server on 127.0.0.1 that
// speaks the subset of the Razorpay API the payment package uses
// (subscriptions, their cancellation, invoices), with state, Basic auth and
// Razorpay's error bodies. Tests point payment.RazorpayConfig.BaseURL at it
// so the production client is what gets tested, and use its helpers to move
// subscriptions along, inject failures, count calls and sign checkout
// callbacks and webhooks.
package razorpaytest

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/internal/payment"
)

// Server is a fake Razorpay. Its methods are safe for concurrent use.
type Server struct {
	t             testing.TB
	srv           *httptest.Server
	keyID         string
	keySecret     string
	webhookSecret string
	accountID     string

	mu       sync.Mutex
	subs     map[string]*subscription
	invoices map[string][]*invoice // by subscription id, oldest first
	failures []failure
	calls    []call
}

type failure struct {
	method, prefix string
	status         int
}

type call struct{ method, path string }

// subscription is the server's record; times are unix seconds, 0 for unset.
type subscription struct {
	id, planID, status, customerID, shortURL string
	notes                                    map[string]string
	totalCount, paidCount                    int
	createdAt, currentStart, currentEnd      int64
	endedAt, chargeAt                        int64
	cancelAtCycleEnd                         bool
	paymentID                                string // the latest successful payment
}

type invoice struct {
	payment.Invoice
	paymentID string
}

// NewServer starts a server and stops it when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		t:             t,
		keyID:         "rzp_test_" + randomID(14),
		keySecret:     randomID(24),
		webhookSecret: randomID(24),
		accountID:     "acc_" + randomID(14),
		subs:          map[string]*subscription{},
		invoices:      map[string][]*invoice{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/subscriptions", s.createSubscription)
	mux.HandleFunc("GET /v1/subscriptions/{id}", s.fetchSubscription)
	mux.HandleFunc("POST /v1/subscriptions/{id}/cancel", s.cancelSubscription)
	mux.HandleFunc("GET /v1/invoices", s.listInvoices)
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR", "The requested URL was not found on the server.", "")
	})
	s.srv = httptest.NewServer(s.gate(mux))
	t.Cleanup(s.srv.Close)
	return s
}

// gate counts the call, applies an injected failure, then checks Basic
// auth, in that order, so FailNext fires even for a client with bad keys.
func (s *Server) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimPrefix(r.URL.Path, "/v1")
		s.mu.Lock()
		s.calls = append(s.calls, call{r.Method, path})
		f, failed := s.takeFailureLocked(r.Method, path)
		s.mu.Unlock()
		if failed {
			code, desc := "BAD_REQUEST_ERROR", http.StatusText(f.status)
			switch {
			case f.status == http.StatusNotFound:
				desc = "The id provided does not exist"
			case f.status >= 500:
				code, desc = "SERVER_ERROR", "We are facing some trouble completing your request at the moment. Please try again shortly."
			}
			writeError(w, f.status, code, desc, "")
			return
		}
		user, pass, ok := r.BasicAuth()
		if !ok || subtle.ConstantTimeCompare([]byte(user), []byte(s.keyID)) != 1 ||
			subtle.ConstantTimeCompare([]byte(pass), []byte(s.keySecret)) != 1 {
			writeError(w, http.StatusUnauthorized, "BAD_REQUEST_ERROR", "Authentication failed", "")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) takeFailureLocked(method, path string) (failure, bool) {
	for i, f := range s.failures {
		if matches(f.method, f.prefix, method, path) {
			s.failures = append(s.failures[:i], s.failures[i+1:]...)
			return f, true
		}
	}
	return failure{}, false
}

// matches treats an empty method as any method; paths are compared without
// the /v1 version prefix, as in Razorpay's API reference.
func matches(wantMethod, wantPrefix, method, path string) bool {
	return (wantMethod == "" || strings.EqualFold(wantMethod, method)) && strings.HasPrefix(path, wantPrefix)
}

// URL is the base URL for payment.RazorpayConfig.BaseURL.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// KeyID is the key id the server accepts.
func (s *Server) KeyID() string { return s.keyID }

// KeySecret is the key secret the server accepts and signs checkouts with.
func (s *Server) KeySecret() string { return s.keySecret }

// WebhookSecret is the secret the server signs webhooks with.
func (s *Server) WebhookSecret() string { return s.webhookSecret }

// Config returns a payment.RazorpayConfig pointing at this server.
func (s *Server) Config() payment.RazorpayConfig {
	return payment.RazorpayConfig{
		KeyID:         s.keyID,
		KeySecret:     s.keySecret,
		WebhookSecret: s.webhookSecret,
		BaseURL:       s.URL(),
	}
}

// Activate marks the subscription paid: status active, a one-month
// current period from now, and a fresh payment that Event reports.
func (s *Server) Activate(subID string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.mustSubLocked(subID)
	now := time.Now().UTC()
	sub.status = "active"
	sub.currentStart, sub.currentEnd = now.Unix(), now.AddDate(0, 1, 0).Unix()
	sub.chargeAt = sub.currentEnd
	sub.paidCount++
	sub.paymentID = "pay_" + randomID(14)
	if sub.customerID == "" {
		sub.customerID = "cust_" + randomID(14)
	}
}

// SetStatus forces a status, as Razorpay's own lifecycle would (halted
// after failed retries, completed after the last cycle, ...).
func (s *Server) SetStatus(subID, status string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.mustSubLocked(subID)
	sub.status = status
	switch status {
	case "cancelled", "completed", "expired":
		if sub.endedAt == 0 {
			sub.endedAt = time.Now().Unix()
		}
	}
}

// Status is the subscription's status at the provider, "" if unknown.
func (s *Server) Status(subID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sub, ok := s.subs[subID]; ok {
		return sub.status
	}
	return ""
}

// AddInvoice attaches an invoice to the subscription. An empty ID, Status,
// Currency (INR), PDFURL or IssuedAt is filled in; SubscriptionID is
// always subID.
func (s *Server) AddInvoice(subID string, inv payment.Invoice) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustSubLocked(subID)
	inv.SubscriptionID = subID
	if inv.ID == "" {
		inv.ID = "inv_" + randomID(14)
	}
	if inv.Status == "" {
		inv.Status = "issued"
		if inv.PaidAt != nil {
			inv.Status = "paid"
		}
	}
	if inv.Currency == "" {
		inv.Currency = "INR"
	}
	if inv.PDFURL == "" {
		inv.PDFURL = "https://rzp.io/i/" + randomID(10)
	}
	if inv.IssuedAt.IsZero() {
		inv.IssuedAt = time.Now().UTC().Truncate(time.Second)
	}
	rec := &invoice{Invoice: inv}
	if inv.PaidAt != nil {
		rec.paymentID = "pay_" + randomID(14)
	}
	s.invoices[subID] = append(s.invoices[subID], rec)
}

// FailNext makes the next request whose method and path (without /v1, e.g.
// "/subscriptions/sub_X/cancel") match fail with status and a Razorpay
// error body. An empty method matches any. Calls queue up, one per request.
func (s *Server) FailNext(method, pathPrefix string, status int) {
	s.t.Helper()
	if status < 400 || status > 599 {
		s.t.Fatalf("razorpaytest: FailNext status %d, want 4xx or 5xx", status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, failure{method, pathPrefix, status})
}

// Calls counts the requests received so far whose method and path (without
// /v1) match, failed ones included. An empty method matches any.
func (s *Server) Calls(method, pathPrefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if matches(method, pathPrefix, c.method, c.path) {
			n++
		}
	}
	return n
}

// SignPayment returns the razorpay_signature Checkout would give the
// browser for this payment on this subscription.
func (s *Server) SignPayment(subscriptionID, paymentID string) string {
	return sign(s.keySecret, []byte(paymentID+"|"+subscriptionID))
}

// SignWebhook returns the X-Razorpay-Signature header for body.
func (s *Server) SignWebhook(body []byte) string { return sign(s.webhookSecret, body) }

func sign(secret string, msg []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(msg)
	return hex.EncodeToString(mac.Sum(nil))
}

func (s *Server) mustSubLocked(subID string) *subscription {
	sub, ok := s.subs[subID]
	if !ok {
		s.t.Fatalf("razorpaytest: no subscription %q", subID)
	}
	return sub
}

const idChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomID imitates Razorpay's 14-character ids; crypto/rand so ids from
// parallel tests never collide.
func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = idChars[int(b[i])%len(idChars)]
	}
	return string(b)
}
