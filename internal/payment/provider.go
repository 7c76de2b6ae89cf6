// Package payment talks to the payment provider: a sandbox that activates
// at once (the default, for local use) and Razorpay (a hand-written client
// over its HTTP API). It knows nothing of plans or bots.
//
// It owns the provider's vocabulary (subscriptions, invoices, webhook
// events, Razorpay's status names) and the two signature checks that stand
// between a browser or a webhook sender and a paid bot. What a status means
// for a workspace is decided by the caller, from its own records.
//
// The wire-level fake used in tests lives in package razorpaytest.
package payment

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"
)

// Subscription is the provider's view of one recurring subscription.
type Subscription struct {
	ID           string     // "sub_..."
	PlanID       string     // provider plan id; "" when the provider did not say (the sandbox after a restart)
	Status       string     // created, authenticated, active, pending, halted, cancelled, completed, expired
	CurrentStart *time.Time // nil until the first payment
	CurrentEnd   *time.Time
	ShortURL     string // hosted payment page, when the provider has one
	Notes        map[string]string
}

// Invoice is one bill the provider raised for a subscription.
type Invoice struct {
	ID             string
	SubscriptionID string
	Status         string // issued, paid, cancelled, expired, partially_paid, draft, deleted
	Currency       string // ISO 4217, upper case; "" when unknown (see Sandbox.ListInvoices)
	AmountMinor    int64  // integer minor units (paise, cents); money is never a float here
	PDFURL         string // the provider's hosted invoice page
	IssuedAt       time.Time
	PaidAt         *time.Time
}

// DefaultTotalCount is the number of billing cycles asked for when
// CreateSubscriptionRequest.TotalCount is zero: Razorpay requires a finite
// count, and ten years of monthly cycles is "until cancelled" in practice.
const DefaultTotalCount = 120

// Razorpay refuses more notes than this, and longer values; the sandbox
// applies the same limits so a local run fails where production would.
const (
	maxNotes        = 15
	maxNoteValueLen = 256
	maxTotalCount   = 1200 // 100 years of monthly cycles, Razorpay's ceiling
)

// CreateSubscriptionRequest asks for a new subscription on a provider plan.
type CreateSubscriptionRequest struct {
	PlanID     string            // provider plan id (Razorpay plan_...); required for Razorpay
	TotalCount int               // billing cycles; 0 means DefaultTotalCount
	Notes      map[string]string // workspace id and purpose; at most 15, values up to 256 bytes
}

// WebhookEvent is a decoded provider webhook.
type WebhookEvent struct {
	// ID identifies the delivery for de-duplication: the X-Razorpay-Event-Id
	// header when given, otherwise derived from the body. The header is not
	// covered by the signature, so a replay can carry any ID it likes; use
	// BodyHash too, and make state transitions idempotent regardless.
	ID string
	// BodyHash is the hex SHA-256 of the raw body. Unlike ID it is covered
	// by the signature: a captured body replayed under a new event id still
	// hashes the same.
	BodyHash       string
	Type           string // "subscription.activated", ...
	SubscriptionID string
	Subscription   *Subscription // the subscription entity in the payload, when present
	PaymentID      string        // payment entity id, when present
	InvoiceID      string        // invoice entity id, or the payment's invoice_id
	CreatedAt      time.Time     // when the provider created the event; zero if absent
}

