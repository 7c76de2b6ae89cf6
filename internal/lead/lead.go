// Package lead turns conversations into qualified leads: what the visitor
// typed into a lead form (validated in the background), what the widget
// observed (pages, time on page), a booked meeting, and the qualification
// computed from the conversation by internal/lead/score (refined by a model
// when the workspace has lead_intelligence and one is configured). It
// serves the lead list, detail, stats and CSV export, and sends billed
// follow-up e-mails through the mail jobs.
//
// A lead is keyed by its conversation (chat session). Scores follow the
// conversation without costing the chat anything: a sweep job rescores
// sessions whose message count moved since they were last scored, and
// every lead write (capture, signals, meeting) rescores at once. Tier
// changes are recorded (lead_tier_changes) and emitted as events.
package lead

import (
	"context"
	"log/slog"
	"time"

	"concierge/internal/billing"
	"concierge/internal/bot"
	"concierge/internal/clock"
	"concierge/internal/jobs"
	"concierge/internal/lead/emailcheck"
	"concierge/internal/lead/score"
	"concierge/internal/store"
)

// Email statuses of a lead's address.
const (
	EmailNone    = "none"    // no address captured
	EmailPending = "pending" // captured, not yet checked
	EmailValid   = "valid"   // checked: deliverable as far as we can tell
	EmailInvalid = "invalid" // checked: unambiguous junk; follow-ups refused
	EmailUnknown = "unknown" // checked without a conclusion (fail open)
)

const (
	jobSweep      = "lead.sweep"
	jobCheckEmail = "lead.check_email"
	jobRefine     = "lead.refine"

	scorerRules = "rules"
)

// Refiner refines a deterministic score with a model; it returns base (and
// the error) on any failure.
type Refiner interface {
	Refine(ctx context.Context, q bot.Qualification, in score.Input, base score.Result) (score.Result, error)
}

// Options tune the service; zero values are the defaults.
type Options struct {
	// SweepEvery is how often conversations that moved are rescored.
	// Default 20s.
	SweepEvery time.Duration
	// FollowUpWindow: the same follow-up (same subject and body to the
	// same lead) sent again within it is not sent or charged again.
	// Default 10 minutes.
	FollowUpWindow time.Duration
	// MaxTurns bounds how much of a conversation is scored (the latest
	// turns). Default 200.
	MaxTurns int
}

// Deps are the service's collaborators.
type Deps struct {
	DB      *store.DB
	Billing *billing.Service
	Bots    *bot.Service
	Queue   *jobs.Queue
	Checker *emailcheck.Checker
	// Refiner is nil when no model is configured.
	Refiner Refiner
	Clock   clock.Clock
	Logger  *slog.Logger
}

// Service owns leads.
type Service struct {
	db      *store.DB
	billing *billing.Service
	bots    *bot.Service
	queue   *jobs.Queue
	checker *emailcheck.Checker
	refiner Refiner
	clock   clock.Clock
	log     *slog.Logger
	opts    Options
}

