package payment_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"concierge/internal/payment"
	"concierge/internal/payment/razorpaytest"
)

func newRazorpay(t *testing.T) (*payment.Razorpay, *razorpaytest.Server) {
	t.Helper()
	srv := razorpaytest.NewServer(t)
	rp, err := payment.NewRazorpay(srv.Config())
	if err != nil {
		t.Fatalf("NewRazorpay: %v", err)
	}
	return rp, srv
}

func TestRazorpaySubscriptionRoundTrip(t *testing.T) {
	rp, srv := newRazorpay(t)
	ctx := context.Background()
	notes := map[string]string{"workspace_id": "42", "purpose": "bot"}

	created, err := rp.CreateSubscription(ctx, payment.CreateSubscriptionRequest{PlanID: "plan_Basic0001", Notes: notes})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.Status != "created" || created.PlanID != "plan_Basic0001" || created.ShortURL == "" ||
		created.CurrentStart != nil || created.CurrentEnd != nil {
		t.Errorf("created = %+v", created)
	}
	if diff := cmp.Diff(notes, created.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}

	fetched, err := rp.FetchSubscription(ctx, created.ID)
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	if diff := cmp.Diff(created, fetched); diff != "" {
		t.Errorf("fetch differs from create (-create +fetch):\n%s", diff)
	}

	before := time.Now().Add(-time.Second)
	srv.Activate(created.ID)
	active, err := rp.FetchSubscription(ctx, created.ID)
	if err != nil {
		t.Fatalf("fetch active: %v", err)
	}
	if active.Status != "active" || active.CurrentStart == nil || active.CurrentEnd == nil ||
		active.CurrentStart.Before(before) || !active.CurrentEnd.After(*active.CurrentStart) ||
		active.CurrentStart.Location() != time.UTC {
		t.Errorf("active = %+v", active)
	}

	cancelled, err := rp.CancelSubscription(ctx, created.ID, false)
	if err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if cancelled.Status != "cancelled" || srv.Status(created.ID) != "cancelled" {
		t.Errorf("cancel: got %q, provider has %q", cancelled.Status, srv.Status(created.ID))
	}
	if n := srv.Calls("POST", "/subscriptions/"+created.ID+"/cancel"); n != 1 {
		t.Errorf("cancel calls = %d, want 1", n)
	}

	// A retry after a lost response finds it already cancelled: success.
	again, err := rp.CancelSubscription(ctx, created.ID, false)
	if err != nil || again.Status != "cancelled" {
		t.Errorf("second cancel = %+v, %v; want cancelled, nil", again, err)
	}
}

