package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
)

// maxGroup bounds the transactions that share one commit.
const maxGroup = 64

// errClosed answers TxGroup after Close.
var errClosed = errors.New("store: database closed")

// group is SQLite's group commit for TxGroup: one goroutine takes the
// transactions waiting for the writer, runs them in one write transaction
// (each in a savepoint) and commits once. A commit appends every page the
// transaction changed to the WAL, and concurrent chats change the same
// pages (the tail of each table and index, the workspace's row), so one
// commit for many of them writes each page once instead of once each.
// Nothing waits to fill a group: a transaction that finds the writer idle
// runs at once, alone; those that arrive meanwhile form the next group.
type group struct {
	db       *DB
	reqs     chan *groupReq // unbuffered: a send completes when the runner took it
	quit     chan struct{}
	start    sync.Once
	stopOnce sync.Once
	done     chan struct{}
	commits  atomic.Int64 // shared transactions run (tests)
	queued   atomic.Int64 // callers waiting for the runner to take them
}

// waiting is the number of transactions waiting for the writer.
func (g *group) waiting() int { return int(g.queued.Load()) }

type groupReq struct {
	ctx   context.Context
	fn    func(tx *sqlx.Tx) error
	err   error
	panic any
	done  chan struct{}
}

func newGroup(db *DB) *group {
	return &group{db: db, reqs: make(chan *groupReq), quit: make(chan struct{}), done: make(chan struct{})}
}

func (g *group) run(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	g.start.Do(func() { go g.loop() })
	r := &groupReq{ctx: ctx, fn: fn, done: make(chan struct{})}
	g.queued.Add(1)
	select {
	case g.reqs <- r:
		g.queued.Add(-1)
	case <-ctx.Done():
		g.queued.Add(-1)
		return ctx.Err()
	case <-g.quit:
		g.queued.Add(-1)
		return errClosed
	}
	// Taken: it may run and commit, so wait for the outcome whatever ctx
	// does.
	<-r.done
	if r.panic != nil {
		panic(r.panic)
	}
	return r.err
}

func (g *group) stop() {
	g.stopOnce.Do(func() { close(g.quit) })
	// Wait for a group in progress, if the loop ever started.
	started := true
	g.start.Do(func() { started = false })
	if started {
		<-g.done
	}
}

func (g *group) loop() {
	defer close(g.done)
	batch := make([]*groupReq, 0, maxGroup)
	for {
		batch = batch[:0]
		select {
		case r := <-g.reqs:
			batch = append(batch, r)
		case <-g.quit:
			return
		}
	more:
		for len(batch) < maxGroup {
			select {
			case r := <-g.reqs:
				batch = append(batch, r)
			default:
				break more
			}
		}
		g.runBatch(batch)
	}
}

// runBatch runs the group's transactions in one write transaction. Each
// runs inside SAVEPOINT g: on its error (or panic) ROLLBACK TO g undoes its
// changes alone. Should a savepoint statement fail, the transaction is gone
// (SQLite rolls a transaction back by itself after some errors, an
// interrupted write among them), and so is every change of the group: the
// rest do not run and all fail.
func (g *group) runBatch(batch []*groupReq) {
	ctx := context.Background() // the shared transaction outlives any one request
	g.commits.Add(1)
	ran := 0
	err := g.db.tx(ctx, func(tx *sqlx.Tx) error {
		for _, r := range batch {
			ran++
			if err := r.ctx.Err(); err != nil {
				r.err = err
				continue
			}
			if _, err := tx.ExecContext(ctx, "SAVEPOINT g"); err != nil {
				return fmt.Errorf("store: group savepoint: %w", err)
			}
			r.panic, r.err = call(r.fn, tx)
			if r.err != nil || r.panic != nil {
				if _, err := tx.ExecContext(ctx, "ROLLBACK TO g"); err != nil {
					return fmt.Errorf("store: group rollback to savepoint: %w", err)
				}
			}
			if _, err := tx.ExecContext(ctx, "RELEASE g"); err != nil {
				return fmt.Errorf("store: group release savepoint: %w", err)
			}
		}
		return nil
	})
	for i, r := range batch {
		if err != nil && (r.err == nil && r.panic == nil || i >= ran) {
			r.err = err
		}
		close(r.done)
	}
}

func call(fn func(tx *sqlx.Tx) error, tx *sqlx.Tx) (p any, err error) {
	defer func() {
		if v := recover(); v != nil {
			p = v
		}
	}()
	return nil, fn(tx)
}
