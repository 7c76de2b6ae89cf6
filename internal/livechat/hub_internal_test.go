package livechat

import (
	"sync"
	"testing"
)

// A reader that stops reading is dropped once it is maxBacklog events
// behind; the hub never waits on it, so a reader that keeps up receives
// every event, in order, and stays subscribed.
func TestSlowReaderDropped(t *testing.T) {
	h := newHub(&Service{}, "", 5)
	slow, err := h.Subscribe("op:1", 7, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := h.Subscribe("op:2", 7, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	other, err := h.Subscribe("op:3", 8, 0, false) // another bot: sees nothing
	if err != nil {
		t.Fatal(err)
	}
	const n = 3 * maxBacklog
	var got []int64
	progress := make(chan int, n)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for len(got) < n {
			<-fast.Ready
			for _, ev := range fast.Take() {
				got = append(got, ev.ID)
			}
			progress <- len(got)
		}
	}()
	// The fast reader is let catch up every 100 events (it keeps up);
	// the slow one never reads.
	for i := 1; i <= n; i++ {
		h.dispatch([]Event{{ID: int64(i), BotID: 7, Kind: "message"}})
		if i%100 == 0 {
			for seen := 0; seen < i; {
				seen = <-progress
			}
		}
	}
	wg.Wait()
	for i, id := range got {
		if id != int64(i+1) {
			t.Fatalf("event %d has id %d: out of order or lost", i, id)
		}
	}
	select {
	case <-slow.Gone:
	default:
		t.Fatal("the reader that never read was not dropped")
	}
	if q := slow.Take(); len(q) != maxBacklog {
		t.Fatalf("slow reader held %d events, want the backlog limit %d", len(q), maxBacklog)
	}
	select {
	case <-fast.Gone:
		t.Fatal("the reader that kept up was dropped")
	default:
	}
	if len(other.Take()) != 0 {
		t.Fatal("another bot's stream saw events")
	}
	if open := h.Open(); open != 2 {
		t.Fatalf("open streams = %d, want 2 (the slow one removed)", open)
	}
	// A dropped reader's key is free again: it can reconnect.
	if _, err := h.Subscribe("op:1", 7, 0, false); err != nil {
		t.Fatalf("reconnect after drop: %v", err)
	}
}
