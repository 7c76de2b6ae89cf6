package lead

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	neturl "net/url"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/analytics"
	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/jobs"
	"concierge/internal/lead/emailcheck"
	"concierge/internal/lead/score"
	"concierge/internal/outbox"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// Limits of what a visitor can store on a lead.
const (
	MaxFields      = 30
	MaxFieldKey    = 64
	MaxFieldValue  = 1000
	maxPages       = 50
	maxPageSeconds = 4 * 3600
)

// CaptureInput is a lead form the visitor submitted (pre-chat, handoff or
// contact form). Empty fields leave what is stored alone.
type CaptureInput struct {
	SessionID string
	Name      string
	Email     string
	Phone     string
	Company   string
	Fields    map[string]string
	Source    string
	Origin    string
}

// Captured is the answer to a lead capture.
type Captured struct {
	SessionID   string `json:"session_id" doc:"The conversation the lead belongs to; a new one when none was sent."`
	EmailStatus string `json:"email_status" doc:"pending while the address is checked in the background."`
	Tier        string `json:"tier"`
	Score       int    `json:"score"`
}

func trimmed(v string) *string {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	return &v
}

// Capture stores a lead form of a bot's visitor. It never waits for e-mail
// validation: the address is stored as typed and checked by a job; the
// verdict later gates follow-ups. Without a session id a new conversation
// is started (the pre-chat form comes before the first question).
func (s *Service) Capture(ctx context.Context, workspaceID, botID int64, in CaptureInput) (*Captured, error) {
	name, email, phone, company := trimmed(in.Name), trimmed(in.Email), trimmed(in.Phone), trimmed(in.Company)
	fields := map[string]string{}
	for k, v := range in.Fields {
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "" || v == "" {
			continue
		}
		if len(k) > MaxFieldKey || len(v) > MaxFieldValue {
			return nil, apperr.Invalid("body.fields", fmt.Sprintf("keys up to %d and values up to %d characters", MaxFieldKey, MaxFieldValue), "value_error")
		}
		fields[k] = v
	}
	if name == nil && email == nil && phone == nil && company == nil && len(fields) == 0 {
		return nil, apperr.Invalid("body", "send at least one of name, email, phone, company or fields", "value_error")
	}
	var out *Captured
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		now := s.clock.Now()
		sess, err := s.sessionForWrite(ctx, tx, workspaceID, botID, in.SessionID, in.Origin, now)
		if err != nil {
			return err
		}
		r, err := s.ensureRow(ctx, tx, sess, now)
		if err != nil {
			return err
		}
		stored := map[string]string{}
		_ = json.Unmarshal([]byte(r.Fields), &stored)
		maps.Copy(stored, fields)
		if len(stored) > MaxFields {
			return apperr.Invalid("body.fields", fmt.Sprintf("a lead keeps at most %d free fields", MaxFields), "value_error")
		}
		fb, _ := json.Marshal(stored)
		newEmail := email != nil && (r.Email == nil || !strings.EqualFold(*r.Email, *email))
		status := r.EmailStatus
		if newEmail {
			status = EmailPending
		}
		captured := r.CapturedAt
		if captured == nil {
			captured = &now
		}
		before := converted(r)
		source := r.CaptureSource
		if in.Source != "" {
			source = &in.Source
		}
		if _, err := store.Exec(ctx, tx, `UPDATE leads SET name = COALESCE(?, name), email = COALESCE(?, email),
			phone = COALESCE(?, phone), company = COALESCE(?, company), fields = ?, capture_source = ?, captured_at = ?,
			email_status = ?, updated_at = ? WHERE session_id = ?`, name, email, phone, company, string(fb), source, captured,
			status, now, sess.ID); err != nil {
			return fmt.Errorf("lead: capture: %w", err)
		}
		if newEmail {
			if _, err := store.Exec(ctx, tx, `UPDATE leads SET email_verdict = NULL, email_reason = NULL, email_suggestion = NULL,
				email_checked_at = NULL WHERE session_id = ?`, sess.ID); err != nil {
				return err
			}
			if _, err := s.queue.EnqueueTx(ctx, tx, jobs.NewJob{Kind: jobCheckEmail, WorkspaceID: workspaceID, BotID: botID,
				Payload: checkPayload{SessionID: sess.ID, Email: *email}, MaxAttempts: 5}); err != nil {
				return err
			}
		}
		r, err = s.ensureRow(ctx, tx, sess, now)
		if err != nil {
			return err
		}
		data := map[string]any{"session_id": sess.PublicID, "bot_id": botID, "source": in.Source,
			"name": r.Name, "email": r.Email, "phone": r.Phone, "company": r.Company, "fields": stored}
		if _, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, BotID: botID, Type: "lead.captured",
			Data: data}); err != nil {
			return err
		}
		if r, err = s.scoreTx(ctx, tx, sess, r, now); err != nil {
			return err
		}
		out = &Captured{SessionID: sess.PublicID, EmailStatus: r.EmailStatus, Tier: r.Tier, Score: r.Score}
		if err := s.recordConversion(ctx, tx, sess, before, analytics.Converted{Lead: true, Meeting: before.Meeting}); err != nil {
			return err
		}
		if before.Lead {
			return nil
		}
		return analytics.Record(ctx, tx, analytics.Delta{BotID: sess.BotID, At: *captured, LeadsCaptured: 1})
	})
	return out, err
}

