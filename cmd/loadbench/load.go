package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// result is one target's measured period.
type result struct {
	target    string
	bodyBytes int
	measured  time.Duration
	ok        int // 200 responses completed within the measured period
	non200    int
	errors    int
	firstErr  error
	p50, p99  time.Duration // over every response (200 or not) in the period
	cpu       cpuUse

	// Shown by the chat scenario:
	answered int   // 200 responses in the period that the workload's check accepted
	okBytes  int64 // body bytes of the 200 responses in the period
	all200   int   // 200 responses of the whole run: warm-up, period and the requests in flight at its end
	// allAnswered: of all200, those the check accepted (chat: replies
	// that answered, each charged; an "I don't know" is not).
	allAnswered int
	chat        *chatStats
	live        *liveStats
}

// rps counts 200s only: an error page is not a served request.
func (r result) rps() float64 { return float64(r.ok) / r.measured.Seconds() }

type worker struct {
	lat      []time.Duration
	ok       int
	non200   int
	errors   int
	firstErr error

	answered    int
	okBytes     int64
	all200      int
	allAnswered int
	buf         bytes.Buffer
}

// workload is what the workers send.
type workload struct {
	// newRequest returns worker w's n-th request (n from 0). A worker may
	// return the same *http.Request every time when it has no body.
	newRequest func(ctx context.Context, w, n int) (*http.Request, error)
	// check, when set, reads every 200 body and says whether the answer
	// counts as answered; without it bodies are discarded unread.
	check func(body []byte) bool
}

// getWorkload sends GET url with X-API-Key: worker w uses keys[w%len(keys)]
// and reuses one request.
func getWorkload(url string, keys []string, conns int) workload {
	reqs := make([]*http.Request, conns)
	return workload{newRequest: func(ctx context.Context, w, n int) (*http.Request, error) {
		if n == 0 {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return nil, err
			}
			req.Header.Set("X-API-Key", keys[w%len(keys)])
			reqs[w] = req
		}
		return reqs[w], nil
	}}
}

// load runs conns goroutines, each sending wl's requests back to back over
// its own keep-alive connection, for warmup (discarded) and then d
// (measured). A request counts when it completes inside the measured
// period; no request starts after it, and the ones in flight at its end
// are not counted. sample, called at both ends of the measured period,
// snapshots CPU use.
func load(ctx context.Context, wl workload, conns int, warmup, d time.Duration, sample func() cpuSnap) (result, error) {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
		DisableKeepAlives:   false,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	from, until := start.Add(warmup), start.Add(warmup+d)
	workers := make([]worker, conns)
	var wg sync.WaitGroup
	for i := range workers {
		w := &workers[i]
		w.lat = make([]time.Duration, 0, 1<<14)
		wg.Go(func() { w.run(ctx, client, wl, i, from, until) })
	}
	var snaps [2]cpuSnap
	wg.Go(func() {
		for i, at := range []time.Time{from, until} {
			t := time.NewTimer(time.Until(at))
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			snaps[i] = sample()
		}
	})
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return result{}, err
	}

	r := result{measured: d}
	n := 0
	for i := range workers {
		n += len(workers[i].lat)
	}
	all := make([]time.Duration, 0, n)
	for i := range workers {
		w := &workers[i]
		all = append(all, w.lat...)
		r.ok += w.ok
		r.non200 += w.non200
		r.errors += w.errors
		r.answered += w.answered
		r.okBytes += w.okBytes
		r.all200 += w.all200
		r.allAnswered += w.allAnswered
		if r.firstErr == nil {
			r.firstErr = w.firstErr
		}
	}
	if len(all) == 0 {
		return r, fmt.Errorf("no request completed in the measured period (errors %d, first: %v)", r.errors, r.firstErr)
	}
	r.cpu = cpuBetween(snaps[0], snaps[1], r.ok)
	slices.Sort(all)
	r.p50, r.p99 = percentile(all, 50), percentile(all, 99)
	return r, nil
}

func (w *worker) run(ctx context.Context, client *http.Client, wl workload, id int, from, until time.Time) {
	for n := 0; ctx.Err() == nil; n++ {
		req, err := wl.newRequest(ctx, id, n)
		if err != nil {
			w.errors++
			if w.firstErr == nil {
				w.firstErr = err
			}
			return
		}
		t0 := time.Now()
		if !t0.Before(until) {
			return
		}
		resp, err := client.Do(req)
		status, answered, size := 0, false, int64(0)
		if err == nil {
			if wl.check == nil {
				size, err = io.Copy(io.Discard, resp.Body)
			} else {
				w.buf.Reset()
				size, err = w.buf.ReadFrom(resp.Body)
			}
			resp.Body.Close()
			status = resp.StatusCode
			if err == nil && status == http.StatusOK {
				w.all200++
				if wl.check != nil {
					answered = wl.check(w.buf.Bytes())
					if answered {
						w.allAnswered++
					}
				}
			}
		}
		t1 := time.Now()
		if t1.Before(from) || !t1.Before(until) {
			if err != nil {
				pause(ctx, t1, until) // do not spin on a dead server
			}
			continue
		}
		switch {
		case err != nil:
			w.errors++
			if w.firstErr == nil {
				w.firstErr = err
			}
			pause(ctx, t1, until)
			continue
		case status == http.StatusOK:
			w.ok++
			w.okBytes += size
			if answered {
				w.answered++
			}
		default:
			w.non200++
		}
		w.lat = append(w.lat, t1.Sub(t0))
	}
}

// pause waits 10ms, or less if the period ends sooner.
func pause(ctx context.Context, now, until time.Time) {
	d := min(10*time.Millisecond, until.Sub(now))
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// percentile is the nearest-rank percentile of sorted, which is not empty.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100 // ceil(n*p/100), 1-based
	return sorted[max(i, 1)-1]
}

func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
