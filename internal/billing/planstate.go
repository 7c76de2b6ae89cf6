package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/outbox"
	"concierge/internal/store"
)

// StartTrial puts a new workspace on the trial plan and grants its credits.
// It runs inside the sign-up transaction.
func (s *Service) StartTrial(ctx context.Context, tx store.Q, workspaceID int64, now time.Time) error {
	trial := s.cat.Plan(PlanTrial)
	now = now.UTC().Truncate(time.Microsecond)
	n, err := setTrial(ctx, tx, workspaceID, now.AddDate(0, 0, trial.TrialDays), now)
	if err != nil {
		return fmt.Errorf("billing: start trial: %w", err)
	}
	if n == 0 {
		return apperr.NotFound("workspace not found")
	}
	if trial.Limits.MonthlyCredits > 0 {
		if _, err := s.apply(ctx, tx, workspaceID, trial.Limits.MonthlyCredits, KindGrant, "grant:trial",
			"trial credits"); err != nil {
			return err
		}
	}
	return nil
}

// SetPlan puts a workspace on plan with status active, ends any trial, and
// tops the balance up to the plan's monthly allowance for the current month
// (an upgrade mid-month gets the difference at once; a downgrade takes
// nothing away). It records workspace.plan_changed; setting the plan the
// workspace is already active on changes nothing. It is the operator's
// command; SyncPlanTx does the same for paid subscriptions, and the next
// subscription change overrides an operator's choice.
func (s *Service) SetPlan(ctx context.Context, workspaceID int64, plan string) error {
	p := s.cat.Plan(plan)
	if p == nil {
		return apperr.Invalid("plan", fmt.Sprintf("unknown plan %q; choose one of: %s", plan, s.planList(true)), "enum")
	}
	if p.IsTrial() {
		return apperr.Invalid("plan", fmt.Sprintf("the %s plan starts only at sign-up; choose one of: %s",
			p.Key, s.planList(true)), "enum")
	}
	now := s.now()
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		before, err := readWorkspace(ctx, tx, s.db.Dialect(), workspaceID, true)
		if store.IsNotFound(err) {
			return apperr.NotFound("workspace not found")
		}
		if err != nil {
			return err
		}
		return s.changePlan(ctx, tx, before, p, StatusActive, nil, "operator", now)
	})
	if err != nil {
		return fmt.Errorf("billing: set plan: %w", err)
	}
	return nil
}

// changePlan stores plan, status and paid period on the locked row before,
// tops the balance up to the plan's allowance when the workspace moves onto
// a plan it was not already being served on (a new plan, or a return after
// a lapse; renewals of a serving plan wait for the monthly grant, so nobody
// is refilled mid-month), and records workspace.plan_changed when anything
// changed.
func (s *Service) changePlan(ctx context.Context, q store.Q, before *wsRow, p *Plan, status string,
	periodEnd *time.Time, source string, now time.Time) error {
	samePeriod := (before.PeriodEnd == nil) == (periodEnd == nil) &&
		(periodEnd == nil || before.PeriodEnd.Equal(*periodEnd))
	if before.Plan == p.Key && before.Status == status && before.TrialEndsAt == nil && samePeriod {
		return nil
	}
	wasServing := s.resolve(before, now).Serving
	if _, err := setPlan(ctx, q, before.ID, p.Key, status, periodEnd, now); err != nil {
		return err
	}
	if status == StatusActive && (before.Plan != p.Key || !wasServing || before.Status == StatusTrialing) {
		key := fmt.Sprintf("grant:plan:%s:%s", p.Key, monthKey(now))
		if _, err := s.topUp(ctx, q, before.ID, p.Limits.MonthlyCredits, key,
			fmt.Sprintf("%s plan allowance for %s", p.Name, monthKey(now))); err != nil {
			return err
		}
	}
	_, err := outbox.Add(ctx, q, now, outbox.Event{WorkspaceID: before.ID, Type: "workspace.plan_changed",
		Data: map[string]any{"workspace_id": before.ID, "plan": p.Key, "status": status,
			"previous_plan": before.Plan, "previous_status": before.Status, "source": source}})
	return err
}