// sessionForWrite finds the bot's session, or starts one when id is empty.
func (s *Service) sessionForWrite(ctx context.Context, tx *sqlx.Tx, workspaceID, botID int64, id, origin string, now time.Time) (*session, error) {
	if id != "" {
		return s.botSession(ctx, tx, workspaceID, botID, id)
	}
	sess := &session{PublicID: secret.Token("cs_", 16), WorkspaceID: workspaceID, BotID: botID, CreatedAt: now, LastMessageAt: now}
	var org any
	if origin != "" {
		org = origin
	}
	if err := store.Get(ctx, tx, &sess.ID, `INSERT INTO chat_sessions (public_id, workspace_id, bot_id, preview, origin,
		created_at, last_message_at) VALUES (?, ?, ?, FALSE, ?, ?, ?) RETURNING id`, sess.PublicID, workspaceID, botID, org,
		now, now); err != nil {
		return nil, fmt.Errorf("lead: new session: %w", err)
	}
	_, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, BotID: botID, Type: "conversation.started",
		Data: map[string]any{"bot_id": botID, "session_id": sess.PublicID}})
	return sess, err
}

type checkPayload struct {
	SessionID int64  `json:"session_id"`
	Email     string `json:"email"`
}

// checkEmailJob validates a captured address and stores the verdict, unless
// the lead's address changed meanwhile.
func (s *Service) checkEmailJob(ctx context.Context, j *jobs.Job) error {
	var p checkPayload
	if err := j.Decode(&p); err != nil {
		return err
	}
	res := s.checker.Check(ctx, p.Email)
	_, err := s.storeCheck(ctx, s.db.Writer(), p.SessionID, p.Email, res)
	return err
}

func statusOf(res emailcheck.Result) string {
	switch {
	case !res.Valid:
		return EmailInvalid
	case res.Verdict == emailcheck.VerdictValid:
		return EmailValid
	}
	return EmailUnknown
}

func (s *Service) storeCheck(ctx context.Context, q store.Q, sessionID int64, email string, res emailcheck.Result) (string, error) {
	status := statusOf(res)
	_, err := store.Exec(ctx, q, `UPDATE leads SET email_status = ?, email_verdict = ?, email_reason = ?, email_suggestion = ?,
		email_checked_at = ? WHERE session_id = ? AND email = ?`, status, res.Verdict, trimmed(res.Reason), trimmed(res.Suggestion),
		s.clock.Now(), sessionID, email)
	if err != nil {
		return "", fmt.Errorf("lead: store e-mail check: %w", err)
	}
	return status, nil
}

// Validity is the answer of the live e-mail check.
type Validity struct {
	Email      string `json:"email"`
	Valid      bool   `json:"valid" doc:"false only for unambiguous junk; true (fail open) when unsure, when the provider is down or not configured, or when the plan lacks email_validation."`
	Verdict    string `json:"verdict" enum:"valid,invalid_syntax,reserved_domain,disposable,spamtrap,no_mail_server,undeliverable,catch_all,unknown,not_checked"`
	Reason     string `json:"reason,omitempty"`
	Suggestion string `json:"suggestion,omitempty" doc:"A probably intended address (a typo of a common domain)."`
	Checked    bool   `json:"checked" doc:"false when the plan does not include email_validation."`
}

