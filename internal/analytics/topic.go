package analytics

import (
	"slices"
	"strings"
	"sync"

	"concierge/internal/retrieval"
)

// Synonyms a visitor uses for one thing, folded to the concept's first
// word. General customer-service vocabulary: how people ask about price,
// delivery, refunds, opening hours, contact and the like, whatever the
// business. A word belongs to one concept only.
var synonymSets = [][]string{
	{"price", "pricing", "prices", "priced", "cost", "costs", "costing", "fee", "fees", "charge", "charges", "rate",
		"rates", "expensive", "cheap", "quote", "tariff"},
	{"shipping", "ship", "ships", "shipped", "delivery", "deliver", "delivers", "delivered", "postage", "courier",
		"dispatch", "dispatched", "send", "sent", "arrive", "arrives", "arrival"},
	{"refund", "refunds", "refunded", "reimburse", "reimbursement", "moneyback"},
	{"cancel", "cancellation", "cancelling", "canceling", "cancelled", "canceled", "terminate", "termination"},
	{"hours", "open", "opening", "opens", "close", "closing", "closes", "closed", "timings"},
	{"location", "located", "address", "directions", "situated"},
	{"phone", "telephone", "call", "ring", "number", "hotline"},
	{"human", "person", "agent", "representative", "rep", "operator", "staff", "real"},
	{"discount", "discounts", "coupon", "coupons", "promo", "promotion", "voucher", "vouchers", "deal", "deals", "sale"},
	{"password", "passcode", "pwd"},
	{"login", "log", "signin", "sign"},
	{"job", "jobs", "career", "careers", "hiring", "hire", "vacancy", "vacancies", "position", "positions", "opening"},
	{"pay", "payment", "payments", "paying", "paid"},
	{"book", "booking", "reserve", "reservation", "reservations", "schedule", "scheduling"},
	{"appointment", "appointments", "appt", "consultation", "visit", "slot"},
	{"order", "orders", "purchase", "purchases", "bought", "package", "parcel"},
	{"track", "tracking", "trace", "status", "where"},
	{"trial", "trials", "try", "test"},
	{"subscription", "subscriptions", "subscribe", "plan", "plans", "membership", "member"},
	{"broken", "damaged", "damage", "defective", "faulty", "cracked", "smashed"},
	{"wrong", "incorrect", "mistaken"},
	{"change", "update", "modify", "edit", "switch"},
	{"delete", "remove", "erase", "close"},
	{"account", "profile"},
	{"wifi", "internet", "wlan"},
	{"abroad", "international", "internationally", "overseas", "worldwide", "countries", "country"},
	{"invoice", "invoices", "receipt", "receipts", "bill"},
	{"available", "availability", "stock", "instock"},
	{"guarantee", "warranty", "warranties", "guaranteed"},
}

var (
	synOnce sync.Once
	synOf   map[string]string // stemmed term → the concept's stemmed first word
)

func synonyms() map[string]string {
	synOnce.Do(func() {
		synOf = map[string]string{}
		for _, set := range synonymSets {
			head := ""
			for _, w := range set {
				ts := retrieval.QuestionTerms(w)
				if len(ts) != 1 {
					continue // a stop word or filler: never in a topic anyway
				}
				if head == "" {
					head = ts[0]
				}
				if _, taken := synOf[ts[0]]; !taken {
					synOf[ts[0]] = head
				}
			}
		}
	})
	return synOf
}

// maxTopicTerms bounds a topic: the first terms of a long message say
// what it is about.
const maxTopicTerms = 8

// Topic is the grouping key of a visitor's question: its content terms
// (retrieval.QuestionTerms), synonyms folded, distinct and sorted, joined
// by spaces. Paraphrases share it ("how much does it cost?", "pricing?",
// "what's the price" → "price"); near ones are merged when read
// (grouping). "" for a message without content terms ("hi", "thanks").
func Topic(question string) string {
	syn := synonyms()
	terms := retrieval.QuestionTerms(question)
	out := make([]string, 0, min(len(terms), maxTopicTerms))
	for _, t := range terms {
		if c, ok := syn[t]; ok {
			t = c
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
			if len(out) == maxTopicTerms {
				break
			}
		}
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}
