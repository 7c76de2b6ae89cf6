package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/outbox"
	"concierge/internal/store"
)

// Ledger entry kinds.
const (
	KindGrant      = "grant"      // credits added: trial, monthly allowance, plan change, purchase, operator
	KindDebit      = "debit"      // credits spent by a metered action
	KindAdjustment = "adjustment" // a correction by an operator or a refund
)

// MaxKeyLength bounds idempotency keys.
const MaxKeyLength = 200

const maxReasonLength = 500

// LedgerEntry is one change of a workspace's credit balance. The ledger is
// append-only; BalanceAfter is the balance right after this entry.
type LedgerEntry struct {
	ID             int64     `db:"id" json:"id"`
	Delta          int64     `db:"delta" json:"delta"`
	BalanceAfter   int64     `db:"balance_after" json:"balance_after"`
	Kind           string    `db:"kind" json:"kind"`
	Reason         string    `db:"reason" json:"reason"`
	IdempotencyKey string    `db:"idempotency_key" json:"idempotency_key"`
	CreatedAt      time.Time `db:"created_at" json:"created_at"`
}

// Debit takes amount credits from the workspace, once per key: calling it
// again with a key already used returns the first entry and changes nothing,
// also when the two calls race. It fails with *apperr.InsufficientCredits
// when the balance does not cover amount; the balance never goes below zero.
func (s *Service) Debit(ctx context.Context, workspaceID, amount int64, key, reason string) (*LedgerEntry, error) {
	if err := checkEntryArgs(amount, key); err != nil {
		return nil, err
	}
	// Most refusals (and replays) are answered from a reader without taking
	// the write lock: under a burst of requests on an empty balance they
	// would otherwise queue behind the writer one by one. The write path
	// re-checks everything under the lock.
	bal, entryID, err := preDebit(ctx, s.db.Reader(), workspaceID, key)
	switch {
	case store.IsNotFound(err):
		return nil, apperr.NotFound("workspace not found")
	case err != nil:
		return nil, fmt.Errorf("billing: debit: %w", err)
	case entryID != 0:
		e, err := entryByID(ctx, s.db.Reader(), workspaceID, entryID)
		if err != nil {
			return nil, fmt.Errorf("billing: debit: %w", err)
		}
		return sameKind(e, KindDebit)
	case bal < amount:
		return nil, &apperr.InsufficientCredits{Required: amount, Available: bal}
	}
	var e *LedgerEntry
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		e, err = s.apply(ctx, tx, workspaceID, -amount, KindDebit, key, reason)
		return err
	})
	return e, err
}

// DebitTx is Debit inside the caller's transaction, so that the charge
// commits or rolls back with the caller's own change (a delivered reply, a
// sent follow-up). On failure the caller should roll back.
func (s *Service) DebitTx(ctx context.Context, tx *sqlx.Tx, workspaceID, amount int64, key, reason string) (*LedgerEntry, error) {
	if err := checkEntryArgs(amount, key); err != nil {
		return nil, err
	}
	return s.apply(ctx, tx, workspaceID, -amount, KindDebit, key, reason)
}

// BatchDebit is one debit of DebitBatchTx.
type BatchDebit struct {
	Amount      int64
	Key, Reason string
}

// ErrBatchKeyUsed fails a DebitBatchTx whose keys were not all new; the
// caller's transaction has changed the balance and must be rolled back.
var ErrBatchKeyUsed = errors.New("billing: a key of the batch is already in the ledger")

