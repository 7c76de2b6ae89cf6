package billing_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestDebitContention is RELIABILITY G4 at the service level: 10,000 debits
// of one credit with distinct keys from 200 goroutines, released together,
// against a balance of 1,000.
func TestDebitContention(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		const (
			balance    = 1000
			calls      = 10000
			goroutines = 200
		)
		ctx := context.Background()
		svc, db, clk := newService(t, e, time.Now())
		ws := newWorkspace(t, db, "g4@example.com", clk.Now())
		if _, err := svc.Grant(ctx, ws, balance, "seed", "test balance"); err != nil {
			t.Fatal(err)
		}

		// Sample the balance while the burst runs; it must never be negative.
		stop := make(chan struct{})
		var samples, negative atomic.Int64
		var sampler sync.WaitGroup
		sampler.Add(1)
		go func() {
			defer sampler.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
				b, err := svc.Balance(ctx, ws)
				if err != nil {
					t.Errorf("sample balance: %v", err)
					return
				}
				samples.Add(1)
				if b < 0 {
					negative.Add(1)
				}
			}
		}()

		var ok, refused atomic.Int64
		var next atomic.Int64
		start := make(chan struct{})
		var wg sync.WaitGroup
		began := time.Now()
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for {
					i := next.Add(1)
					if i > calls {
						return
					}
					_, err := svc.Debit(ctx, ws, 1, fmt.Sprintf("reply:%d", i), "chat reply")
					var ic *apperr.InsufficientCredits
					switch {
					case err == nil:
						ok.Add(1)
					case errors.As(err, &ic):
						if ic.Required != 1 || ic.Available != 0 {
							t.Errorf("insufficient credits: required %d, available %d", ic.Required, ic.Available)
						}
						refused.Add(1)
					default:
						t.Errorf("debit %d: %v", i, err)
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		took := time.Since(began)
		close(stop)
		sampler.Wait()
		t.Logf("%s: %d debits in %s (%d balance samples)", e, calls, took, samples.Load())

		if ok.Load() != balance || refused.Load() != calls-balance {
			t.Errorf("succeeded %d, refused %d; want %d and %d", ok.Load(), refused.Load(), balance, calls-balance)
		}
		if negative.Load() != 0 {
			t.Errorf("balance observed negative %d times", negative.Load())
		}
		if b, _ := svc.Balance(ctx, ws); b != 0 {
			t.Errorf("final balance %d, want 0", b)
		}
		if n, sum := ledgerSummary(t, db, ws, billing.KindDebit); n != balance || sum != -balance {
			t.Errorf("ledger: %d debits summing to %d, want %d and %d", n, sum, balance, -balance)
		}
		checkLedgerChain(t, db, ws)
	})
}

// checkLedgerChain verifies that every entry's balance_after is the
// previous entry's plus its delta, in id order, and that the last one is
// the workspace's balance: the ledger explains the balance exactly.
func checkLedgerChain(t *testing.T, db *store.DB, ws int64) {
	t.Helper()
	var rows []billing.LedgerEntry
	if err := store.Select(context.Background(), db.Reader(), &rows, `SELECT id, delta, balance_after, kind, reason,
		idempotency_key, created_at FROM credit_ledger WHERE workspace_id = ? ORDER BY id`, ws); err != nil {
		t.Fatal(err)
	}
	var bal int64
	for _, r := range rows {
		if r.BalanceAfter != bal+r.Delta || r.BalanceAfter < 0 {
			t.Fatalf("entry %d (%s): balance_after %d, previous %d, delta %d", r.ID, r.IdempotencyKey, r.BalanceAfter, bal, r.Delta)
		}
		bal = r.BalanceAfter
	}
	var stored int64
	if err := store.Get(context.Background(), db.Reader(), &stored, `SELECT credit_balance FROM workspaces WHERE id = ?`, ws); err != nil {
		t.Fatal(err)
	}
	if stored != bal {
		t.Fatalf("workspace balance %d, ledger says %d", stored, bal)
	}
}

