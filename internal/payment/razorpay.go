package payment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultRazorpayBaseURL is Razorpay's API root.
const DefaultRazorpayBaseURL = "https://api.razorpay.com/v1"

const (
	defaultHTTPTimeout = 15 * time.Second
	maxResponseBytes   = 4 << 20
	maxErrorBytes      = 64 << 10
	invoicePageSize    = 100 // Razorpay's largest page
)

// maxInvoicePages bounds ListInvoices so a provider that ignores skip
// cannot keep us paging forever; 2,000 invoices is far beyond any real
// subscription (DefaultTotalCount cycles plus retries).
const maxInvoicePages = 20

// RazorpayConfig configures NewRazorpay. Its String, GoString and LogValue
// mask the secrets, so printing or logging a config is safe.
type RazorpayConfig struct {
	KeyID         string // public, "rzp_live_..." or "rzp_test_..."
	KeySecret     string // signs API calls and the checkout callback
	WebhookSecret string // signs webhooks; must differ from KeySecret

	// PreviousWebhookSecret is still accepted, but only for events created
	// before WebhookSecretRotatedAt: Razorpay retries an old event with the
	// secret it was first signed with, while a body newly signed with a
	// retired (possibly leaked) secret must not pass.
	PreviousWebhookSecret  string
	WebhookSecretRotatedAt time.Time

	BaseURL    string       // default DefaultRazorpayBaseURL
	HTTPClient *http.Client // default: 15 s timeout, no proxy, no redirects
}

func (c RazorpayConfig) String() string {
	return fmt.Sprintf("RazorpayConfig{KeyID:%s KeySecret:%s WebhookSecret:%s PreviousWebhookSecret:%s BaseURL:%s}",
		c.KeyID, mask(c.KeySecret), mask(c.WebhookSecret), mask(c.PreviousWebhookSecret), c.BaseURL)
}

// GoString keeps %#v from printing the secrets.
func (c RazorpayConfig) GoString() string { return c.String() }

// LogValue keeps slog from printing the secrets.
func (c RazorpayConfig) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("key_id", c.KeyID),
		slog.String("key_secret", mask(c.KeySecret)),
		slog.String("webhook_secret", mask(c.WebhookSecret)),
		slog.String("previous_webhook_secret", mask(c.PreviousWebhookSecret)),
		slog.String("base_url", c.BaseURL),
	)
}

func mask(secret string) string {
	if secret == "" {
		return "unset"
	}
	return "set"
}

// Razorpay is the Razorpay subscriptions API client. It is safe for
// concurrent use.
type Razorpay struct {
	keyID         string
	keySecret     string
	webhookSecret string
	prevSecret    string
	rotatedAt     time.Time
	base          string
	hc            *http.Client
}

// NewRazorpay checks cfg and returns a client. It makes no request.
func NewRazorpay(cfg RazorpayConfig) (*Razorpay, error) {
	switch {
	case cfg.KeyID == "" || cfg.KeySecret == "" || cfg.WebhookSecret == "":
		return nil, errors.New("payment: razorpay needs a key id, key secret and webhook secret")
	case cfg.WebhookSecret == cfg.KeySecret:
		// One secret for both would let a checkout signature double as a
		// webhook signature (and vice versa).
		return nil, errors.New("payment: razorpay webhook secret must differ from the key secret")
	case cfg.PreviousWebhookSecret != "" && cfg.WebhookSecretRotatedAt.IsZero():
		return nil, errors.New("payment: razorpay previous webhook secret needs the rotation time")
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultRazorpayBaseURL
	}
	if err := checkBaseURL(base); err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// Basic-auth credentials go to Razorpay and nowhere else: no proxy
		// from the environment, and no redirects (the API never sends one).
		t.Proxy = nil
		hc = &http.Client{
			Timeout:   defaultHTTPTimeout,
			Transport: t,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	}
	return &Razorpay{
		keyID:         cfg.KeyID,
		keySecret:     cfg.KeySecret,
		webhookSecret: cfg.WebhookSecret,
		prevSecret:    cfg.PreviousWebhookSecret,
		rotatedAt:     cfg.WebhookSecretRotatedAt,
		base:          strings.TrimRight(base, "/"),
		hc:            hc,
	}, nil
}

// checkBaseURL refuses plain HTTP except to this machine, where the test
// fake runs: the key secret travels in every request's Authorization header.
func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("payment: razorpay base URL %q is not an absolute URL without credentials or query", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
			return nil
		}
	}
	return fmt.Errorf("payment: razorpay base URL %q must be https", raw)
}

func (r *Razorpay) String() string {
	return "payment.Razorpay{key_id=" + r.keyID + " base=" + r.base + "}"
}
func (r *Razorpay) GoString() string { return r.String() }

// Name returns "razorpay".
func (r *Razorpay) Name() string { return "razorpay" }

// KeyID returns the public key id for the checkout payload.
func (r *Razorpay) KeyID() string { return r.keyID }

// CreateSubscription creates a subscription on req.PlanID, in status
// created until the customer pays for it through Checkout.
func (r *Razorpay) CreateSubscription(ctx context.Context, req CreateSubscriptionRequest) (*Subscription, error) {
	req, err := req.normalise(true)
	if err != nil {
		return nil, err
	}
	body := struct {
		PlanID         string            `json:"plan_id"`
		TotalCount     int               `json:"total_count"`
		CustomerNotify int               `json:"customer_notify"`
		Notes          map[string]string `json:"notes,omitempty"`
	}{req.PlanID, req.TotalCount, 1, req.Notes}
	var w wireSubscription
	if err := r.do(ctx, http.MethodPost, "/subscriptions", nil, body, &w); err != nil {
		return nil, fmt.Errorf("payment: create subscription: %w", err)
	}
	// The id goes into URLs later; never trust it further than we check it.
	if err := checkID("subscription id", w.ID); err != nil {
		return nil, fmt.Errorf("payment: create subscription: provider answered %w", err)
	}
	return w.toSubscription(), nil
}

