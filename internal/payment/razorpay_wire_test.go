package payment_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"concierge/internal/payment"
)

// These tests use hand-rolled servers for what the fake deliberately does
// not do: misbehave.

const (
	testKeySecret     = "key_secret_for_tests"
	testWebhookSecret = "webhook_secret_for_tests"
)

func rawRazorpay(t *testing.T, h http.HandlerFunc) *payment.Razorpay {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	rp, err := payment.NewRazorpay(payment.RazorpayConfig{
		KeyID: "rzp_test_Key", KeySecret: testKeySecret, WebhookSecret: testWebhookSecret, BaseURL: srv.URL + "/v1/",
	})
	if err != nil {
		t.Fatal(err)
	}
	return rp
}

func TestRazorpayRequestsOnTheWire(t *testing.T) {
	type seen struct {
		Method, Path, Query, User, Pass, ContentType string
		Body                                         map[string]any
	}
	var got []seen
	rp := rawRazorpay(t, func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		s := seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, User: user, Pass: pass, ContentType: r.Header.Get("Content-Type")}
		if r.Method == http.MethodPost {
			if err := json.NewDecoder(r.Body).Decode(&s.Body); err != nil {
				t.Errorf("decode body: %v", err)
			}
		}
		got = append(got, s)
		if r.URL.Path == "/v1/invoices" {
			io.WriteString(w, `{"entity":"collection","count":0,"items":[]}`)
			return
		}
		io.WriteString(w, `{"id":"sub_Wire","status":"created","notes":[]}`)
	})
	ctx := context.Background()
	if _, err := rp.CreateSubscription(ctx, payment.CreateSubscriptionRequest{PlanID: "plan_P", Notes: map[string]string{"workspace_id": "7"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rp.FetchSubscription(ctx, "sub_Wire"); err != nil {
		t.Fatal(err)
	}
	if _, err := rp.CancelSubscription(ctx, "sub_Wire", true); err != nil {
		t.Fatal(err)
	}
	if _, err := rp.CancelSubscription(ctx, "sub_Wire", false); err != nil {
		t.Fatal(err)
	}
	if _, err := rp.ListInvoices(ctx, "sub_Wire"); err != nil {
		t.Fatal(err)
	}
	auth := func(s seen) seen { s.User, s.Pass = "rzp_test_Key", testKeySecret; return s }
	want := []seen{
		auth(seen{Method: "POST", Path: "/v1/subscriptions", ContentType: "application/json", Body: map[string]any{
			"plan_id": "plan_P", "total_count": 120.0, "customer_notify": 1.0, "notes": map[string]any{"workspace_id": "7"}}}),
		auth(seen{Method: "GET", Path: "/v1/subscriptions/sub_Wire"}),
		auth(seen{Method: "POST", Path: "/v1/subscriptions/sub_Wire/cancel", ContentType: "application/json", Body: map[string]any{"cancel_at_cycle_end": 1.0}}),
		auth(seen{Method: "POST", Path: "/v1/subscriptions/sub_Wire/cancel", ContentType: "application/json", Body: map[string]any{"cancel_at_cycle_end": 0.0}}),
		auth(seen{Method: "GET", Path: "/v1/invoices", Query: "count=100&subscription_id=sub_Wire"}),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestRazorpayContextDeadline(t *testing.T) {
	release := make(chan struct{})
	rp := rawRazorpay(t, func(w http.ResponseWriter, r *http.Request) {
		select { // never answers on its own
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // runs before the server closes

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := rp.FetchSubscription(ctx, "sub_Slow")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if !payment.IsTemporary(err) {
		t.Error("a timeout is not temporary")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("returned after %v; the deadline was not honoured", d)
	}
}

func TestRazorpayInvoicePageBound(t *testing.T) {
	var calls atomic.Int32
	rp := rawRazorpay(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		// Ignores skip: the same full page for ever.
		var b bytes.Buffer
		b.WriteString(`{"entity":"collection","count":100,"items":[`)
		for i := range 100 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"inv_%d","amount":1,"currency":"INR"}`, i)
		}
		b.WriteString(`]}`)
		w.Write(b.Bytes())
	})
	if _, err := rp.ListInvoices(context.Background(), "sub_Loop"); err == nil {
		t.Fatal("endless pagination returned without error")
	}
	if n := calls.Load(); n != 20 {
		t.Errorf("pages fetched = %d, want the bound of 20", n)
	}
}

func TestRazorpayInvoiceFieldMapping(t *testing.T) {
	body := `{"entity":"collection","count":3,"items":[
		{"id":"inv_A","entity":"invoice","subscription_id":"sub_M","status":"paid","currency":"usd","amount":123456789012,
		 "short_url":"https://rzp.io/i/A","issued_at":1700000000,"paid_at":1700000100},
		{"id":"inv_B","subscription_id":"sub_M","status":"issued","currency":"INR","amount":500,
		 "short_url":"https://rzp.io/i/B","issued_at":1700000000,"paid_at":0},
		{"id":"inv_C","subscription_id":"sub_M","status":"draft","currency":"INR","amount":null,
		 "short_url":null,"issued_at":null,"paid_at":null}]}`
	rp := rawRazorpay(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) })
	got, err := rp.ListInvoices(context.Background(), "sub_M")
	if err != nil {
		t.Fatal(err)
	}
	paid := time.Unix(1700000100, 0).UTC()
	want := []payment.Invoice{
		{ID: "inv_A", SubscriptionID: "sub_M", Status: "paid", Currency: "USD", AmountMinor: 123456789012,
			PDFURL: "https://rzp.io/i/A", IssuedAt: time.Unix(1700000000, 0).UTC(), PaidAt: &paid},
		{ID: "inv_B", SubscriptionID: "sub_M", Status: "issued", Currency: "INR", AmountMinor: 500,
			PDFURL: "https://rzp.io/i/B", IssuedAt: time.Unix(1700000000, 0).UTC()},
		{ID: "inv_C", SubscriptionID: "sub_M", Status: "draft", Currency: "INR"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("invoices (-want +got):\n%s", diff)
	}
}

func TestRazorpayRefusesFractionalAmount(t *testing.T) {
	rp := rawRazorpay(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"count":1,"items":[{"id":"inv_F","amount":999.5,"currency":"INR"}]}`)
	})
	_, err := rp.ListInvoices(context.Background(), "sub_F")
	if err == nil || payment.IsTemporary(err) {
		t.Fatalf("err = %v, want a permanent decoding error", err)
	}
}

func TestRazorpayProxyErrorPage(t *testing.T) {
	rp := rawRazorpay(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
	})
	_, err := rp.FetchSubscription(context.Background(), "sub_P")
	var pe *payment.Error
	if !errors.As(err, &pe) || pe.Status != 502 || pe.Description != "Bad Gateway" || !payment.IsTemporary(err) {
		t.Fatalf("err = %v, want a temporary 502 provider error", err)
	}
}

func TestRazorpayDistrustsReturnedID(t *testing.T) {
	rp := rawRazorpay(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"../../payouts","status":"created"}`)
	})
	if _, err := rp.CreateSubscription(context.Background(), payment.CreateSubscriptionRequest{PlanID: "plan_A"}); !errors.Is(err, payment.ErrInvalidID) {
		t.Fatalf("err = %v, want ErrInvalidID", err)
	}
}

func TestRazorpayTruncatedBodyIsTemporary(t *testing.T) {
	rp := rawRazorpay(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "200")
		io.WriteString(w, `{"id":"sub_T","sta`)
	})
	_, err := rp.FetchSubscription(context.Background(), "sub_T")
	if err == nil || !payment.IsTemporary(err) {
		t.Fatalf("err = %v, want a temporary error", err)
	}
}

