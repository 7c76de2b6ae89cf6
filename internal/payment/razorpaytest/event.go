package razorpaytest

import (
	"encoding/json"
	"time"
)

// Event returns a webhook body as Razorpay would send it for eventType
// ("subscription.activated", ...) on the subscription in its current state,
// and a fresh X-Razorpay-Event-Id. Activated, authenticated and charged
// events carry a payment entity, tied to the newest invoice when there is
// one. The body is not signed; SignWebhook signs it.
//
// Event does not change the subscription: call Activate or SetStatus first,
// or deliberately not, to send events out of order.
func (s *Server) Event(eventType, subID string) (body []byte, eventID string) {
	s.t.Helper()
	s.mu.Lock()
	sub := s.mustSubLocked(subID)
	contains := []string{"subscription"}
	payload := map[string]any{
		"subscription": map[string]any{"entity": sub.json()},
	}
	switch eventType {
	case "subscription.activated", "subscription.authenticated", "subscription.charged":
		contains = append(contains, "payment")
		payload["payment"] = map[string]any{"entity": s.paymentLocked(sub)}
	}
	s.mu.Unlock()

	body, err := json.Marshal(map[string]any{
		"entity":     "event",
		"account_id": s.accountID,
		"event":      eventType,
		"contains":   contains,
		"payload":    payload,
		"created_at": time.Now().Unix(),
	})
	if err != nil {
		s.t.Fatalf("razorpaytest: encode event: %v", err)
	}
	return body, randomID(14)
}

// paymentLocked renders the payment entity Razorpay attaches to a
// subscription event: the newest invoice's payment if it has one, else the
// payment recorded by Activate, else a fresh one.
func (s *Server) paymentLocked(sub *subscription) map[string]any {
	id, amount, currency := sub.paymentID, int64(0), "INR"
	var invoiceID any
	if invs := s.invoices[sub.id]; len(invs) > 0 {
		inv := invs[len(invs)-1]
		invoiceID, amount, currency = inv.ID, inv.AmountMinor, inv.Currency
		if inv.paymentID != "" {
			id = inv.paymentID
		}
	}
	if id == "" {
		id = "pay_" + randomID(14)
	}
	var customer any
	if sub.customerID != "" {
		customer = sub.customerID
	}
	return map[string]any{
		"id":                id,
		"entity":            "payment",
		"amount":            amount,
		"currency":          currency,
		"status":            "captured",
		"order_id":          nil,
		"invoice_id":        invoiceID,
		"international":     false,
		"method":            "card",
		"amount_refunded":   0,
		"refund_status":     nil,
		"captured":          true,
		"description":       "Subscription payment",
		"card_id":           "card_" + randomID(14),
		"bank":              nil,
		"wallet":            nil,
		"vpa":               nil,
		"email":             "customer@example.com",
		"contact":           "+919000090000",
		"customer_id":       customer,
		"token_id":          nil,
		"notes":             []any{},
		"fee":               0,
		"tax":               0,
		"error_code":        nil,
		"error_description": nil,
		"created_at":        time.Now().Unix(),
	}
}