// New builds the service.
func New(d Deps, opts Options) *Service {
	if opts.SweepEvery <= 0 {
		opts.SweepEvery = 20 * time.Second
	}
	if opts.FollowUpWindow <= 0 {
		opts.FollowUpWindow = 10 * time.Minute
	}
	if opts.MaxTurns <= 0 {
		opts.MaxTurns = 200
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	return &Service{db: d.DB, billing: d.Billing, bots: d.Bots, queue: d.Queue, checker: d.Checker, refiner: d.Refiner,
		clock: d.Clock, log: d.Logger.With("component", "lead"), opts: opts}
}

// RegisterJobs installs the lead job handlers.
func (s *Service) RegisterJobs(pool *jobs.Pool) {
	pool.Handle(jobSweep, s.sweepJob, jobs.KindOptions{Timeout: 5 * time.Minute})
	pool.Handle(jobCheckEmail, s.checkEmailJob, jobs.KindOptions{Timeout: time.Minute})
	pool.Handle(jobRefine, s.refineJob, jobs.KindOptions{Timeout: 2 * time.Minute})
}

// EnsureScheduled queues the rescoring sweep unless a copy already waits
// (every replica calls it at start; the unique key keeps one).
func (s *Service) EnsureScheduled(ctx context.Context) error {
	_, err := s.queue.Enqueue(ctx, jobs.NewJob{Kind: jobSweep, UniqueKey: jobSweep, MaxAttempts: 3,
		Payload: sweepPayload{Since: s.clock.Now().Add(-time.Hour)}})
	return err
}

// Meeting is a booked meeting, as the workspace reported it.
type Meeting struct {
	BookedAt    time.Time  `json:"booked_at"`
	ScheduledAt *time.Time `json:"scheduled_at,omitempty"`
	Source      string     `json:"source,omitempty"`
	URL         string     `json:"url,omitempty"`
	Notes       string     `json:"notes,omitempty"`
}

// Turn is one message of a lead's transcript.
type Turn struct {
	Role      string    `json:"role" db:"role"`
	Text      string    `json:"text" db:"text"`
	CreatedAt time.Time `json:"created_at" db:"created_at"`
}

// TierChange is one move of a lead between tiers.
type TierChange struct {
	From   *string   `json:"from"`
	To     string    `json:"to"`
	Score  int       `json:"score"`
	Scorer string    `json:"scorer"`
	At     time.Time `json:"at"`
}

// FollowUp is a follow-up e-mail sent to a lead.
type FollowUp struct {
	FollowUpID string    `json:"follow_up_id"`
	To         string    `json:"to"`
	Subject    string    `json:"subject"`
	Credits    int64     `json:"credits"`
	Status     string    `json:"status" enum:"queued,sent,failed"`
	CreatedAt  time.Time `json:"created_at"`
}

// ScoredDimension is one dimension of the lead's framework with its score,
// weight, status and evidence (its own name: bot.Dimension is a framework's
// definition).
type ScoredDimension score.Dimension

// Lead is one conversation's lead.
type Lead struct {
	SessionID string `json:"session_id"`
	BotID     int64  `json:"bot_id"`
	Tier      string `json:"tier" enum:"sql,mql,nurture,unqualified" doc:"sql: sales-ready (a need, authority or a budget, and a near-term date or a request to buy, meet or get a quote). mql: a real fit and interest without all the buying signals (evaluating, comparing, asking for a trial or what a plan includes, for a need or business they describe). nurture: early, vague or far off. unqualified: no buying intent (job seekers, students, competitors, spam, existing customers asking for support, attempts to instruct the bot). From score with the bot's thresholds (default 70/40/15), moved by the overrides listed."`
	Score     int    `json:"score" minimum:"0" maximum:"100" doc:"The framework's dimensions weighted by the bot's weights, plus behavioral_score, then moved by the overrides so that score and tier agree."`
	// Dimensions: the framework's dimensions, each with its score, weight
	// and the evidence (the visitor's words or a signal) behind it.
	Dimensions []ScoredDimension `json:"dimensions" doc:"The framework's dimensions (BANT: budget, authority, need, timeline), each scored 0-100 from the visitor's own words, with its weight, status and evidence: the visitor's sentence, verbatim, and how it was read."`
	// Signals are the behavioural evidence; BehavioralScore is the points
	// they add to (or take from) Score.
	Signals         []score.Evidence `json:"signals" doc:"Behavioural evidence: pages viewed, forms, visits, a booked meeting."`
	BehavioralScore int              `json:"behavioral_score" minimum:"-10" maximum:"15" doc:"Points the signals add to (or take from) score, between -10 and +15."`
	Overrides       []score.Override `json:"overrides" doc:"Rules that moved the tier away from the weighted score, with the reason and the visitor's words: a disqualifier (job_seeker, student, competitor, spam, existing_customer, no_intent, injection, declined, out_of_scope) makes it unqualified; buying_signals lifts to sql; evaluating and meeting_booked to mql; engaged and substantive to nurture; not_now, browsing, free_plan and no_stated_need cap it."`
	Summary         string           `json:"summary" doc:"One paragraph for the sales team: tier, score, each dimension's status and the overrides' reasons."`
	Language        string           `json:"language,omitempty" doc:"The visitor's language as detected when scored: en, es, pt, fr, de or hi-en (Hinglish)."`
	Scorer          string           `json:"scorer" doc:"rules/<version>, or rules/<version>+model when a model refined it."`

	Name    *string           `json:"name"`
	Email   *string           `json:"email"`
	Phone   *string           `json:"phone"`
	Company *string           `json:"company"`
	Fields  map[string]string `json:"fields"`
	// EmailStatus: none, pending (not yet checked), valid, invalid
	// (junk: follow-ups are refused), unknown (checked, no conclusion).
	EmailStatus     string  `json:"email_status" enum:"none,pending,valid,invalid,unknown"`
	EmailReason     *string `json:"email_reason"`
	EmailSuggestion *string `json:"email_suggestion"`

	Meeting     *Meeting     `json:"meeting"`
	Messages    int          `json:"messages"`
	CapturedAt  *time.Time   `json:"captured_at"`
	ScoredAt    *time.Time   `json:"scored_at"`
	CreatedAt   time.Time    `json:"created_at"`
	LastActive  time.Time    `json:"last_activity_at"`
	Transcript  []Turn       `json:"transcript,omitempty"`
	TierHistory []TierChange `json:"tier_history,omitempty"`
	FollowUps   []FollowUp   `json:"follow_ups,omitempty"`
}
