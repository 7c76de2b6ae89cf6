package payment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// The Razorpay JSON shapes, shared by the API client and webhook parsing
// (the sandbox parses webhooks the same way so one handler serves both).

type wireSubscription struct {
	ID           string    `json:"id"`
	PlanID       string    `json:"plan_id"`
	Status       string    `json:"status"`
	CurrentStart *int64    `json:"current_start"`
	CurrentEnd   *int64    `json:"current_end"`
	ShortURL     string    `json:"short_url"`
	Notes        wireNotes `json:"notes"`
}

func (w *wireSubscription) toSubscription() *Subscription {
	return &Subscription{
		ID:           w.ID,
		PlanID:       w.PlanID,
		Status:       w.Status,
		CurrentStart: unixPtr(w.CurrentStart),
		CurrentEnd:   unixPtr(w.CurrentEnd),
		ShortURL:     w.ShortURL,
		Notes:        w.Notes,
	}
}

type wireInvoice struct {
	ID             string `json:"id"`
	SubscriptionID string `json:"subscription_id"`
	Status         string `json:"status"`
	Currency       string `json:"currency"`
	// int64, not float64: a fractional amount is a decoding error rather
	// than a silently rounded charge.
	Amount   *int64 `json:"amount"`
	ShortURL string `json:"short_url"`
	IssuedAt *int64 `json:"issued_at"`
	PaidAt   *int64 `json:"paid_at"`
}

func (w *wireInvoice) toInvoice() Invoice {
	inv := Invoice{
		ID:             w.ID,
		SubscriptionID: w.SubscriptionID,
		Status:         w.Status,
		Currency:       strings.ToUpper(w.Currency),
		PDFURL:         w.ShortURL,
		PaidAt:         unixPtr(w.PaidAt),
	}
	if w.Amount != nil {
		inv.AmountMinor = *w.Amount
	}
	if t := unixPtr(w.IssuedAt); t != nil {
		inv.IssuedAt = *t
	}
	return inv
}

type wireInvoicePage struct {
	Count int           `json:"count"`
	Items []wireInvoice `json:"items"`
}

type wireError struct {
	Error struct {
		Code        string `json:"code"`
		Description string `json:"description"`
	} `json:"error"`
}

// wireNotes accepts what Razorpay actually sends for notes: an object whose
// values are usually strings but may be numbers or booleans, and [] when
// there are none (an artefact of the PHP behind the API).
type wireNotes map[string]string

func (n *wireNotes) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		// null, [] or any other non-object: no notes we could key by name.
		*n = nil
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(wireNotes, len(raw))
	for k, v := range raw {
		var s string
		switch {
		case json.Unmarshal(v, &s) == nil:
			out[k] = s
		case string(v) == "null":
			out[k] = ""
		default:
			out[k] = string(v)
		}
	}
	*n = out
	return nil
}

// unixPtr maps Razorpay's unix seconds, where null and 0 both mean "not
// yet", to a UTC time.
func unixPtr(sec *int64) *time.Time {
	if sec == nil || *sec <= 0 {
		return nil
	}
	t := time.Unix(*sec, 0).UTC()
	return &t
}

type wireEvent struct {
	Entity    string          `json:"entity"`
	Event     string          `json:"event"`
	Payload   json.RawMessage `json:"payload"` // an object, or [] when empty
	CreatedAt *int64          `json:"created_at"`
}

type wirePayload struct {
	Subscription *struct {
		Entity *wireSubscription `json:"entity"`
	} `json:"subscription"`
	Payment *struct {
		Entity *struct {
			ID        string `json:"id"`
			InvoiceID string `json:"invoice_id"`
		} `json:"entity"`
	} `json:"payment"`
	Invoice *struct {
		Entity *struct {
			ID string `json:"id"`
		} `json:"entity"`
	} `json:"invoice"`
}

// eventIDPattern bounds what we accept from the unsigned event-id header
// before it reaches a database key.
var eventIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// parseWebhook decodes a Razorpay event body. It is a function, not a
// method, because parsing needs no secret: verification comes first.
func parseWebhook(body []byte, eventID string) (*WebhookEvent, error) {
	var w wireEvent
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("payment: decode webhook: %w", err)
	}
	if w.Entity != "event" || w.Event == "" {
		return nil, errors.New("payment: decode webhook: not an event")
	}
	var p wirePayload
	if raw := bytes.TrimSpace(w.Payload); len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("payment: decode webhook payload: %w", err)
		}
	}
	sum := sha256.Sum256(body)
	ev := &WebhookEvent{
		BodyHash: hex.EncodeToString(sum[:]),
		Type:     w.Event,
	}
	ev.ID = strings.TrimSpace(eventID)
	if !eventIDPattern.MatchString(ev.ID) {
		// Without a usable header, identical bodies are the only duplicates
		// we can recognise; Razorpay's retries resend the same body.
		ev.ID = "sha256:" + ev.BodyHash
	}
	if t := unixPtr(w.CreatedAt); t != nil {
		ev.CreatedAt = *t
	}
	if p := p.Subscription; p != nil && p.Entity != nil {
		ev.Subscription = p.Entity.toSubscription()
		ev.SubscriptionID = p.Entity.ID
	}
	if p := p.Payment; p != nil && p.Entity != nil {
		ev.PaymentID = p.Entity.ID
		ev.InvoiceID = p.Entity.InvoiceID
	}
	if p := p.Invoice; p != nil && p.Entity != nil && p.Entity.ID != "" {
		ev.InvoiceID = p.Entity.ID
	}
	return ev, nil
}

func containsFold(s, substr string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(substr))
}