func TestRazorpayCancelAtCycleEndKeepsActive(t *testing.T) {
	rp, srv := newRazorpay(t)
	ctx := context.Background()
	sub, err := rp.CreateSubscription(ctx, payment.CreateSubscriptionRequest{PlanID: "plan_A"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Activate(sub.ID)
	got, err := rp.CancelSubscription(ctx, sub.ID, true)
	if err != nil {
		t.Fatalf("cancel at cycle end: %v", err)
	}
	if got.Status != "active" || got.CurrentEnd == nil {
		t.Errorf("cancel at cycle end = %+v, want still active with a period end", got)
	}
}

func TestRazorpayCancelOtherRefusalIsAnError(t *testing.T) {
	rp, srv := newRazorpay(t)
	ctx := context.Background()
	sub, err := rp.CreateSubscription(ctx, payment.CreateSubscriptionRequest{PlanID: "plan_A"})
	if err != nil {
		t.Fatal(err)
	}
	srv.FailNext("POST", "/subscriptions/"+sub.ID+"/cancel", 400)
	if _, err := rp.CancelSubscription(ctx, sub.ID, false); err == nil {
		t.Fatal("a refused cancel of a live subscription succeeded")
	}
	if got := srv.Status(sub.ID); got != "created" {
		t.Errorf("status = %q, want untouched", got)
	}
}

func TestRazorpayListInvoicesPaginatesAndMaps(t *testing.T) {
	rp, srv := newRazorpay(t)
	ctx := context.Background()
	sub, err := rp.CreateSubscription(ctx, payment.CreateSubscriptionRequest{PlanID: "plan_A"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := rp.CreateSubscription(ctx, payment.CreateSubscriptionRequest{PlanID: "plan_A"})
	if err != nil {
		t.Fatal(err)
	}
	srv.AddInvoice(other.ID, payment.Invoice{AmountMinor: 1})

	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 250
	for i := range n {
		issued := base.AddDate(0, 0, i)
		inv := payment.Invoice{
			ID:          fmt.Sprintf("inv_%03d", i),
			Currency:    "inr",
			AmountMinor: 99900 + int64(i),
			PDFURL:      "https://rzp.io/i/inv" + strconv.Itoa(i),
			IssuedAt:    issued,
		}
		if i%2 == 0 {
			paid := issued.Add(time.Hour)
			inv.PaidAt = &paid
		}
		srv.AddInvoice(sub.ID, inv)
	}

	got, err := rp.ListInvoices(ctx, sub.ID)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(got) != n {
		t.Fatalf("got %d invoices, want %d", len(got), n)
	}
	if calls := srv.Calls("GET", "/invoices"); calls != 3 {
		t.Errorf("invoice pages fetched = %d, want 3", calls)
	}
	paid := base.AddDate(0, 0, 248).Add(time.Hour)
	wantNewest := []payment.Invoice{
		{ID: "inv_249", SubscriptionID: sub.ID, Status: "issued", Currency: "INR", AmountMinor: 100149,
			PDFURL: "https://rzp.io/i/inv249", IssuedAt: base.AddDate(0, 0, 249)},
		{ID: "inv_248", SubscriptionID: sub.ID, Status: "paid", Currency: "INR", AmountMinor: 100148,
			PDFURL: "https://rzp.io/i/inv248", IssuedAt: base.AddDate(0, 0, 248), PaidAt: &paid},
	}
	if diff := cmp.Diff(wantNewest, got[:2]); diff != "" {
		t.Errorf("newest invoices (-want +got):\n%s", diff)
	}
	seen := map[string]bool{}
	for _, inv := range got {
		if seen[inv.ID] || inv.SubscriptionID != sub.ID {
			t.Fatalf("duplicate or foreign invoice %+v", inv)
		}
		seen[inv.ID] = true
	}
}

func TestRazorpayAuthFailure(t *testing.T) {
	srv := razorpaytest.NewServer(t)
	cfg := srv.Config()
	cfg.KeySecret = "not-the-secret-at-all"
	rp, err := payment.NewRazorpay(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rp.FetchSubscription(context.Background(), "sub_Any")
	var pe *payment.Error
	if !errors.As(err, &pe) || pe.Status != 401 || pe.Code != "BAD_REQUEST_ERROR" {
		t.Fatalf("err = %v, want a 401 provider error", err)
	}
	if errors.Is(err, payment.ErrNotFound) || payment.IsTemporary(err) {
		t.Errorf("auth failure classified as not-found or temporary: %v", err)
	}
	assertNoSecret(t, err.Error(), cfg.KeySecret, srv.WebhookSecret())
}

func TestRazorpayNotFound(t *testing.T) {
	rp, srv := newRazorpay(t)
	ctx := context.Background()

	if _, err := rp.FetchSubscription(ctx, "sub_DoesNotExist"); !errors.Is(err, payment.ErrNotFound) {
		t.Errorf("unknown id (400 does not exist): err = %v, want ErrNotFound", err)
	}
	srv.FailNext("GET", "/subscriptions/", 404)
	_, err := rp.FetchSubscription(ctx, "sub_DoesNotExist")
	var pe *payment.Error
	if !errors.Is(err, payment.ErrNotFound) || !errors.As(err, &pe) || pe.Status != 404 {
		t.Errorf("404: err = %v, want ErrNotFound carrying the provider error", err)
	}
	gets := srv.Calls("GET", "/subscriptions/")
	if _, err := rp.CancelSubscription(ctx, "sub_DoesNotExist", false); !errors.Is(err, payment.ErrNotFound) {
		t.Errorf("cancel unknown: err = %v, want ErrNotFound", err)
	}
	if srv.Calls("GET", "/subscriptions/") != gets {
		t.Error("cancel of an unknown id went on to fetch it")
	}
	if _, err := rp.CreateSubscription(ctx, payment.CreateSubscriptionRequest{PlanID: "nope_123"}); !errors.Is(err, payment.ErrNotFound) {
		t.Errorf("unknown plan: err = %v, want ErrNotFound", err)
	}
}

func TestRazorpayIsTemporary(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   bool
	}{
		{500, true}, {502, true}, {503, true}, {429, true},
		{400, false}, {401, false}, {403, false}, {422, false},
	} {
		rp, srv := newRazorpay(t)
		srv.FailNext("GET", "/subscriptions/", tc.status)
		_, err := rp.FetchSubscription(context.Background(), "sub_X")
		var pe *payment.Error
		if !errors.As(err, &pe) || pe.Status != tc.status {
			t.Errorf("%d: err = %v, want a provider error with that status", tc.status, err)
			continue
		}
		if got := payment.IsTemporary(err); got != tc.want {
			t.Errorf("%d: IsTemporary = %v, want %v", tc.status, got, tc.want)
		}
	}
	if payment.IsTemporary(nil) || payment.IsTemporary(payment.ErrInvalidID) || payment.IsTemporary(errors.New("x")) {
		t.Error("nil, ErrInvalidID or an unknown error classified as temporary")
	}
}

func TestRazorpayRejectsIDsWithPathCharacters(t *testing.T) {
	rp, srv := newRazorpay(t)
	ctx := context.Background()
	for _, id := range []string{
		"", "../invoices", "sub_1/cancel", "sub_1?x=1", "sub_1#", "sub%2F1", "sub 1", "sub_1\n",
		"sub_1.json", "sub-1", "süb_1", "sub_" + string(make([]byte, 61)),
		"sub_12345678901234567890123456789012345678901234567890123456789012",
	} {
		if _, err := rp.FetchSubscription(ctx, id); !errors.Is(err, payment.ErrInvalidID) {
			t.Errorf("fetch %q: err = %v, want ErrInvalidID", id, err)
		}
		if _, err := rp.CancelSubscription(ctx, id, false); !errors.Is(err, payment.ErrInvalidID) {
			t.Errorf("cancel %q: err = %v, want ErrInvalidID", id, err)
		}
		if _, err := rp.ListInvoices(ctx, id); !errors.Is(err, payment.ErrInvalidID) {
			t.Errorf("invoices %q: err = %v, want ErrInvalidID", id, err)
		}
		if _, err := rp.CreateSubscription(ctx, payment.CreateSubscriptionRequest{PlanID: id}); !errors.Is(err, payment.ErrInvalidID) {
			t.Errorf("create with plan %q: err = %v, want ErrInvalidID", id, err)
		}
	}
	if n := srv.Calls("", ""); n != 0 {
		t.Errorf("%d requests reached the provider, want 0", n)
	}
}

func TestRazorpayRejectsInvalidCreateWithoutRequest(t *testing.T) {
	rp, srv := newRazorpay(t)
	tooMany := map[string]string{}
	for i := range 16 {
		tooMany["k"+strconv.Itoa(i)] = "v"
	}
	for name, req := range map[string]payment.CreateSubscriptionRequest{
		"negative count": {PlanID: "plan_A", TotalCount: -1},
		"16 notes":       {PlanID: "plan_A", Notes: tooMany},
		"long note":      {PlanID: "plan_A", Notes: map[string]string{"k": string(make([]byte, 257))}},
	} {
		if _, err := rp.CreateSubscription(context.Background(), req); !errors.Is(err, payment.ErrInvalidRequest) {
			t.Errorf("%s: err = %v, want ErrInvalidRequest", name, err)
		}
	}
	if n := srv.Calls("", ""); n != 0 {
		t.Errorf("%d requests reached the provider, want 0", n)
	}
}