// SyncPlanTx sets the workspace's plan and status from its plan
// subscriptions (purpose "plan"; a bot's own subscription never changes the
// plan), inside the caller's transaction after it changed one. The
// subscription that decides is the best by provider status: active, then
// pending (a failed renewal being retried: past_due), then cancelled but
// paid until a future period end (canceled, still serving), then halted,
// cancelled, completed or expired (the plan stays, no longer serving).
// Subscriptions not yet paid (created, authenticated) change nothing, and a
// workspace without any keeps its trial or operator-set plan.
func (s *Service) SyncPlanTx(ctx context.Context, tx *sqlx.Tx, workspaceID int64) error {
	now := s.now()
	before, err := readWorkspace(ctx, tx, s.db.Dialect(), workspaceID, true)
	if store.IsNotFound(err) {
		return apperr.NotFound("workspace not found")
	}
	if err != nil {
		return fmt.Errorf("billing: sync plan: %w", err)
	}
	subs, err := planSubscriptions(ctx, tx, workspaceID)
	if err != nil {
		return fmt.Errorf("billing: sync plan: %w", err)
	}
	var best *planSub
	bestRank := len(subRanks)
	for i := range subs {
		r := subRank(&subs[i], now)
		if r < bestRank || (r == bestRank && best != nil && subs[i].ID > best.ID) {
			best, bestRank = &subs[i], r
		}
	}
	if best == nil {
		return nil
	}
	p := s.cat.Plan(best.Plan)
	if p == nil || p.IsTrial() {
		return fmt.Errorf("billing: sync plan: subscription %d is for unknown plan %q", best.ID, best.Plan)
	}
	if err := s.changePlan(ctx, tx, before, p, subRanks[bestRank].status, best.PeriodEnd, "subscription", now); err != nil {
		return fmt.Errorf("billing: sync plan: %w", err)
	}
	return nil
}

// SubscriptionServes reports whether a bot's own subscription in this
// provider status keeps the bot online: paid (active) or a renewal being
// retried (pending). Anything else takes the bot offline.
func SubscriptionServes(status string) bool { return status == "active" || status == "pending" }

// subRanks orders provider statuses of a plan subscription, best first, with
// the workspace status each one means.
var subRanks = []struct{ provider, status string }{
	{"active", StatusActive},
	{"pending", StatusPastDue},
	{"cancelled-paid", StatusCanceled}, // cancelled, period end still ahead
	{"halted", StatusExpired},
	{"cancelled", StatusCanceled},
	{"completed", StatusExpired},
	{"expired", StatusExpired},
}

func subRank(sub *planSub, now time.Time) int {
	provider := sub.Status
	if provider == "cancelled" && sub.PeriodEnd != nil && now.Before(*sub.PeriodEnd) {
		provider = "cancelled-paid"
	}
	for i, r := range subRanks {
		if r.provider == provider {
			return i
		}
	}
	return len(subRanks) // created, authenticated: not paid yet
}

// topUp raises the balance to target with one grant under key: it grants
// target minus the balance, and nothing (no entry) when the balance already
// reaches target, so credits bought above the allowance are never taken
// away. It reads the balance with the row locked, so a debit racing it
// cannot make it grant too much. It returns the new entry, or nil when it
// granted nothing (including when key was used before).
func (s *Service) topUp(ctx context.Context, q store.Q, workspaceID, target int64, key, reason string) (*LedgerEntry, error) {
	if target <= 0 {
		return nil, nil
	}
	if _, err := entryByKey(ctx, q, workspaceID, key); err == nil {
		return nil, nil
	} else if !store.IsNotFound(err) {
		return nil, fmt.Errorf("billing: top-up lookup: %w", err)
	}
	w, err := readWorkspace(ctx, q, s.db.Dialect(), workspaceID, true)
	if err != nil {
		return nil, fmt.Errorf("billing: top-up: %w", err)
	}
	if w.Balance >= target {
		return nil, nil
	}
	return s.apply(ctx, q, workspaceID, target-w.Balance, KindGrant, key, reason)
}