// TestDebitIdempotentUnderConcurrency: one key from 50 goroutines is one
// debit, and every caller gets that same entry, also when the balance can
// pay for only one.
func TestDebitIdempotentUnderConcurrency(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		svc, db, clk := newService(t, e, time.Now())
		for _, initial := range []int64{1000, 1} {
			ws := newWorkspace(t, db, fmt.Sprintf("same-key-%d@example.com", initial), clk.Now())
			if _, err := svc.Grant(ctx, ws, initial, "seed", ""); err != nil {
				t.Fatal(err)
			}
			ids := make([]int64, 50)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					entry, err := svc.Debit(ctx, ws, 1, "reply:the-one", "chat reply")
					if err != nil {
						t.Errorf("balance %d: debit: %v", initial, err)
						return
					}
					ids[i] = entry.ID
				}()
			}
			close(start)
			wg.Wait()
			for _, id := range ids {
				if id != ids[0] {
					t.Fatalf("balance %d: callers got different entries: %v", initial, ids)
				}
			}
			if b, _ := svc.Balance(ctx, ws); b != initial-1 {
				t.Errorf("balance %d: after 50 debits with one key the balance is %d", initial, b)
			}
			if n, _ := ledgerSummary(t, db, ws, billing.KindDebit); n != 1 {
				t.Errorf("balance %d: %d debit entries, want 1", initial, n)
			}
			checkLedgerChain(t, db, ws)
		}
	})
}

func TestLedgerRules(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		svc, db, clk := newService(t, e, time.Now())
		ws := newWorkspace(t, db, "rules@example.com", clk.Now())

		g1, err := svc.Grant(ctx, ws, 10, "purchase:1", "bought")
		if err != nil || g1.Delta != 10 || g1.BalanceAfter != 10 || g1.Kind != billing.KindGrant {
			t.Fatalf("grant: %+v %v", g1, err)
		}
		g2, err := svc.Grant(ctx, ws, 10, "purchase:1", "bought again")
		if err != nil || g2.ID != g1.ID || g2.BalanceAfter != 10 || !g2.CreatedAt.Equal(g1.CreatedAt) {
			t.Fatalf("replayed grant: %+v %v (first %+v)", g2, err, g1)
		}

		d1, err := svc.Debit(ctx, ws, 4, "reply:a", "chat reply")
		if err != nil || d1.Delta != -4 || d1.BalanceAfter != 6 {
			t.Fatalf("debit: %+v %v", d1, err)
		}
		var ic *apperr.InsufficientCredits
		if _, err := svc.Debit(ctx, ws, 7, "reply:b", ""); !errors.As(err, &ic) || ic.Required != 7 || ic.Available != 6 {
			t.Fatalf("overdraw: %v", err)
		}
		// A refused debit leaves no trace, so its key can be used later.
		if _, err := svc.Grant(ctx, ws, 1, "purchase:2", ""); err != nil {
			t.Fatal(err)
		}
		if d, err := svc.Debit(ctx, ws, 7, "reply:b", ""); err != nil || d.BalanceAfter != 0 {
			t.Fatalf("debit after top-up: %+v %v", d, err)
		}

		var v *apperr.Validation
		for _, bad := range []struct {
			amount int64
			key    string
		}{{0, "k"}, {-5, "k"}, {1, ""}, {1, strings.Repeat("k", billing.MaxKeyLength+1)}} {
			if _, err := svc.Debit(ctx, ws, bad.amount, bad.key, ""); !errors.As(err, &v) {
				t.Errorf("debit(%d, %d-char key): %v, want a validation error", bad.amount, len(bad.key), err)
			}
			if _, err := svc.Grant(ctx, ws, bad.amount, bad.key, ""); !errors.As(err, &v) {
				t.Errorf("grant(%d, %d-char key): %v, want a validation error", bad.amount, len(bad.key), err)
			}
		}
		if _, err := svc.Debit(ctx, ws, 1, "purchase:1", ""); !errors.Is(err, apperr.ErrConflict) {
			t.Errorf("debit reusing a grant's key: %v, want a conflict", err)
		}
		if _, err := svc.Debit(ctx, 999999, 1, "x", ""); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("debit of a missing workspace: %v", err)
		}
		if _, err := svc.Grant(ctx, 999999, 1, "x", ""); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("grant to a missing workspace: %v", err)
		}

		items, total, err := svc.History(ctx, ws, 1, 2)
		if err != nil || total != 4 || len(items) != 2 || items[0].IdempotencyKey != "reply:b" || items[1].IdempotencyKey != "purchase:2" {
			t.Fatalf("history page 1: %+v total %d %v", items, total, err)
		}
		items, _, _ = svc.History(ctx, ws, 2, 2)
		if len(items) != 2 || items[1].IdempotencyKey != "purchase:1" {
			t.Fatalf("history page 2: %+v", items)
		}
		if items, _, _ := svc.History(ctx, ws, 9, 2); items == nil || len(items) != 0 {
			t.Fatalf("history past the end: %#v", items)
		}
		if _, _, err := svc.History(ctx, ws, 1, billing.MaxHistoryLimit+1); !errors.As(err, &v) {
			t.Errorf("history limit 201: %v", err)
		}
		checkLedgerChain(t, db, ws)
	})
}