// DebitBatchTx takes several debits of one workspace, inside the caller's
// transaction, with the outcome DebitTx would give them one after the
// other in order: each is paid (its entry) or refused with
// *apperr.InsufficientCredits when the balance left by the ones before
// cannot pay it. It runs one balance update and one ledger insert per
// power-of-two chunk instead of two statements per debit. Keys must be
// new, made for the debit (as a chat reply's): a key already used fails
// the whole call with ErrBatchKeyUsed and the caller must roll back
// (DebitTx is the call that answers a reused key with its first entry).
// The balance never goes below zero. An unknown workspace fails every debit with a not-found error.
func (s *Service) DebitBatchTx(ctx context.Context, tx *sqlx.Tx, workspaceID int64, debits []BatchDebit) ([]*LedgerEntry, []error, error) {
	entries, errs := make([]*LedgerEntry, len(debits)), make([]error, len(debits))
	var total int64
	for i, d := range debits {
		if err := checkEntryArgs(d.Amount, d.Key); err != nil {
			errs[i] = err
			continue
		}
		total += d.Amount
	}
	if total == 0 {
		return entries, errs, nil
	}
	// All of them at once, the common case; otherwise as many as the
	// balance pays, in order.
	bal, err := addBalance(ctx, tx, workspaceID, -total)
	paid := func(int) bool { return true }
	if store.IsNotFound(err) {
		avail, err := balanceOf(ctx, tx, workspaceID)
		if store.IsNotFound(err) {
			for i := range errs {
				if errs[i] == nil {
					errs[i] = apperr.NotFound("workspace not found")
				}
			}
			return entries, errs, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("billing: balance: %w", err)
		}
		ok := make([]bool, len(debits))
		var sum int64
		for i, d := range debits {
			if errs[i] != nil {
				continue
			}
			if avail-sum < d.Amount {
				errs[i] = &apperr.InsufficientCredits{Required: d.Amount, Available: avail - sum}
				continue
			}
			ok[i], sum = true, sum+d.Amount
		}
		paid = func(i int) bool { return ok[i] }
		if sum == 0 {
			return entries, errs, nil
		}
		if bal, err = addBalance(ctx, tx, workspaceID, -sum); err != nil {
			return nil, nil, fmt.Errorf("billing: update balance: %w", err)
		}
		total = sum
	} else if err != nil {
		return nil, nil, fmt.Errorf("billing: update balance: %w", err)
	}
	now := s.now()
	running := bal + total
	var list []*LedgerEntry
	for i, d := range debits {
		if errs[i] != nil || !paid(i) {
			continue
		}
		reason := d.Reason
		if len(reason) > maxReasonLength {
			reason = reason[:maxReasonLength]
		}
		running -= d.Amount
		entries[i] = &LedgerEntry{Delta: -d.Amount, BalanceAfter: running, Kind: KindDebit, Reason: reason,
			IdempotencyKey: d.Key, CreatedAt: now}
		list = append(list, entries[i])
	}
	if err := insertEntries(ctx, tx, workspaceID, list); err != nil {
		return nil, nil, err
	}
	if err := s.noteLow(ctx, tx, workspaceID, bal+total, bal); err != nil {
		return nil, nil, err
	}
	return entries, errs, nil
}

// LowCreditsPercent is the share of its plan's monthly credits below which
// a workspace's balance is low: the debit that takes it there records a
// credits.low event (once per crossing; a grant or top-up above the mark
// arms it again).
const LowCreditsPercent = 10

// lowMark is the balance under which a plan's workspace is low on credits.
func lowMark(p *Plan) int64 { return p.Limits.MonthlyCredits * LowCreditsPercent / 100 }

// noteLow records credits.low in q's transaction when a debit took the
// balance from at or above the workspace plan's low mark to below it.
// Most debits leave more than any plan's mark and cost nothing here.
func (s *Service) noteLow(ctx context.Context, q store.Q, workspaceID, before, after int64) error {
	if after >= s.lowMax || after >= before {
		return nil
	}
	var plan string
	if err := store.Get(ctx, q, &plan, `SELECT plan FROM workspaces WHERE id = ?`, workspaceID); err != nil {
		return fmt.Errorf("billing: plan for credits low: %w", err)
	}
	p := s.cat.Plan(plan)
	if p == nil {
		return nil
	}
	mark := lowMark(p)
	if before < mark || after >= mark {
		return nil
	}
	_, err := outbox.Add(ctx, q, s.now(), outbox.Event{WorkspaceID: workspaceID, Type: "credits.low",
		Data: map[string]any{"balance": after, "threshold": mark, "plan": plan, "monthly_credits": p.Limits.MonthlyCredits}})
	return err
}

// RefundTx gives back, once per key and inside the caller's transaction,
// credits a debit reserved for work that then failed (a reply the model
// never finished). It is an adjustment, so the history shows both.
func (s *Service) RefundTx(ctx context.Context, tx *sqlx.Tx, workspaceID, amount int64, key, reason string) (*LedgerEntry, error) {
	if err := checkEntryArgs(amount, key); err != nil {
		return nil, err
	}
	return s.apply(ctx, tx, workspaceID, amount, KindAdjustment, key, reason)
}

// Grant adds amount credits, once per key.
func (s *Service) Grant(ctx context.Context, workspaceID, amount int64, key, reason string) (*LedgerEntry, error) {
	if err := checkEntryArgs(amount, key); err != nil {
		return nil, err
	}
	var e *LedgerEntry
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		e, err = s.apply(ctx, tx, workspaceID, amount, KindGrant, key, reason)
		return err
	})
	return e, err
}

// Balance returns the workspace's credit balance.
func (s *Service) Balance(ctx context.Context, workspaceID int64) (int64, error) {
	bal, err := balanceOf(ctx, s.db.Reader(), workspaceID)
	if store.IsNotFound(err) {
		return 0, apperr.NotFound("workspace not found")
	}
	if err != nil {
		return 0, fmt.Errorf("billing: balance: %w", err)
	}
	return bal, nil
}

// CreditBalance is the balance with the time of its last change.
type CreditBalance struct {
	Balance   int64
	UpdatedAt *time.Time // nil before the first ledger entry
}

