package main

import (
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
}

// rps counts 200s only: an error page is not a served request.
func (r result) rps() float64 { return float64(r.ok) / r.measured.Seconds() }

type worker struct {
	lat      []time.Duration
	ok       int
	non200   int
	errors   int
	firstErr error
}

// load runs conns goroutines, each sending GET url back to back over its own
// keep-alive connection, for warmup (discarded) and then d (measured). A
// request counts when it completes inside the measured period; no request
// starts after it, and the ones in flight at its end are not counted.
// sample, called at both ends of the measured period, snapshots CPU use.
func load(ctx context.Context, url, key string, conns int, warmup, d time.Duration, sample func() cpuSnap) (result, error) {
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
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return result{}, err
		}
		req.Header.Set("X-API-Key", key)
		wg.Go(func() { w.run(ctx, client, req, from, until) })
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

func (w *worker) run(ctx context.Context, client *http.Client, req *http.Request, from, until time.Time) {
	for ctx.Err() == nil {
		t0 := time.Now()
		if !t0.Before(until) {
			return
		}
		resp, err := client.Do(req)
		status := 0
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			status = resp.StatusCode
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