// TestDebitTxFollowsTheCallersTransaction: a charge made inside a
// transaction that rolls back never happened, and its key stays free.
func TestDebitTxFollowsTheCallersTransaction(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		svc, db, clk := newService(t, e, time.Now())
		ws := newWorkspace(t, db, "tx@example.com", clk.Now())
		if _, err := svc.Grant(ctx, ws, 5, "seed", ""); err != nil {
			t.Fatal(err)
		}
		failed := errors.New("reply not delivered")
		err := db.Tx(ctx, func(tx *sqlx.Tx) error {
			if _, err := svc.DebitTx(ctx, tx, ws, 2, "reply:1", ""); err != nil {
				return err
			}
			return failed
		})
		if !errors.Is(err, failed) {
			t.Fatal(err)
		}
		if b, _ := svc.Balance(ctx, ws); b != 5 {
			t.Fatalf("balance after rollback %d", b)
		}
		err = db.Tx(ctx, func(tx *sqlx.Tx) error {
			if _, err := svc.DebitTx(ctx, tx, ws, 2, "reply:1", ""); err != nil {
				return err
			}
			// Replaying inside the same transaction changes nothing.
			_, err := svc.DebitTx(ctx, tx, ws, 2, "reply:1", "")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := svc.Balance(ctx, ws); b != 3 {
			t.Fatalf("balance after commit %d", b)
		}
		var ic *apperr.InsufficientCredits
		err = db.Tx(ctx, func(tx *sqlx.Tx) error {
			_, err := svc.DebitTx(ctx, tx, ws, 4, "reply:2", "")
			return err
		})
		if !errors.As(err, &ic) || ic.Available != 3 {
			t.Fatalf("overdraw in a transaction: %v", err)
		}
		checkLedgerChain(t, db, ws)
	})
}