// ValidateEmail checks an address a visitor is typing (spec 4.3 rule 5).
func (s *Service) ValidateEmail(ctx context.Context, workspaceID int64, email string) (*Validity, error) {
	ent, err := s.billing.Standing(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	if ent.Require(billing.FeatureEmailValidation) != nil {
		return &Validity{Email: email, Valid: true, Verdict: "not_checked", Reason: "this plan does not include e-mail validation"}, nil
	}
	res := s.checker.Check(ctx, email)
	return &Validity{Email: email, Valid: res.Valid, Verdict: res.Verdict, Reason: res.Reason, Suggestion: res.Suggestion,
		Checked: true}, nil
}

// SignalsInput is what the widget observed: the page at session start, the
// time on it at unload.
type SignalsInput struct {
	SessionID         string
	PageURL           string
	PageTitle         string
	Referrer          string
	TimeOnPageSeconds *int
	Visits            int
	UTMSource         string
}

// Behaviour is the answer to behavioural signals.
type Behaviour struct {
	SessionID       string           `json:"session_id"`
	BehavioralScore int              `json:"behavioral_score" doc:"Points the signals add to (or take from) the lead score, -10 to +15."`
	Signals         []score.Evidence `json:"signals"`
	Tier            string           `json:"tier"`
	Score           int              `json:"score"`
}

// RecordSignals merges behavioural signals into the session's lead and
// rescores it.
func (s *Service) RecordSignals(ctx context.Context, workspaceID, botID int64, in SignalsInput) (*Behaviour, error) {
	var out *Behaviour
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		now := s.clock.Now()
		sess, err := s.botSession(ctx, tx, workspaceID, botID, in.SessionID)
		if err != nil {
			return err
		}
		r, err := s.ensureRow(ctx, tx, sess, now)
		if err != nil {
			return err
		}
		o := r.observed()
		merge(&o, in)
		b, _ := json.Marshal(o)
		if _, err := store.Exec(ctx, tx, `UPDATE leads SET signals = ?, updated_at = ? WHERE session_id = ?`, string(b), now,
			sess.ID); err != nil {
			return fmt.Errorf("lead: signals: %w", err)
		}
		r.Signals = string(b)
		journey, err := s.recordJourneyTx(ctx, tx, sess, converted(r), o, in, now)
		if err != nil {
			return err
		}
		if r, err = s.scoreTx(ctx, tx, sess, r, now); err != nil {
			return err
		}
		l := view(r, sess.PublicID, sess.Messages, sess.LastMessageAt)
		out = &Behaviour{SessionID: sess.PublicID, BehavioralScore: l.BehavioralScore, Signals: l.Signals, Tier: l.Tier, Score: l.Score}
		return analytics.RecordJourney(ctx, tx, journey...)
	})
	return out, err
}