// Provider is a payment provider as the billing code sees it.
type Provider interface {
	Name() string  // "sandbox" or "razorpay"
	KeyID() string // public key id for the checkout payload
	// CreateSubscription is not idempotent: a retry after a timeout may leave
	// an unpaid subscription behind at the provider, which expires on its own.
	CreateSubscription(ctx context.Context, r CreateSubscriptionRequest) (*Subscription, error)
	FetchSubscription(ctx context.Context, id string) (*Subscription, error)
	// CancelSubscription cancels now (atCycleEnd false) or at the end of the
	// paid period. Cancelling one that has already ended succeeds.
	CancelSubscription(ctx context.Context, id string, atCycleEnd bool) (*Subscription, error)
	ListInvoices(ctx context.Context, subscriptionID string) ([]Invoice, error)
	// VerifyPaymentSignature checks the checkout callback: signature must be
	// the hex HMAC-SHA256 of paymentID + "|" + subscriptionID under the key
	// secret, compared in constant time. The caller passes the subscription
	// id from ITS OWN database, never the one the client sent.
	VerifyPaymentSignature(subscriptionID, paymentID, signature string) bool
	// VerifyWebhook checks X-Razorpay-Signature: hex HMAC-SHA256 of the raw
	// body under the webhook secret, in constant time.
	VerifyWebhook(body []byte, signature string) bool
	// ParseWebhook decodes a verified body. eventID is the
	// X-Razorpay-Event-Id header ("" if absent).
	ParseWebhook(body []byte, eventID string) (*WebhookEvent, error)
}

var (
	_ Provider = (*Razorpay)(nil)
	_ Provider = (*Sandbox)(nil)
)

// ErrNotFound means the provider says the id does not exist.
var ErrNotFound = errors.New("payment: not found")

// ErrInvalidID means an id was refused before any request was made, because
// it could not be a provider id and would otherwise end up inside a URL path.
var ErrInvalidID = errors.New("payment: invalid id")

// ErrInvalidRequest means a CreateSubscriptionRequest was refused locally.
var ErrInvalidRequest = errors.New("payment: invalid request")

// Error is a provider's 4xx or 5xx answer.
type Error struct {
	Status      int    // HTTP status
	Code        string // provider error code, e.g. BAD_REQUEST_ERROR
	Description string // provider's human-readable description
}

func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("payment: provider answered %d: %s", e.Status, e.Description)
	}
	return fmt.Sprintf("payment: provider answered %d %s: %s", e.Status, e.Code, e.Description)
}

// Is lets errors.Is(err, ErrNotFound) see through a provider answer, so the
// caller keeps both the sentinel and the provider's own words.
func (e *Error) Is(target error) bool {
	return target == ErrNotFound && e.notFound()
}

func (e *Error) notFound() bool {
	// Razorpay answers an unknown id with 400 BAD_REQUEST_ERROR "The id
	// provided does not exist", not with 404; "The requested URL was not
	// found" (a wrong route) is deliberately not matched.
	return e.Status == 404 || (e.Status == 400 && e.Code == "BAD_REQUEST_ERROR" && containsFold(e.Description, "does not exist"))
}

// IsTemporary tells whether repeating the same call later may succeed:
// network failures, timeouts, cancellations, 429 and 5xx answers. Other
// provider answers (4xx) and local validation errors are permanent.
func IsTemporary(err error) bool {
	if err == nil {
		return false
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Status == 429 || pe.Status >= 500
	}
	// A cancelled context is usually a shutdown: the work is still owed.
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	var te *transportError
	return errors.As(err, &te)
}

// transportError marks a failure to get any answer from the provider.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

func checkID(kind, id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%w: %s %q", ErrInvalidID, kind, truncate(id, 80))
	}
	return nil
}

// normalise checks r the way Razorpay would and fills the defaults.
func (r CreateSubscriptionRequest) normalise(requirePlan bool) (CreateSubscriptionRequest, error) {
	if r.PlanID != "" || requirePlan {
		if err := checkID("plan id", r.PlanID); err != nil {
			return r, err
		}
	}
	if r.TotalCount == 0 {
		r.TotalCount = DefaultTotalCount
	}
	if r.TotalCount < 0 || r.TotalCount > maxTotalCount {
		return r, fmt.Errorf("%w: total count %d outside 1..%d", ErrInvalidRequest, r.TotalCount, maxTotalCount)
	}
	if len(r.Notes) > maxNotes {
		return r, fmt.Errorf("%w: %d notes, at most %d", ErrInvalidRequest, len(r.Notes), maxNotes)
	}
	for k, v := range r.Notes {
		if k == "" || len(v) > maxNoteValueLen {
			return r, fmt.Errorf("%w: note %q empty key or value over %d bytes", ErrInvalidRequest, truncate(k, 40), maxNoteValueLen)
		}
	}
	return r, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
