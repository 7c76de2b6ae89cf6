package webhook

import "sort"

// EventType is one entry of the documented event catalogue.
type EventType struct {
	Type        string         `json:"type" doc:"Dotted resource.action name, as in the payload's type and the endpoint's events list."`
	Description string         `json:"description"`
	Sample      map[string]any `json:"sample" doc:"A sample payload: {type, timestamp, data}."`
}

// TestEvent is the type of the deliveries POST /webhooks/{webhook_id}/test
// sends. Every endpoint receives it, whatever it subscribes to.
const TestEvent = "webhook.test"

// catalogue lists the domain events customers receive, with the fields of
// data. Events the outbox records for internal bookkeeping only (workspace
// sign-in events, operator accounts, ...) are not delivered.
var catalogue = []struct {
	typ, desc string
	data      map[string]any
}{
	{"lead.captured", "A visitor filled in a lead form.", map[string]any{"bot_id": 42, "session_id": "ses_0190d2c4a1b2c3d4e5f6", "source": "pre_chat",
		"name": "Asha Rao", "email": "asha@example.com", "phone": "", "company": "Example Ltd", "fields": map[string]string{}}},
	{"lead.qualified", "A lead's tier rose to sql or mql.", map[string]any{"bot_id": 42, "session_id": "ses_0190d2c4a1b2c3d4e5f6", "from": "nurture", "tier": "sql", "score": 82}},
	{"lead.tier_changed", "A lead's tier changed.", map[string]any{"bot_id": 42, "session_id": "ses_0190d2c4a1b2c3d4e5f6", "from": "nurture", "tier": "mql", "score": 61}},
	{"lead.follow_up_sent", "A follow-up e-mail was sent to a lead.", map[string]any{"bot_id": 42, "session_id": "ses_0190d2c4a1b2c3d4e5f6", "follow_up_id": "fu_0190d2c4a1b2"}},
	{"meeting.booked", "A meeting was booked with a conversation's visitor.", map[string]any{"bot_id": 42, "session_id": "ses_0190d2c4a1b2c3d4e5f6", "scheduled_at": "2026-01-15T10:00:00Z", "source": "calendly"}},
	{"conversation.started", "A visitor started a conversation.", map[string]any{"bot_id": 42, "session_id": "ses_0190d2c4a1b2c3d4e5f6"}},
	{"handoff.requested", "A visitor asked for a person and the conversation waits for an operator.", map[string]any{"bot_id": 42, "session_id": "ses_0190d2c4a1b2c3d4e5f6", "name": "Asha Rao", "email": "asha@example.com"}},
	{"handoff.claimed", "An operator took a waiting conversation.", map[string]any{"bot_id": 42, "session_id": "ses_0190d2c4a1b2c3d4e5f6", "operator_id": 7}},
	{"handoff.released", "The operator gave the conversation back to the bot.", map[string]any{"bot_id": 42, "session_id": "ses_0190d2c4a1b2c3d4e5f6", "operator_id": 7}},
	{"handoff.timed_out", "Nobody claimed a waiting conversation within the bot's hand-off timeout: the bot answers again.", map[string]any{"bot_id": 42, "session_id": "ses_0190d2c4a1b2c3d4e5f6"}},
	{"conversation.closed", "An operator closed (resolved) the conversation.", map[string]any{"bot_id": 42, "session_id": "ses_0190d2c4a1b2c3d4e5f6", "operator_id": 7, "outcome": "resolved"}},
	{"document.ingested", "A document was indexed into the bot's knowledge.", map[string]any{"bot_id": 42, "document_name": "pricing.pdf", "passages": 18, "credits": 3}},
	{"document.deleted", "A document was removed from the bot's knowledge.", map[string]any{"bot_id": 42, "document_name": "pricing.pdf"}},
	{"ingestion.finished", "An upload job finished.", map[string]any{"job_id": "ing_0190d2c4a1b2", "status": "completed", "files_completed": 2, "files_failed": 0, "credits": 5}},
	{"crawl.completed", "A crawl or re-crawl finished (kind: crawl, or recrawl for a re-crawl, manual or automatic).", map[string]any{"bot_id": 42, "crawl_id": "crw_0190d2c4a1b2", "kind": "crawl", "pages_indexed": 37, "pages_failed": 1}},
	{"crawl.failed", "A crawl or re-crawl failed.", map[string]any{"bot_id": 42, "crawl_id": "crw_0190d2c4a1b2", "kind": "recrawl", "pages_indexed": 0, "pages_failed": 0}},
	{"crawl.cancelled", "A crawl was cancelled.", map[string]any{"bot_id": 42, "crawl_id": "crw_0190d2c4a1b2", "kind": "crawl", "pages_indexed": 3, "pages_failed": 0}},
	{"bot.updated", "The bot's settings changed (the names of the changed fields).", map[string]any{"bot_id": 42, "fields": []string{"name", "welcome_message"}}},
	{"subscription.activated", "The bot's own subscription became active.", map[string]any{"bot_id": 42, "subscription_id": "sub_Nx7"}},
	{"subscription.cancelled", "The bot's subscription was cancelled.", map[string]any{"subscription_id": "sub_Nx7", "status": "cancelled"}},
	{"subscription.halted", "The bot's subscription stopped after failed payments.", map[string]any{"subscription_id": "sub_Nx7", "status": "halted"}},
	{"credits.low", "A debit took the workspace's credit balance below 10% of its plan's monthly credits (once per crossing; a top-up above the mark arms it again). Every endpoint of the workspace receives it.",
		map[string]any{"balance": 18, "threshold": 100, "plan": "starter", "monthly_credits": 1000}},
	{TestEvent, "Sent by POST /webhooks/{webhook_id}/test; every endpoint receives it.", map[string]any{"webhook_id": "wh_0190d2c4a1b2", "message": "This is a test delivery from Concierge."}},
}

var known = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range catalogue {
		m[c.typ] = true
	}
	return m
}()

// Known reports whether typ is a documented event type.
func Known(typ string) bool { return known[typ] }

// Catalogue returns the documented event types with a sample payload each,
// sorted by type.
func Catalogue() []EventType {
	out := make([]EventType, 0, len(catalogue))
	for _, c := range catalogue {
		out = append(out, EventType{Type: c.typ, Description: c.desc,
			Sample: map[string]any{"type": c.typ, "timestamp": "2026-01-15T09:30:00Z", "data": c.data}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}
