package testkit

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// SSEEvent is one parsed server-sent event.
type SSEEvent struct {
	ID   int64
	Kind string
	Data map[string]any
}

// SSEStream is an open server-sent events connection read in the
// background: events arrive on C, Done closes when the connection ends.
type SSEStream struct {
	C      chan SSEEvent
	Status int
	cancel context.CancelFunc
	done   chan struct{}
}

// OpenSSE opens url with the header pairs (and Last-Event-ID when lastID >
// 0). A status other than 200 is in Status, with no events.
func OpenSSE(t testing.TB, url string, lastID int64, headers ...string) *SSEStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if lastID > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(lastID, 10))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("open stream: %v", err)
	}
	s := &SSEStream{C: make(chan SSEEvent, 10000), Status: resp.StatusCode, cancel: cancel, done: make(chan struct{})}
	t.Cleanup(s.Close)
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		close(s.done)
		return s
	}
	go func() {
		defer close(s.done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var ev SSEEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Kind != "" {
					select {
					case s.C <- ev:
					case <-ctx.Done():
						return
					}
				}
				ev = SSEEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.ID, _ = strconv.ParseInt(line[4:], 10, 64)
			case strings.HasPrefix(line, "event: "):
				ev.Kind = line[7:]
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(line[6:]), &ev.Data)
			}
		}
	}()
	return s
}

// Close ends the connection and waits for the reader.
func (s *SSEStream) Close() {
	s.cancel()
	<-s.done
}

// Done is closed when the connection has ended (closed, or the server went away).
func (s *SSEStream) Done() <-chan struct{} { return s.done }

// Next waits up to 20 s for the next event of kind (others are skipped).
func (s *SSEStream) Next(t testing.TB, kind string) SSEEvent {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-s.C:
			if ev.Kind == kind {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s event", kind)
		}
	}
}
