package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jmoiron/sqlx"
)

// Signals tell workers that a kind of row (a topic) was written, once the
// write has committed: a worker woken before the commit would find nothing
// and sleep until its next poll.
//
// Signal is called inside the writing transaction. In this process the
// topic's subscribers are woken right after that transaction commits (not at
// all if it rolls back; a TxGroup member that rolls back alone may still
// wake them, which is harmless). On PostgreSQL the transaction also sends a
// NOTIFY on the topic's channel, which PostgreSQL delivers to the other
// replicas' listeners (ListenSignals) if and only if it commits.

// signalChannel is the PostgreSQL channel of a topic.
func signalChannel(topic string) string { return "concierge_" + topic }

type signals struct {
	mu   sync.Mutex
	subs map[string][]chan struct{}
}

// txSignals holds, per open transaction, the topics to fire at commit.
var txSignals sync.Map // *sqlx.Tx → *txTopics

type txTopics struct {
	db     *DB
	mu     sync.Mutex
	topics []string
}

// Subscribe returns a channel that receives (without blocking the sender;
// one pending wake at most) whenever a transaction of this process that
// signalled topic commits.
func (db *DB) Subscribe(topic string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	db.sig.mu.Lock()
	defer db.sig.mu.Unlock()
	if db.sig.subs == nil {
		db.sig.subs = map[string][]chan struct{}{}
	}
	db.sig.subs[topic] = append(db.sig.subs[topic], ch)
	return ch
}

// fire wakes topic's subscribers in this process.
func (db *DB) fire(topic string) {
	db.sig.mu.Lock()
	defer db.sig.mu.Unlock()
	for _, ch := range db.sig.subs[topic] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Signal records, inside q's transaction (one of Tx, TxGroup), that topic
// was written: the subscribers are woken when it commits. Outside a
// transaction of this package it does nothing (the workers' poll finds
// the rows).
func Signal(ctx context.Context, q Q, topic string) error {
	tx, ok := q.(*sqlx.Tx)
	if !ok {
		return nil
	}
	v, ok := txSignals.Load(tx)
	if !ok {
		return nil
	}
	t := v.(*txTopics)
	t.mu.Lock()
	for _, have := range t.topics {
		if have == topic {
			t.mu.Unlock()
			return nil
		}
	}
	t.topics = append(t.topics, topic)
	t.mu.Unlock()
	if t.db.dialect == Postgres {
		if _, err := Exec(ctx, q, `SELECT pg_notify(?, '')`, signalChannel(topic)); err != nil {
			return fmt.Errorf("store: signal %s: %w", topic, err)
		}
	}
	return nil
}

// committed fires the topics a transaction signalled; called after its
// commit.
func (db *DB) committed(t *txTopics) {
	t.mu.Lock()
	topics := t.topics
	t.mu.Unlock()
	for _, topic := range topics {
		db.fire(topic)
	}
}

// ListenSignals calls fn whenever another replica (or this one) commits a
// transaction that signalled topic, until ctx ends; PostgreSQL only (on
// SQLite there is one process, and Subscribe covers it). It reconnects
// after a failure, calling fn once on every (re)connection since
// signals may have been missed meanwhile. ready is called after the first
// LISTEN took effect (or the first failure).
func ListenSignals(ctx context.Context, url, topic string, fn func(), ready func(), log func(error)) {
	once := sync.Once{}
	for ctx.Err() == nil {
		err := listenOnce(ctx, url, signalChannel(topic), fn, func() { once.Do(ready) })
		if ctx.Err() != nil {
			break
		}
		once.Do(ready)
		log(err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	once.Do(ready)
}

func listenOnce(ctx context.Context, url, channel string, fn, ready func()) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return err
	}
	ready()
	fn()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		fn()
	}
}