// recordJourneyTx keeps what analytics reads of the signals: the page
// reported (page_views, in the order first seen, with the longest time)
// and the conversation's first referrer host and UTM source. It returns
// the change to the journey days, which the caller records last (the
// lead's row, locked by ensureRow, keeps the session's signals, forms and
// meetings from changing meanwhile; conv is the lead's state).
func (s *Service) recordJourneyTx(ctx context.Context, tx store.Q, sess *session, conv analytics.Converted, o observed,
	in SignalsInput, now time.Time) ([]analytics.JourneyDelta, error) {
	var deltas []analytics.JourneyDelta
	// before is the conversation's entry, once read (known: the entry page
	// was set here, or read for a new referrer or UTM source).
	var before analytics.Entry
	known := false
	if url := in.PageURL; url != "" || (in.TimeOnPageSeconds != nil && len(o.Pages) > 0) {
		i := len(o.Pages) - 1
		if url != "" {
			i = slices.IndexFunc(o.Pages, func(p score.PageView) bool { return p.URL == url })
		}
		if i >= 0 {
			p := o.Pages[i]
			var old []struct {
				Seconds int       `db:"seconds"`
				At      time.Time `db:"created_at"`
			}
			if err := store.Select(ctx, tx, &old, `SELECT seconds, created_at FROM page_views WHERE session_id = ? AND url = ?`,
				sess.ID, p.URL); err != nil {
				return nil, fmt.Errorf("lead: page view: %w", err)
			}
			switch {
			case len(old) == 0:
				if _, err := store.Exec(ctx, tx, `INSERT INTO page_views (session_id, url, workspace_id, bot_id, position, seconds,
					created_at) VALUES (?, ?, ?, ?, (SELECT COUNT(*) FROM page_views WHERE session_id = ?), ?, ?)`,
					sess.ID, p.URL, sess.WorkspaceID, sess.BotID, sess.ID, p.Seconds, now); err != nil {
					return nil, fmt.Errorf("lead: page view: %w", err)
				}
				deltas = append(deltas, analytics.PageView(sess.BotID, p.URL, now, nil, p.Seconds, conv))
			case old[0].Seconds != p.Seconds:
				if _, err := store.Exec(ctx, tx, `UPDATE page_views SET seconds = ? WHERE session_id = ? AND url = ?`,
					p.Seconds, sess.ID, p.URL); err != nil {
					return nil, fmt.Errorf("lead: page view: %w", err)
				}
				deltas = append(deltas, analytics.PageView(sess.BotID, p.URL, old[0].At, &old[0].Seconds, p.Seconds, conv))
			}
			// The first page reported is the conversation's entry page.
			var set []analytics.Entry
			if err := store.Select(ctx, tx, &set, `UPDATE chat_sessions SET entry_url = ?, entry_at = ? WHERE id = ? AND entry_at IS NULL
				RETURNING NULL AS entry_at, NULL AS entry_url, referrer_host, utm_source`, p.URL, now, sess.ID); err != nil {
				return nil, fmt.Errorf("lead: entry page: %w", err)
			}
			if len(set) == 1 {
				before, known = set[0], true
				after := before
				after.At, after.URL = &now, &p.URL
				deltas = append(deltas, analytics.EntryChange(sess.BotID, before, after)...)
				before = after
			}
		}
	}
	host, utm := referrerHost(in.Referrer), utmSource(in)
	if host == "" && utm == "" {
		return deltas, nil
	}
	if !known {
		if err := store.Get(ctx, tx, &before, `SELECT `+analytics.EntryColumns+` FROM chat_sessions WHERE id = ?`, sess.ID); err != nil {
			return nil, fmt.Errorf("lead: referrer: %w", err)
		}
	}
	after := before
	if after.Referrer == nil && host != "" {
		after.Referrer = &host
	}
	if after.UTM == nil && utm != "" {
		after.UTM = &utm
	}
	if after == before {
		return deltas, nil
	}
	if _, err := store.Exec(ctx, tx, `UPDATE chat_sessions SET referrer_host = COALESCE(referrer_host, ?),
		utm_source = COALESCE(utm_source, ?) WHERE id = ?`, nullable(host), nullable(utm), sess.ID); err != nil {
		return nil, fmt.Errorf("lead: referrer: %w", err)
	}
	return append(deltas, analytics.EntryChange(sess.BotID, before, after)...), nil
}

// converted is what a lead counts for on its session's page views.
func converted(r *row) analytics.Converted {
	return analytics.Converted{Lead: r.CapturedAt != nil, Meeting: r.MeetingBookedAt != nil}
}

// recordConversion records the change of the session's page views when
// its lead went from before to after (a first lead form, a first
// meeting); last in the transaction but for the lead's quarter (the
// journey days before the quarters in every writer).
func (s *Service) recordConversion(ctx context.Context, tx store.Q, sess *session, before, after analytics.Converted) error {
	if before == after {
		return nil
	}
	var pages []analytics.SeenPage
	if err := store.Select(ctx, tx, &pages, `SELECT url, created_at FROM page_views WHERE session_id = ?`, sess.ID); err != nil {
		return fmt.Errorf("lead: page views: %w", err)
	}
	return analytics.RecordJourney(ctx, tx, analytics.Conversion(sess.BotID, pages, before, after)...)
}