// BalanceDetail returns the balance and when it last changed.
func (s *Service) BalanceDetail(ctx context.Context, workspaceID int64) (*CreditBalance, error) {
	bal, at, err := balanceWithTime(ctx, s.db.Reader(), workspaceID)
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("workspace not found")
	}
	if err != nil {
		return nil, fmt.Errorf("billing: balance: %w", err)
	}
	return &CreditBalance{Balance: bal, UpdatedAt: at}, nil
}

// MaxHistoryLimit is the largest page of GET /credits/history.
const MaxHistoryLimit = 200

// History returns one page of the workspace's ledger, newest first, and the
// number of entries in all.
func (s *Service) History(ctx context.Context, workspaceID int64, page, limit int) ([]LedgerEntry, int, error) {
	if page < 1 {
		return nil, 0, apperr.Invalid("query.page", "must be at least 1", "greater_than_equal")
	}
	if limit < 1 || limit > MaxHistoryLimit {
		return nil, 0, apperr.Invalid("query.limit", fmt.Sprintf("must be between 1 and %d", MaxHistoryLimit), "less_than_equal")
	}
	items, total, err := ledgerPage(ctx, s.db.Reader(), workspaceID, limit, (page-1)*limit)
	if err != nil {
		return nil, 0, fmt.Errorf("billing: history: %w", err)
	}
	return items, total, nil
}

func checkEntryArgs(amount int64, key string) error {
	if amount <= 0 {
		return apperr.Invalid("amount", "must be a positive number of credits", "greater_than")
	}
	if key == "" || len(key) > MaxKeyLength {
		return apperr.Invalid("idempotency_key", fmt.Sprintf("must be 1 to %d characters", MaxKeyLength), "value_error")
	}
	return nil
}

// apply moves the balance by delta and appends the ledger entry, once per
// (workspace, key), inside q (a transaction).
//
// Concurrency: the conditional UPDATE locks the workspace row (PostgreSQL)
// or runs under the database write lock (SQLite), so changes to one balance
// are serialised and a debit can never overdraw it. Two calls with one key
// can both get past the first lookup on PostgreSQL; the second then waits
// for the first's row lock, and after the first commits either its UPDATE
// finds the balance short or its INSERT meets the committed key. Both cases
// look the key up again (READ COMMITTED: each statement sees the latest
// commits) and answer with the first entry, undoing the balance change in
// the second case. Nothing here relies on a unique violation, which would
// abort the caller's whole PostgreSQL transaction.
func (s *Service) apply(ctx context.Context, q store.Q, workspaceID, delta int64, kind, key, reason string) (*LedgerEntry, error) {
	if len(reason) > maxReasonLength {
		reason = reason[:maxReasonLength]
	}
	first := func() (*LedgerEntry, bool, error) {
		e, err := entryByKey(ctx, q, workspaceID, key)
		if store.IsNotFound(err) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("billing: ledger lookup: %w", err)
		}
		e, err = sameKind(e, kind)
		return e, true, err
	}
	if e, ok, err := first(); ok || err != nil {
		return e, err
	}
	bal, err := addBalance(ctx, q, workspaceID, delta)
	if store.IsNotFound(err) {
		if e, ok, err := first(); ok || err != nil {
			return e, err
		}
		avail, err := balanceOf(ctx, q, workspaceID)
		if store.IsNotFound(err) {
			return nil, apperr.NotFound("workspace not found")
		}
		if err != nil {
			return nil, fmt.Errorf("billing: balance: %w", err)
		}
		return nil, &apperr.InsufficientCredits{Required: -delta, Available: avail}
	}
	if err != nil {
		return nil, fmt.Errorf("billing: update balance: %w", err)
	}
	e := &LedgerEntry{Delta: delta, BalanceAfter: bal, Kind: kind, Reason: reason, IdempotencyKey: key, CreatedAt: s.now()}
	err = insertEntry(ctx, q, workspaceID, e)
	if store.IsNotFound(err) {
		if _, err := addBalance(ctx, q, workspaceID, -delta); err != nil {
			return nil, fmt.Errorf("billing: undo balance: %w", err)
		}
		if e, ok, err := first(); ok || err != nil {
			return e, err
		}
		return nil, fmt.Errorf("billing: ledger key %q conflicted but is missing", key)
	}
	if err != nil {
		return nil, fmt.Errorf("billing: append ledger: %w", err)
	}
	if delta < 0 {
		if err := s.noteLow(ctx, q, workspaceID, bal-delta, bal); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// sameKind refuses to answer a debit with a grant that happens to share its
// key (or the reverse): the caller would believe something happened that
// did not.
func sameKind(e *LedgerEntry, kind string) (*LedgerEntry, error) {
	if e.Kind != kind {
		return nil, apperr.Conflict(fmt.Sprintf("idempotency key %q was already used for a %s", e.IdempotencyKey, e.Kind))
	}
	return e, nil
}
