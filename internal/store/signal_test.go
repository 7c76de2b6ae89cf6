package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

// TestSignalFiresAfterCommitOnly: a signalling transaction wakes the
// topic's subscribers once it has committed (its row is then visible), a
// rolled-back one does not, and other topics' subscribers stay asleep.
func TestSignalFiresAfterCommitOnly(t *testing.T) {
	db := openTestSQLite(t)
	ctx := context.Background()
	events, other := db.Subscribe("events"), db.Subscribe("other")
	pending := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}

	failed := errors.New("changed my mind")
	err := db.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := Exec(ctx, tx, `UPDATE t SET n = n + 1`); err != nil {
			return err
		}
		if err := Signal(ctx, tx, "events"); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) || pending(events) {
		t.Fatalf("rolled back: err %v, woke %v", err, pending(events))
	}

	err = db.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := Exec(ctx, tx, `UPDATE t SET n = n + 1`); err != nil {
			return err
		}
		for range 3 {
			if err := Signal(ctx, tx, "events"); err != nil {
				return err
			}
		}
		if pending(events) {
			t.Error("woken before the commit")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !pending(events) || pending(events) || pending(other) {
		t.Fatal("want one wake of events after the commit, none of other")
	}

	// TxGroup members share a commit: the wake follows it too.
	if err := db.TxGroup(ctx, func(tx *sqlx.Tx) error { return Signal(ctx, tx, "events") }); err != nil {
		t.Fatal(err)
	}
	if !pending(events) {
		t.Fatal("TxGroup: no wake")
	}
	// Outside a transaction: nothing to tie the wake to, nothing fired.
	if err := Signal(ctx, db.Writer(), "events"); err != nil || pending(events) {
		t.Fatalf("outside a transaction: %v %v", err, pending(events))
	}
}

func TestInListPadsToAPowerOfTwo(t *testing.T) {
	for _, c := range []struct{ n, want int }{{1, 1}, {2, 2}, {3, 4}, {5, 8}, {64, 64}, {65, 128}} {
		vals := make([]any, c.n)
		for i := range vals {
			vals[i] = int64(i + 1)
		}
		ph, args := InList(vals)
		if len(args) != c.want || strings.Count(ph, "?") != c.want {
			t.Fatalf("%d values: %d args, %q", c.n, len(args), ph)
		}
		for i, a := range args {
			if want := int64(min(i+1, c.n)); a != want {
				t.Fatalf("%d values: arg %d is %v, want %d", c.n, i, a, want)
			}
		}
	}
}