// FetchSubscription returns the subscription as the provider sees it now.
func (r *Razorpay) FetchSubscription(ctx context.Context, id string) (*Subscription, error) {
	if err := checkID("subscription id", id); err != nil {
		return nil, err
	}
	var w wireSubscription
	if err := r.do(ctx, http.MethodGet, "/subscriptions/"+id, nil, nil, &w); err != nil {
		return nil, fmt.Errorf("payment: fetch subscription %s: %w", id, err)
	}
	return w.toSubscription(), nil
}

// CancelSubscription cancels now or at the end of the paid period. With
// atCycleEnd Razorpay keeps the status active until the period ends.
//
// Razorpay refuses to cancel a subscription that has already ended. That
// answer is what a retry sees after a cancel whose response was lost, so
// it is checked against the subscription's state and treated as success
// when the subscription has indeed ended.
func (r *Razorpay) CancelSubscription(ctx context.Context, id string, atCycleEnd bool) (*Subscription, error) {
	if err := checkID("subscription id", id); err != nil {
		return nil, err
	}
	body := struct {
		CancelAtCycleEnd int `json:"cancel_at_cycle_end"`
	}{}
	if atCycleEnd {
		body.CancelAtCycleEnd = 1
	}
	var w wireSubscription
	err := r.do(ctx, http.MethodPost, "/subscriptions/"+id+"/cancel", nil, body, &w)
	if err == nil {
		return w.toSubscription(), nil
	}
	var pe *Error
	if errors.As(err, &pe) && pe.Status == 400 && !pe.notFound() {
		if sub, ferr := r.FetchSubscription(ctx, id); ferr == nil && isEnded(sub.Status) {
			return sub, nil
		}
	}
	return nil, fmt.Errorf("payment: cancel subscription %s: %w", id, err)
}

func isEnded(status string) bool {
	return status == "cancelled" || status == "completed" || status == "expired"
}

// ListInvoices returns every invoice of the subscription, newest first as
// Razorpay lists them.
func (r *Razorpay) ListInvoices(ctx context.Context, subscriptionID string) ([]Invoice, error) {
	if err := checkID("subscription id", subscriptionID); err != nil {
		return nil, err
	}
	var out []Invoice
	for page := 0; page < maxInvoicePages; page++ {
		q := url.Values{
			"subscription_id": {subscriptionID},
			"count":           {strconv.Itoa(invoicePageSize)},
		}
		if page > 0 {
			q.Set("skip", strconv.Itoa(page*invoicePageSize))
		}
		var w wireInvoicePage
		if err := r.do(ctx, http.MethodGet, "/invoices", q, nil, &w); err != nil {
			return nil, fmt.Errorf("payment: list invoices of %s: %w", subscriptionID, err)
		}
		for i := range w.Items {
			out = append(out, w.Items[i].toInvoice())
		}
		if len(w.Items) < invoicePageSize {
			return out, nil
		}
	}
	return nil, fmt.Errorf("payment: list invoices of %s: more than %d pages", subscriptionID, maxInvoicePages)
}

// VerifyPaymentSignature checks the Checkout callback under the key secret.
func (r *Razorpay) VerifyPaymentSignature(subscriptionID, paymentID, signature string) bool {
	return verifyPayment(r.keySecret, subscriptionID, paymentID, signature)
}

// VerifyWebhook checks X-Razorpay-Signature under the webhook secret, or
// under the previous one for events created before the rotation.
func (r *Razorpay) VerifyWebhook(body []byte, signature string) bool {
	if verifyHex(r.webhookSecret, body, signature) {
		return true
	}
	if r.prevSecret == "" || !verifyHex(r.prevSecret, body, signature) {
		return false
	}
	// created_at is trustworthy here: the old secret signed it.
	var head struct {
		CreatedAt int64 `json:"created_at"`
	}
	if json.Unmarshal(body, &head) != nil || head.CreatedAt <= 0 {
		return false
	}
	return time.Unix(head.CreatedAt, 0).Before(r.rotatedAt)
}

// ParseWebhook decodes a verified webhook body.
func (r *Razorpay) ParseWebhook(body []byte, eventID string) (*WebhookEvent, error) {
	return parseWebhook(body, eventID)
}

// do sends one API call and decodes a 2xx answer into out; anything else
// becomes an *Error or a transportError.
func (r *Razorpay) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	u := r.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	req.SetBasicAuth(r.keyID, r.keySecret)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "concierge-payment/1")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return &transportError{err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return readError(resp)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxResponseBytes)).Decode(out); err != nil {
		var syntaxErr *json.SyntaxError
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
			return fmt.Errorf("decode answer: %w", err)
		}
		// A body cut off mid-way (reset, timeout) is a network failure.
		return &transportError{err: fmt.Errorf("read answer: %w", err)}
	}
	return nil
}

func readError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
	e := &Error{Status: resp.StatusCode}
	var w wireError
	if json.Unmarshal(b, &w) == nil && (w.Error.Code != "" || w.Error.Description != "") {
		e.Code, e.Description = w.Error.Code, w.Error.Description
	} else {
		// Proxies and load balancers answer in HTML; their text says nothing.
		e.Description = http.StatusText(resp.StatusCode)
	}
	return e
}
