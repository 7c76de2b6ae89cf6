package payment

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func fixedSandbox(secret string, now time.Time) *Sandbox {
	s := NewSandbox(secret)
	s.now = func() time.Time { return now }
	return s
}

func TestSandboxIDsUnique(t *testing.T) {
	s := NewSandbox("sandbox-secret")
	format := regexp.MustCompile(`^sub_sandbox_[0-9A-Za-z]{24}$`)
	seen := make(map[string]bool, 10000)
	for range 10000 {
		sub, err := s.CreateSubscription(context.Background(), CreateSubscriptionRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if !format.MatchString(sub.ID) || seen[sub.ID] {
			t.Fatalf("id %q malformed or repeated", sub.ID)
		}
		seen[sub.ID] = true
	}
}

func TestSandboxCreate(t *testing.T) {
	s := NewSandbox("sandbox-secret")
	notes := map[string]string{"workspace_id": "3"}
	sub, err := s.CreateSubscription(context.Background(), CreateSubscriptionRequest{PlanID: "plan_Local", Notes: notes})
	if err != nil {
		t.Fatal(err)
	}
	want := &Subscription{ID: sub.ID, PlanID: "plan_Local", Status: "created", Notes: notes}
	if diff := cmp.Diff(want, sub); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	notes["workspace_id"] = "changed"
	if sub.Notes["workspace_id"] != "3" {
		t.Error("returned notes alias the request's map")
	}
	if s.Name() != "sandbox" || s.KeyID() != "rzp_sandbox" {
		t.Errorf("Name, KeyID = %q, %q", s.Name(), s.KeyID())
	}
	for name, req := range map[string]CreateSubscriptionRequest{
		"bad plan":       {PlanID: "plan/../x"},
		"negative count": {TotalCount: -3},
		"too many notes": {Notes: manyNotes(16)},
	} {
		if _, err := s.CreateSubscription(context.Background(), req); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func manyNotes(n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[fmt.Sprint("k", i)] = "v"
	}
	return m
}

func TestSandboxIsStateless(t *testing.T) {
	now := time.Date(2026, 1, 31, 10, 20, 30, 999, time.FixedZone("IST", 19800))
	creator := fixedSandbox("sandbox-secret", now)
	sub, err := creator.CreateSubscription(context.Background(), CreateSubscriptionRequest{PlanID: "plan_A"})
	if err != nil {
		t.Fatal(err)
	}
	// Another replica, or the same process after a restart.
	other := fixedSandbox("sandbox-secret", now)
	got, err := other.FetchSubscription(context.Background(), sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 31, 4, 50, 30, 0, time.UTC)
	end := start.AddDate(0, 1, 0)
	want := &Subscription{ID: sub.ID, Status: "active", CurrentStart: &start, CurrentEnd: &end}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fetched (-want +got):\n%s", diff)
	}

	cancelled, err := other.CancelSubscription(context.Background(), sub.ID, false)
	if err != nil || cancelled.Status != "cancelled" || cancelled.CurrentEnd != nil {
		t.Errorf("cancel now = %+v, %v", cancelled, err)
	}
	atEnd, err := other.CancelSubscription(context.Background(), sub.ID, true)
	if err != nil || atEnd.Status != "cancelled" || atEnd.CurrentEnd == nil || !atEnd.CurrentEnd.Equal(end) {
		t.Errorf("cancel at cycle end = %+v, %v", atEnd, err)
	}

	invs, err := other.ListInvoices(context.Background(), sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	invID := "inv_sandbox_" + strings.TrimPrefix(sub.ID, "sub_sandbox_")
	wantInv := []Invoice{{
		ID: invID, SubscriptionID: sub.ID, Status: "paid",
		PDFURL:   "https://sandbox.concierge.invalid/invoices/" + invID + ".pdf",
		IssuedAt: start, PaidAt: &start,
	}}
	if diff := cmp.Diff(wantInv, invs); diff != "" {
		t.Errorf("invoices (-want +got):\n%s", diff)
	}
	again, _ := creator.ListInvoices(context.Background(), sub.ID)
	if len(again) != 1 || again[0].ID != invID {
		t.Errorf("invoice id not deterministic: %+v", again)
	}
}

func TestSandboxUnknownAndInvalidIDs(t *testing.T) {
	s := NewSandbox("sandbox-secret")
	ctx := context.Background()
	for _, id := range []string{"sub_RealRazorpay01", "sub_sandbox_short", "sub_sandbox_" + strings.Repeat("a", 25)} {
		if _, err := s.FetchSubscription(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("fetch %q: err = %v, want ErrNotFound", id, err)
		}
		if _, err := s.ListInvoices(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("invoices %q: err = %v, want ErrNotFound", id, err)
		}
	}
	for _, id := range []string{"", "sub_sandbox_../../x", "sub_sandbox_aaaaaaaaaaaaaaaaaaaaaaa/", "sub sandbox"} {
		if _, err := s.CancelSubscription(ctx, id, false); !errors.Is(err, ErrInvalidID) {
			t.Errorf("cancel %q: err = %v, want ErrInvalidID", id, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.CreateSubscription(cancelled, CreateSubscriptionRequest{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
}

func TestSandboxSignaturesRoundTrip(t *testing.T) {
	s := NewSandbox("sandbox-secret")
	sub, err := s.CreateSubscription(context.Background(), CreateSubscriptionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	pay := s.NewPaymentID()
	if !regexp.MustCompile(`^pay_sandbox_[0-9A-Za-z]{24}$`).MatchString(pay) {
		t.Errorf("payment id %q", pay)
	}
	sig := s.SignPayment(sub.ID, pay)
	if !s.VerifyPaymentSignature(sub.ID, pay, sig) {
		t.Fatal("own payment signature refused")
	}
	// Another replica with the same secret agrees; one with another does not.
	if !NewSandbox("sandbox-secret").VerifyPaymentSignature(sub.ID, pay, sig) {
		t.Error("payment signature refused by another instance")
	}
	if NewSandbox("other-secret").VerifyPaymentSignature(sub.ID, pay, sig) {
		t.Error("payment signature accepted under another secret")
	}
	if s.VerifyPaymentSignature("sub_sandbox_"+strings.Repeat("b", 24), pay, sig) {
		t.Error("signature accepted for another subscription")
	}
	if s.SignPayment("sub|x", pay) != "" {
		t.Error("signed an id that cannot verify")
	}

	body := []byte(`{"entity":"event","event":"subscription.activated","payload":{"subscription":{"entity":{"id":"` + sub.ID + `","status":"active"}}}}`)
	wsig := s.SignWebhook(body)
	if !s.VerifyWebhook(body, wsig) {
		t.Fatal("own webhook signature refused")
	}
	body[len(body)-2] = ' '
	if s.VerifyWebhook(body, wsig) {
		t.Error("tampered webhook accepted")
	}
	ev, err := s.ParseWebhook([]byte(`{"entity":"event","event":"subscription.activated","payload":{"subscription":{"entity":{"id":"`+sub.ID+`","status":"active"}}}}`), "")
	if err != nil || ev.SubscriptionID != sub.ID || ev.Subscription.Status != "active" {
		t.Errorf("parse = %+v, %v", ev, err)
	}
}

func TestSandboxWithoutSecretFailsClosed(t *testing.T) {
	s := NewSandbox("")
	sub := "sub_sandbox_" + strings.Repeat("c", 24)
	if s.VerifyPaymentSignature(sub, "pay_1", s.SignPayment(sub, "pay_1")) || s.VerifyWebhook([]byte("{}"), s.SignWebhook([]byte("{}"))) {
		t.Error("a sandbox without a secret accepted a signature")
	}
}

func TestSandboxHidesSecret(t *testing.T) {
	s := NewSandbox("very-secret-value")
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", s)} {
		if strings.Contains(out, "very-secret-value") {
			t.Errorf("%q reveals the secret", out)
		}
	}
}