// referrerHost is the host of a referrer URL, without "www.", lower case.
func referrerHost(ref string) string {
	u, err := neturl.Parse(strings.TrimSpace(ref))
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// utmSource is the campaign source the widget reported, or the one in the
// page's or the referrer's query.
func utmSource(in SignalsInput) string {
	if v := strings.ToLower(strings.TrimSpace(in.UTMSource)); v != "" {
		return truncateRunes(v, 100)
	}
	for _, raw := range []string{in.PageURL, in.Referrer} {
		if u, err := neturl.Parse(raw); err == nil {
			if v := strings.ToLower(strings.TrimSpace(u.Query().Get("utm_source"))); v != "" {
				return truncateRunes(v, 100)
			}
		}
	}
	return ""
}

func truncateRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// merge adds one report to what was observed: a page is listed once (the
// latest title, the longest time), at most maxPages of them.
func merge(o *observed, in SignalsInput) {
	if o.Referrer == "" && in.Referrer != "" {
		o.Referrer = in.Referrer
	}
	if in.Visits > o.Sessions {
		o.Sessions = in.Visits
	}
	i := -1
	if in.PageURL != "" {
		i = slices.IndexFunc(o.Pages, func(p score.PageView) bool { return p.URL == in.PageURL })
		if i < 0 {
			o.Pages = append(o.Pages, score.PageView{URL: in.PageURL})
			if len(o.Pages) > maxPages {
				o.Pages = o.Pages[len(o.Pages)-maxPages:]
			}
			i = len(o.Pages) - 1
		}
		if in.PageTitle != "" {
			o.Pages[i].Title = in.PageTitle
		}
	} else if len(o.Pages) > 0 {
		i = len(o.Pages) - 1 // unload reports time on the page the session started on
	}
	if in.TimeOnPageSeconds != nil && i >= 0 {
		o.Pages[i].Seconds = min(max(o.Pages[i].Seconds, *in.TimeOnPageSeconds), maxPageSeconds)
	}
}

// MeetingInput reports a booked meeting.
type MeetingInput struct {
	SessionID   string
	ScheduledAt *time.Time
	Source      string
	URL         string
	Notes       string
}

// BookMeeting records a meeting booked with the session's visitor (an
// integration reports it with the workspace key) and rescores the lead: a
// booked meeting is strong intent.
func (s *Service) BookMeeting(ctx context.Context, workspaceID int64, in MeetingInput) (*Lead, error) {
	var out *Lead
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		now := s.clock.Now()
		sess, err := s.workspaceSession(ctx, tx, workspaceID, in.SessionID)
		if err != nil {
			return err
		}
		r, err := s.ensureRow(ctx, tx, sess, now)
		if err != nil {
			return err
		}
		m := Meeting{BookedAt: now.UTC(), ScheduledAt: utc(in.ScheduledAt), Source: in.Source, URL: in.URL, Notes: in.Notes}
		first := r.MeetingBookedAt == nil
		before := converted(r)
		if !first {
			m.BookedAt = r.MeetingBookedAt.UTC()
		}
		b, _ := json.Marshal(m)
		if _, err := store.Exec(ctx, tx, `UPDATE leads SET meeting = ?, meeting_booked_at = ?, updated_at = ? WHERE session_id = ?`,
			string(b), m.BookedAt, now, sess.ID); err != nil {
			return fmt.Errorf("lead: meeting: %w", err)
		}
		mb := string(b)
		r.Meeting, r.MeetingBookedAt = &mb, &m.BookedAt
		if first {
			if _, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, BotID: sess.BotID, Type: "meeting.booked",
				Data: map[string]any{"session_id": sess.PublicID, "bot_id": sess.BotID, "scheduled_at": m.ScheduledAt,
					"source": m.Source}}); err != nil {
				return err
			}
		}
		if r, err = s.scoreTx(ctx, tx, sess, r, now); err != nil {
			return err
		}
		out = view(r, sess.PublicID, sess.Messages, sess.LastMessageAt)
		if err := s.recordConversion(ctx, tx, sess, before, analytics.Converted{Lead: before.Lead, Meeting: true}); err != nil {
			return err
		}
		if !first {
			return nil
		}
		return analytics.Record(ctx, tx, analytics.Delta{BotID: sess.BotID, At: m.BookedAt, MeetingsBooked: 1})
	})
	return out, err
}

// Info is the lead of one of the workspace's conversations, scored up to
// its latest message (without the transcript).
func (s *Service) Info(ctx context.Context, workspaceID int64, sessionID string) (*Lead, error) {
	sess, err := s.workspaceSession(ctx, s.db.Reader(), workspaceID, sessionID)
	if err != nil {
		return nil, err
	}
	r, err := s.readRow(ctx, s.db.Reader(), sess)
	if err != nil {
		return nil, err
	}
	if r == nil || r.ScoredMessages != sess.Messages {
		// Not scored since its latest message: score it now rather than
		// show a stale tier (the sweep would get to it shortly).
		if r, err = s.rescore(ctx, sess); err != nil {
			return nil, err
		}
	}
	return view(r, sess.PublicID, sess.Messages, sess.LastMessageAt), nil
}

// nullable is NULL for "".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
