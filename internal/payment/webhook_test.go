package payment_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"concierge/internal/payment"
	"concierge/internal/payment/razorpaytest"
)

// chargedBody follows the sample in Razorpay's webhook reference, including
// its untidy parts: null times, non-string note values, a string "captured".
const chargedBody = `{
  "entity": "event",
  "account_id": "acc_BFQ7uQEaa7j2z7",
  "event": "subscription.charged",
  "contains": ["subscription", "payment"],
  "payload": {
    "subscription": {
      "entity": {
        "id": "sub_BFQ7uQEaa7j2z7", "entity": "subscription", "plan_id": "plan_BFQ7uQEaa7j2z8",
        "customer_id": "cust_C0WlbKhp3aLA7W", "status": "active", "type": 2,
        "current_start": 1570213800, "current_end": 1572892200, "ended_at": null, "quantity": 1,
        "notes": {"workspace_id": "42", "seats": 3, "trial": true, "nothing": null},
        "charge_at": 1572892200, "start_at": 1570213800, "end_at": 1599244200, "auth_attempts": 0,
        "total_count": 12, "paid_count": 1, "customer_notify": true, "created_at": 1567689895,
        "expire_by": 1567881000, "short_url": null, "has_scheduled_changes": false,
        "change_scheduled_at": null, "source": "api", "payment_method": "card", "offer_id": null,
        "remaining_count": 11
      }
    },
    "payment": {
      "entity": {
        "id": "pay_DEXFWroJ6LikKT", "entity": "payment", "amount": 100000, "currency": "INR",
        "status": "captured", "order_id": "order_DEXFWXMHWNr1eA", "invoice_id": "inv_DEXFWVuM6gmPXu",
        "international": false, "method": "card", "amount_refunded": 0, "refund_status": null,
        "captured": "1", "description": "Recurring Payment via Subscription", "card_id": "card_DEXFX0KGuTWAtz",
        "card": {"id": "card_DEXFX0KGuTWAtz", "entity": "card", "name": "Gaurav Kumar", "last4": "1111",
                 "network": "Visa", "type": "debit", "issuer": null, "international": false, "emi": false},
        "bank": null, "wallet": null, "vpa": null, "email": "gaurav.kumar@example.com",
        "contact": "+919876543210", "customer_id": "cust_C0WlbKhp3aLA7W", "token_id": null, "notes": [],
        "fee": 2900, "tax": 0, "error_code": null, "error_description": null, "created_at": 1567690383
      }
    }
  },
  "created_at": 1567690383
}`