func TestNewRazorpayConfig(t *testing.T) {
	ok := payment.RazorpayConfig{KeyID: "rzp_test_K", KeySecret: "ks_SECRET1", WebhookSecret: "wh_SECRET2"}
	for name, mutate := range map[string]func(*payment.RazorpayConfig){
		"no key id":              func(c *payment.RazorpayConfig) { c.KeyID = "" },
		"no key secret":          func(c *payment.RazorpayConfig) { c.KeySecret = "" },
		"no webhook secret":      func(c *payment.RazorpayConfig) { c.WebhookSecret = "" },
		"shared secret":          func(c *payment.RazorpayConfig) { c.WebhookSecret = c.KeySecret },
		"old secret, no time":    func(c *payment.RazorpayConfig) { c.PreviousWebhookSecret = "old" },
		"plain http":             func(c *payment.RazorpayConfig) { c.BaseURL = "http://api.razorpay.com/v1" },
		"credentials in URL":     func(c *payment.RazorpayConfig) { c.BaseURL = "https://u:p@api.razorpay.com/v1" },
		"relative URL":           func(c *payment.RazorpayConfig) { c.BaseURL = "/v1" },
		"query in URL":           func(c *payment.RazorpayConfig) { c.BaseURL = "https://api.razorpay.com/v1?x=1" },
		"plain http, not local":  func(c *payment.RazorpayConfig) { c.BaseURL = "http://10.0.0.1/v1" },
		"unsupported URL scheme": func(c *payment.RazorpayConfig) { c.BaseURL = "ftp://api.razorpay.com/v1" },
	} {
		cfg := ok
		mutate(&cfg)
		_, err := payment.NewRazorpay(cfg)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		assertNoSecret(t, err.Error(), "ks_SECRET1", "wh_SECRET2")
	}
	rp, err := payment.NewRazorpay(ok)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Name() != "razorpay" || rp.KeyID() != "rzp_test_K" {
		t.Errorf("Name, KeyID = %q, %q", rp.Name(), rp.KeyID())
	}

	ok.PreviousWebhookSecret = "wh_SECRET3"
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "payment", ok)
	for _, s := range []string{
		fmt.Sprint(ok), fmt.Sprintf("%+v", ok), fmt.Sprintf("%#v", ok), fmt.Sprintf("%v %+v %#v", rp, rp, rp), logged.String(),
	} {
		assertNoSecret(t, s, "ks_SECRET1", "wh_SECRET2", "wh_SECRET3")
	}
}

func assertNoSecret(t *testing.T, s string, secrets ...string) {
	t.Helper()
	for _, secret := range secrets {
		if strings.Contains(s, secret) {
			t.Errorf("%q reveals a secret", s)
		}
	}
}
