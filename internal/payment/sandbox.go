package payment

import (
	"context"
	"crypto/rand"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"time"
)

// SandboxKeyID is the sandbox's public key id. Razorpay Checkout does not
// know it, which is the point: a sandbox checkout never reaches Razorpay.
const SandboxKeyID = "rzp_sandbox"

const (
	sandboxSubPrefix = "sub_sandbox_"
	sandboxIDChars   = 24
	base62           = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

var sandboxSubPattern = regexp.MustCompile(`^sub_sandbox_[0-9A-Za-z]{24}$`)

// Sandbox is a provider for local use without a Razorpay account: every
// subscription is paid the moment it is fetched.
//
// It keeps no state, so it survives restarts and agrees with itself across
// replicas. The price of that: it cannot remember a plan, notes, a
// cancellation or an amount. FetchSubscription reports any well-formed
// sandbox id as active, and invoices carry no amount (see ListInvoices);
// the caller's own records are the truth for all of those.
//
// Signatures are real HMACs under the one secret, for both the checkout
// callback and webhooks, so the same verify code runs locally as against
// Razorpay.
type Sandbox struct {
	secret string
	now    func() time.Time
}

// NewSandbox returns a sandbox signing with secret. With an empty secret
// every signature check fails, as it would for a misconfigured Razorpay.
func NewSandbox(secret string) *Sandbox {
	return &Sandbox{secret: secret, now: time.Now}
}

func (s *Sandbox) String() string   { return "payment.Sandbox{}" }
func (s *Sandbox) GoString() string { return s.String() }

// Name returns "sandbox".
func (s *Sandbox) Name() string { return "sandbox" }

// KeyID returns SandboxKeyID.
func (s *Sandbox) KeyID() string { return SandboxKeyID }

// CreateSubscription returns a new sub_sandbox_ id in status created. The
// plan is optional here, but the request is otherwise checked as Razorpay
// would check it.
func (s *Sandbox) CreateSubscription(ctx context.Context, r CreateSubscriptionRequest) (*Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := r.normalise(false)
	if err != nil {
		return nil, err
	}
	return &Subscription{
		ID:     sandboxSubPrefix + randomBase62(sandboxIDChars),
		PlanID: r.PlanID,
		Status: "created",
		Notes:  maps.Clone(r.Notes),
	}, nil
}

// FetchSubscription reports any well-formed sandbox id as active for one
// month from now; other well-formed ids do not exist here.
func (s *Sandbox) FetchSubscription(ctx context.Context, id string) (*Subscription, error) {
	if err := s.check(ctx, id); err != nil {
		return nil, fmt.Errorf("payment: fetch subscription: %w", err)
	}
	start, end := s.period()
	return &Subscription{ID: id, Status: "active", CurrentStart: &start, CurrentEnd: &end}, nil
}

// CancelSubscription always answers cancelled. At cycle end the current
// period is kept, so the caller can go on serving until CurrentEnd.
func (s *Sandbox) CancelSubscription(ctx context.Context, id string, atCycleEnd bool) (*Subscription, error) {
	if err := s.check(ctx, id); err != nil {
		return nil, fmt.Errorf("payment: cancel subscription: %w", err)
	}
	sub := &Subscription{ID: id, Status: "cancelled"}
	if atCycleEnd {
		start, end := s.period()
		sub.CurrentStart, sub.CurrentEnd = &start, &end
	}
	return sub, nil
}

// ListInvoices returns one paid invoice whose id is derived from the
// subscription id, so repeated calls agree.
//
// Its AmountMinor is 0 and Currency "": without state the sandbox cannot
// know the price (an amount echoed into notes at creation would be gone by
// now), and inventing one would put a wrong figure on a document. Callers
// fill both from their own plan records when they see Currency "".
func (s *Sandbox) ListInvoices(ctx context.Context, subscriptionID string) ([]Invoice, error) {
	if err := s.check(ctx, subscriptionID); err != nil {
		return nil, fmt.Errorf("payment: list invoices: %w", err)
	}
	start, _ := s.period()
	id := "inv_sandbox_" + strings.TrimPrefix(subscriptionID, sandboxSubPrefix)
	return []Invoice{{
		ID:             id,
		SubscriptionID: subscriptionID,
		Status:         "paid",
		PDFURL:         "https://sandbox.concierge.invalid/invoices/" + id + ".pdf",
		IssuedAt:       start,
		PaidAt:         &start,
	}}, nil
}

// VerifyPaymentSignature checks a signature made by SignPayment.
func (s *Sandbox) VerifyPaymentSignature(subscriptionID, paymentID, signature string) bool {
	return verifyPayment(s.secret, subscriptionID, paymentID, signature)
}

// VerifyWebhook checks a signature made by SignWebhook.
func (s *Sandbox) VerifyWebhook(body []byte, signature string) bool {
	return verifyHex(s.secret, body, signature)
}

// ParseWebhook decodes a body in Razorpay's webhook format.
func (s *Sandbox) ParseWebhook(body []byte, eventID string) (*WebhookEvent, error) {
	return parseWebhook(body, eventID)
}

// NewPaymentID returns a fresh pay_sandbox_ id for a checkout that
// completes without a browser.
func (s *Sandbox) NewPaymentID() string { return "pay_sandbox_" + randomBase62(sandboxIDChars) }

// SignPayment returns what Razorpay Checkout would hand the browser as
// razorpay_signature, so a sandbox checkout can be verified like a real one.
// It returns "" for ids that VerifyPaymentSignature would refuse anyway.
func (s *Sandbox) SignPayment(subscriptionID, paymentID string) string {
	msg, ok := paymentMessage(subscriptionID, paymentID)
	if !ok {
		return ""
	}
	return signHex(s.secret, msg)
}

// SignWebhook returns the X-Razorpay-Signature for body.
func (s *Sandbox) SignWebhook(body []byte) string { return signHex(s.secret, body) }

func (s *Sandbox) check(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkID("subscription id", id); err != nil {
		return err
	}
	if !sandboxSubPattern.MatchString(id) {
		return fmt.Errorf("%w: %s is not a sandbox subscription", ErrNotFound, id)
	}
	return nil
}

func (s *Sandbox) period() (start, end time.Time) {
	start = s.now().UTC().Truncate(time.Second)
	return start, start.AddDate(0, 1, 0)
}

// randomBase62 draws from crypto/rand with rejection sampling, so every
// character is equally likely (a plain modulo would favour the first few).
func randomBase62(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n*2)
	for len(out) < n {
		_, _ = rand.Read(buf) // cannot fail since Go 1.24: it crashes the program instead
		for _, b := range buf {
			if b < 62*4 && len(out) < n {
				out = append(out, base62[b%62])
			}
		}
	}
	return string(out)
}