// TestLedgerHistoryOrder: history is newest first even for entries made
// within one clock tick.
func TestLedgerHistoryOrder(t *testing.T) {
	svc, db, clk := newService(t, testkit.SQLite, time.Now())
	ws := newWorkspace(t, db, "order@example.com", clk.Now())
	ctx := context.Background()
	for i := 1; i <= 5; i++ {
		if _, err := svc.Grant(ctx, ws, int64(i), fmt.Sprintf("g%d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	items, _, err := svc.History(ctx, ws, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !sort.SliceIsSorted(items, func(i, j int) bool { return items[i].ID > items[j].ID }) || items[0].BalanceAfter != 15 {
		t.Fatalf("history %+v", items)
	}
}

// TestDebitBatchTx: a batch of debits ends as the same debits one after
// the other would: in order, each paid or refused by what the ones before
// left, the ledger's chain of balances intact; a reused key fails the
// batch as a whole.
func TestDebitBatchTx(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		svc, db, clk := newService(t, e, time.Now())
		ws := newWorkspace(t, db, "batch@example.com", clk.Now())
		if _, err := svc.Grant(ctx, ws, 10, "seed", ""); err != nil {
			t.Fatal(err)
		}
		batch := func(debits ...billing.BatchDebit) ([]*billing.LedgerEntry, []error, error) {
			var entries []*billing.LedgerEntry
			var errs []error
			err := db.Tx(ctx, func(tx *sqlx.Tx) error {
				var err error
				entries, errs, err = svc.DebitBatchTx(ctx, tx, ws, debits)
				return err
			})
			return entries, errs, err
		}
		// Seven debits of one from ten credits: the whole batch fits.
		var fits []billing.BatchDebit
		for i := range 7 {
			fits = append(fits, billing.BatchDebit{Amount: 1, Key: fmt.Sprintf("fit:%d", i), Reason: "r"})
		}
		entries, errs, err := batch(fits...)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range entries {
			if errs[i] != nil || e == nil || e.ID == 0 || e.BalanceAfter != int64(9-i) || e.Delta != -1 {
				t.Fatalf("debit %d: %+v, %v", i, e, errs[i])
			}
		}
		// 3 left: 2 fits, 2 does not, 1 fits, 5 does not.
		entries, errs, err = batch(
			billing.BatchDebit{Amount: 2, Key: "p:a"}, billing.BatchDebit{Amount: 2, Key: "p:b"},
			billing.BatchDebit{Amount: 1, Key: "p:c"}, billing.BatchDebit{Amount: 5, Key: "p:d"})
		if err != nil {
			t.Fatal(err)
		}
		var ic *apperr.InsufficientCredits
		if errs[0] != nil || entries[0].BalanceAfter != 1 {
			t.Fatalf("first: %+v %v", entries[0], errs[0])
		}
		if !errors.As(errs[1], &ic) || ic.Available != 1 || ic.Required != 2 || entries[1] != nil {
			t.Fatalf("second: %+v %v", entries[1], errs[1])
		}
		if errs[2] != nil || entries[2].BalanceAfter != 0 {
			t.Fatalf("third: %+v %v", entries[2], errs[2])
		}
		if !errors.As(errs[3], &ic) || ic.Available != 0 || entries[3] != nil {
			t.Fatalf("fourth: %+v %v", entries[3], errs[3])
		}
		if b, _ := svc.Balance(ctx, ws); b != 0 {
			t.Fatalf("balance %d, want 0", b)
		}
		// A key already in the ledger fails the batch, and the caller's
		// rollback leaves everything as it was.
		if _, err := svc.Grant(ctx, ws, 5, "seed-2", ""); err != nil {
			t.Fatal(err)
		}
		_, _, err = batch(billing.BatchDebit{Amount: 1, Key: "new:1"}, billing.BatchDebit{Amount: 1, Key: "p:a"})
		if !errors.Is(err, billing.ErrBatchKeyUsed) {
			t.Fatalf("reused key: %v, want ErrBatchKeyUsed", err)
		}
		_, _, err = batch(billing.BatchDebit{Amount: 1, Key: "dup"}, billing.BatchDebit{Amount: 1, Key: "dup"})
		if !errors.Is(err, billing.ErrBatchKeyUsed) {
			t.Fatalf("a key twice in one batch: %v, want ErrBatchKeyUsed", err)
		}
		if b, _ := svc.Balance(ctx, ws); b != 5 {
			t.Fatalf("balance after the failed batches %d, want 5", b)
		}
		// Invalid arguments fail their own debit only; an unknown
		// workspace fails every one.
		_, errs, err = batch(billing.BatchDebit{Amount: 0, Key: "zero"}, billing.BatchDebit{Amount: 1, Key: "ok"})
		if err != nil || errs[0] == nil || errs[1] != nil {
			t.Fatalf("invalid amount: %v %v", errs, err)
		}
		err = db.Tx(ctx, func(tx *sqlx.Tx) error {
			_, errs, err = svc.DebitBatchTx(ctx, tx, ws+1000, []billing.BatchDebit{{Amount: 1, Key: "x"}})
			return err
		})
		if err != nil || apperr.KindOf(errs[0]) != apperr.KindNotFound {
			t.Fatalf("unknown workspace: %v %v", errs, err)
		}
		checkLedgerChain(t, db, ws)
	})
}