func TestParseWebhookRazorpaySample(t *testing.T) {
	rp := testRazorpay(t)
	got, err := rp.ParseWebhook([]byte(chargedBody), "KCpNHeXdzvEmzn")
	if err != nil {
		t.Fatal(err)
	}
	start, end := time.Unix(1570213800, 0).UTC(), time.Unix(1572892200, 0).UTC()
	sum := sha256.Sum256([]byte(chargedBody))
	want := &payment.WebhookEvent{
		ID:             "KCpNHeXdzvEmzn",
		BodyHash:       hex.EncodeToString(sum[:]),
		Type:           "subscription.charged",
		SubscriptionID: "sub_BFQ7uQEaa7j2z7",
		Subscription: &payment.Subscription{
			ID: "sub_BFQ7uQEaa7j2z7", PlanID: "plan_BFQ7uQEaa7j2z8", Status: "active",
			CurrentStart: &start, CurrentEnd: &end,
			Notes: map[string]string{"workspace_id": "42", "seats": "3", "trial": "true", "nothing": ""},
		},
		PaymentID: "pay_DEXFWroJ6LikKT",
		InvoiceID: "inv_DEXFWVuM6gmPXu",
		CreatedAt: time.Unix(1567690383, 0).UTC(),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
}

func TestParseWebhookEventTypes(t *testing.T) {
	for _, tc := range []struct {
		event, status string
		setup         func(*razorpaytest.Server, *payment.Razorpay, string)
		payment       bool
	}{
		{"subscription.authenticated", "authenticated", func(s *razorpaytest.Server, _ *payment.Razorpay, id string) {
			s.SetStatus(id, "authenticated")
		}, true},
		{"subscription.activated", "active", func(s *razorpaytest.Server, _ *payment.Razorpay, id string) {
			s.Activate(id)
		}, true},
		{"subscription.charged", "active", func(s *razorpaytest.Server, _ *payment.Razorpay, id string) {
			s.Activate(id)
			paid := time.Now()
			s.AddInvoice(id, payment.Invoice{ID: "inv_Charged0001", AmountMinor: 49900, PaidAt: &paid})
		}, true},
		{"subscription.pending", "pending", func(s *razorpaytest.Server, _ *payment.Razorpay, id string) {
			s.Activate(id)
			s.SetStatus(id, "pending")
		}, false},
		{"subscription.halted", "halted", func(s *razorpaytest.Server, _ *payment.Razorpay, id string) {
			s.Activate(id)
			s.SetStatus(id, "halted")
		}, false},
		{"subscription.cancelled", "cancelled", func(s *razorpaytest.Server, rp *payment.Razorpay, id string) {
			if _, err := rp.CancelSubscription(context.Background(), id, false); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"subscription.completed", "completed", func(s *razorpaytest.Server, _ *payment.Razorpay, id string) {
			s.Activate(id)
			s.SetStatus(id, "completed")
		}, false},
	} {
		t.Run(tc.event, func(t *testing.T) {
			rp, srv := newRazorpay(t)
			sub, err := rp.CreateSubscription(context.Background(), payment.CreateSubscriptionRequest{
				PlanID: "plan_A", Notes: map[string]string{"workspace_id": "9"},
			})
			if err != nil {
				t.Fatal(err)
			}
			tc.setup(srv, rp, sub.ID)
			body, eventID := srv.Event(tc.event, sub.ID)
			if !rp.VerifyWebhook(body, srv.SignWebhook(body)) {
				t.Fatal("the fake's signed event does not verify")
			}
			ev, err := rp.ParseWebhook(body, eventID)
			if err != nil {
				t.Fatal(err)
			}
			if ev.ID != eventID || ev.Type != tc.event || ev.SubscriptionID != sub.ID || ev.Subscription == nil ||
				ev.Subscription.Status != tc.status || ev.Subscription.Notes["workspace_id"] != "9" ||
				time.Since(ev.CreatedAt) > time.Minute {
				t.Errorf("event = %+v, subscription = %+v", ev, ev.Subscription)
			}
			if hasPayment := strings.HasPrefix(ev.PaymentID, "pay_"); hasPayment != tc.payment {
				t.Errorf("payment id %q, want one: %v", ev.PaymentID, tc.payment)
			}
			if tc.event == "subscription.charged" && ev.InvoiceID != "inv_Charged0001" {
				t.Errorf("invoice id = %q", ev.InvoiceID)
			}
			if tc.status == "active" && (ev.Subscription.CurrentStart == nil || ev.Subscription.CurrentEnd == nil) {
				t.Errorf("active subscription without a period: %+v", ev.Subscription)
			}
		})
	}
}

func TestParseWebhookEventID(t *testing.T) {
	rp := testRazorpay(t)
	body := []byte(`{"entity":"event","event":"subscription.halted","payload":{},"created_at":0}`)
	sum := sha256.Sum256(body)
	fallback := "sha256:" + hex.EncodeToString(sum[:])
	for header, want := range map[string]string{
		"":                         fallback,
		"  ":                       fallback,
		"KCpNHeXdzvEmzn":           "KCpNHeXdzvEmzn",
		" KCpNHeXdzvEmzn ":         "KCpNHeXdzvEmzn",
		"evt 1; drop table":        fallback,
		strings.Repeat("e", 129):   fallback,
		"evt_1:2.3-4":              "evt_1:2.3-4",
		"\u00e9vt":                 fallback,
		strings.Repeat("e", 128):   strings.Repeat("e", 128),
		"KCpNHeXdzvEmzn\r\nX-Evil": fallback,
	} {
		ev, err := rp.ParseWebhook(body, header)
		if err != nil {
			t.Fatal(err)
		}
		if ev.ID != want {
			t.Errorf("header %q: ID = %q, want %q", header, ev.ID, want)
		}
		if ev.Subscription != nil || ev.SubscriptionID != "" || !ev.CreatedAt.IsZero() {
			t.Errorf("empty payload gave %+v", ev)
		}
	}
}

func TestParseWebhookInvoiceEntity(t *testing.T) {
	body := `{"entity":"event","event":"invoice.paid","contains":["payment","invoice"],"payload":{
		"payment":{"entity":{"id":"pay_X","invoice_id":"inv_FromPayment"}},
		"invoice":{"entity":{"id":"inv_FromInvoice","subscription_id":"sub_X"}}},"created_at":1700000000}`
	ev, err := testRazorpay(t).ParseWebhook([]byte(body), "")
	if err != nil {
		t.Fatal(err)
	}
	if ev.InvoiceID != "inv_FromInvoice" || ev.PaymentID != "pay_X" {
		t.Errorf("event = %+v", ev)
	}
}

func TestParseWebhookRejectsNonEvents(t *testing.T) {
	rp := testRazorpay(t)
	// An empty payload arrives as [] from Razorpay's PHP: still an event.
	if ev, err := rp.ParseWebhook([]byte(`{"entity":"event","event":"payment.failed","payload":[]}`), ""); err != nil || ev.Type != "payment.failed" {
		t.Errorf("payload []: %+v, %v", ev, err)
	}
	for _, body := range []string{
		``, `null`, `[]`, `{}`, `not json`, `{"entity":"subscription","event":"subscription.activated"}`,
		`{"entity":"event"}`, `{"entity":"event","event":""}`,
		`{"entity":"event","event":"subscription.activated","payload":{"subscription":{"entity":{"current_start":"soon"}}}}`,
	} {
		if ev, err := rp.ParseWebhook([]byte(body), "evt"); err == nil {
			t.Errorf("%q parsed as %+v", body, ev)
		}
	}
}
