package razorpaytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Razorpay rejects fields it does not know with this wording; the fake does
// too, so a typo in the client's request body fails the test.
func decodeStrict(w http.ResponseWriter, r *http.Request, into any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		desc := "The request body is not valid JSON."
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			desc = strings.Trim(field, `"`) + " is/are not required and should not be sent"
		}
		writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR", desc, "")
		return false
	}
	return true
}

func (s *Server) createSubscription(w http.ResponseWriter, r *http.Request) {
	var req struct {
		PlanID         string            `json:"plan_id"`
		TotalCount     int               `json:"total_count"`
		CustomerNotify json.RawMessage   `json:"customer_notify"`
		Notes          map[string]string `json:"notes"`
	}
	if !decodeStrict(w, r, &req) {
		return
	}
	switch {
	case req.PlanID == "":
		writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR", "The plan id field is required.", "plan_id")
		return
	case !strings.HasPrefix(req.PlanID, "plan_"):
		writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR", "The id provided does not exist", "plan_id")
		return
	case req.TotalCount < 1:
		writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR", "The total count field is required.", "total_count")
		return
	case len(req.Notes) > 15:
		writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR", "Number of fields in notes should be less than or equal to 15", "notes")
		return
	}
	sub := &subscription{
		id:         "sub_" + randomID(14),
		planID:     req.PlanID,
		status:     "created",
		shortURL:   "https://rzp.io/i/" + randomID(10),
		notes:      req.Notes,
		totalCount: req.TotalCount,
		createdAt:  time.Now().Unix(),
	}
	s.mu.Lock()
	s.subs[sub.id] = sub
	body := sub.json()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) fetchSubscription(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sub, ok := s.subs[r.PathValue("id")]
	var body map[string]any
	if ok {
		body = sub.json()
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR", "The id provided does not exist", "")
		return
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) cancelSubscription(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CancelAtCycleEnd json.RawMessage `json:"cancel_at_cycle_end"`
	}
	if !decodeStrict(w, r, &req) {
		return
	}
	var atCycleEnd bool
	switch v := string(bytes.TrimSpace(req.CancelAtCycleEnd)); v {
	case "", "0", "false":
	case "1", "true":
		atCycleEnd = true
	default:
		writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR", "The selected cancel at cycle end is invalid.", "cancel_at_cycle_end")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, ok := s.subs[r.PathValue("id")]
	if !ok {
		writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR", "The id provided does not exist", "")
		return
	}
	switch sub.status {
	case "cancelled", "completed", "expired":
		writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR",
			fmt.Sprintf("Subscription is not cancellable in %s status.", sub.status), "status")
		return
	}
	if atCycleEnd && sub.status == "active" {
		// Razorpay keeps it active and paid until the period ends.
		sub.cancelAtCycleEnd = true
	} else {
		sub.status = "cancelled"
		sub.endedAt = time.Now().Unix()
	}
	writeJSON(w, http.StatusOK, sub.json())
}

func (s *Server) listInvoices(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	count, skip := 10, 0
	if v := q.Get("count"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR", "The count may not be greater than 100.", "count")
			return
		}
		count = n
	}
	if v := q.Get("skip"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "BAD_REQUEST_ERROR", "The skip must be at least 0.", "skip")
			return
		}
		skip = n
	}
	s.mu.Lock()
	var all []*invoice
	if id := q.Get("subscription_id"); id != "" {
		all = slices.Clone(s.invoices[id])
	} else {
		for _, invs := range s.invoices {
			all = append(all, invs...)
		}
	}
	s.mu.Unlock()
	slices.Reverse(all) // Razorpay lists newest first
	items := []map[string]any{}
	for i := skip; i < len(all) && len(items) < count; i++ {
		items = append(items, all[i].json())
	}
	writeJSON(w, http.StatusOK, map[string]any{"entity": "collection", "count": len(items), "items": items})
}

// json renders the subscription entity with the fields Razorpay sends,
// including its quirks: null for unset times, [] for empty notes.
func (sub *subscription) json() map[string]any {
	var notes any = []any{}
	if len(sub.notes) > 0 {
		notes = sub.notes
	}
	var scheduledAt any
	if sub.cancelAtCycleEnd {
		scheduledAt = sub.currentEnd
	}
	var customer any
	if sub.customerID != "" {
		customer = sub.customerID
	}
	return map[string]any{
		"id":                    sub.id,
		"entity":                "subscription",
		"plan_id":               sub.planID,
		"customer_id":           customer,
		"status":                sub.status,
		"current_start":         nullable(sub.currentStart),
		"current_end":           nullable(sub.currentEnd),
		"ended_at":              nullable(sub.endedAt),
		"quantity":              1,
		"notes":                 notes,
		"charge_at":             nullable(sub.chargeAt),
		"start_at":              nullable(sub.currentStart),
		"end_at":                nil,
		"auth_attempts":         0,
		"total_count":           sub.totalCount,
		"paid_count":            sub.paidCount,
		"customer_notify":       true,
		"created_at":            sub.createdAt,
		"expire_by":             nil,
		"short_url":             sub.shortURL,
		"has_scheduled_changes": sub.cancelAtCycleEnd,
		"change_scheduled_at":   scheduledAt,
		"source":                "api",
		"payment_method":        "card",
		"offer_id":              nil,
		"remaining_count":       sub.totalCount - sub.paidCount,
	}
}

func (inv *invoice) json() map[string]any {
	var paidAt any
	due := inv.AmountMinor
	if inv.PaidAt != nil {
		paidAt, due = inv.PaidAt.Unix(), 0
	}
	var paymentID any
	if inv.paymentID != "" {
		paymentID = inv.paymentID
	}
	return map[string]any{
		"id":              inv.ID,
		"entity":          "invoice",
		"type":            "invoice",
		"subscription_id": inv.SubscriptionID,
		"status":          inv.Status,
		"currency":        inv.Currency,
		"amount":          inv.AmountMinor,
		"amount_paid":     inv.AmountMinor - due,
		"amount_due":      due,
		"gross_amount":    inv.AmountMinor,
		"tax_amount":      0,
		"short_url":       inv.PDFURL,
		"issued_at":       inv.IssuedAt.Unix(),
		"paid_at":         paidAt,
		"payment_id":      paymentID,
		"created_at":      inv.IssuedAt.Unix(),
		"line_items":      []any{},
		"notes":           []any{},
	}
}

func nullable(sec int64) any {
	if sec == 0 {
		return nil
	}
	return sec
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, description, field string) {
	e := map[string]any{
		"code":        code,
		"description": description,
		"source":      "NA",
		"step":        "NA",
		"reason":      "NA",
		"metadata":    map[string]any{},
	}
	if field != "" {
		e["field"] = field
	}
	writeJSON(w, status, map[string]any{"error": e})
}
