package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// window is one injected fault, from its start to the moment the faulty
// part was back (a replica ready again, PostgreSQL accepting queries).
type window struct {
	name       string
	start, end time.Time
	err        error // the part did not come back
}

type faults struct {
	mu      sync.Mutex
	windows []window
}

func (f *faults) add(w window) {
	f.mu.Lock()
	f.windows = append(f.windows, w)
	f.mu.Unlock()
}

func (f *faults) list() []window {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]window(nil), f.windows...)
}

// during reports whether [start, end] overlaps a fault (or the 2 s after
// it, while the service recovers).
func (f *faults) during(ws []window, start, end time.Time) bool {
	for _, w := range ws {
		if start.Before(w.end.Add(2*time.Second)) && end.After(w.start) {
			return true
		}
	}
	return false
}

// env is what the fault schedule acts on.
type env struct {
	pg       *postgres
	redis    *redisProc
	replicas []*replica
	model    *model
	smtp     *smtpServer
	hooks    *receiver
}

// schedule runs the faults over a load of duration d, all over before
// 85 % of it so that recovery shows in the load. It returns when the last
// fault is over and every part is back.
func schedule(ctx context.Context, e *env, d time.Duration, seed uint64, f *faults, logf func(string, ...any)) {
	r := rand.New(rand.NewPCG(seed, 99))
	t0 := time.Now()
	at := func(frac float64) time.Time { return t0.Add(time.Duration(frac * float64(d))) }
	scale := func(full time.Duration) time.Duration { return min(full, d/10) }
	var wg sync.WaitGroup
	timed := func(when time.Time, fn func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(when)):
			}
			fn()
		}()
	}
	windowFor := func(name string, length time.Duration, on, off func()) func() {
		return func() {
			w := window{name: name, start: time.Now()}
			on()
			logf("fault: %s for %s", name, length.Round(time.Second))
			select {
			case <-ctx.Done():
			case <-time.After(length):
			}
			off()
			w.end = time.Now()
			f.add(w)
		}
	}

	// kill -9 of a replica, restarted at once, every 30 s (every d/3 on
	// short runs).
	every := min(30*time.Second, d/3)
	for t := every / 2; t < d*85/100; t += every {
		timed(t0.Add(t), func() {
			rp := e.replicas[r.IntN(len(e.replicas))]
			w := window{name: fmt.Sprintf("kill -9 replica %d", rp.idx), start: time.Now()}
			rp.proc().kill()
			logf("fault: %s", w.name)
			w.err = rp.start(context.WithoutCancel(ctx))
			w.end = time.Now()
			f.add(w)
		})
	}
	timed(at(0.12), windowFor("model failing (500, 429, hang, cut)", scale(10*time.Second),
		func() { e.model.failing.Store(true) }, func() { e.model.failing.Store(false) }))
	// A window of 3 s: an attempt that fails in it is retried 5 s later,
	// outside it (the next retry would only come 5 minutes later).
	for _, frac := range []float64{0.2, 0.5, 0.75} {
		timed(at(frac), windowFor("webhook receiver answering 500", 3*time.Second,
			func() { e.hooks.down.Store(true) }, func() { e.hooks.down.Store(false) }))
	}
	timed(at(0.3), windowFor("SMTP server refusing (421)", scale(15*time.Second),
		func() { e.smtp.refusing.Store(true) }, func() { e.smtp.refusing.Store(false) }))
	timed(at(0.4), func() {
		w := window{name: "Redis stopped", start: time.Now()}
		e.redis.stop()
		logf("fault: Redis stopped for %s", scale(10*time.Second))
		time.Sleep(scale(10 * time.Second))
		w.err = e.redis.start()
		w.end = time.Now()
		f.add(w)
	})
	timed(at(0.6), func() {
		w := window{name: "PostgreSQL restart (fast shutdown, 3 s down)", start: time.Now()}
		logf("fault: PostgreSQL fast shutdown")
		e.pg.stopFast()
		time.Sleep(3 * time.Second)
		w.err = e.pg.start()
		w.end = time.Now()
		logf("fault: PostgreSQL back after %s", w.end.Sub(w.start).Round(time.Millisecond))
		f.add(w)
	})
	wg.Wait()
}

// probe asks GET /auth/me every 200 ms, to measure recovery after faults.
type probeSample struct {
	at     time.Time
	status int
	retry  bool // Retry-After present
	lat    time.Duration
}

func runProbe(ctx context.Context, base, key string, out *[]probeSample, mu *sync.Mutex) {
	hc := &http.Client{Timeout: 10 * time.Second}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/auth/me", nil)
		req.Header.Set("X-API-Key", key)
		start := time.Now()
		resp, err := hc.Do(req)
		s := probeSample{at: start}
		if err == nil {
			resp.Body.Close()
			s.status, s.retry = resp.StatusCode, resp.Header.Get("Retry-After") != ""
		} else if ctx.Err() != nil {
			return
		}
		s.lat = time.Since(start)
		mu.Lock()
		*out = append(*out, s)
		mu.Unlock()
	}
}

// recovery is the time from a fault's end until the probe saw three
// answers in a row that were 200 and no slower than normal.
func recovery(w window, probes []probeSample, normal time.Duration) (time.Duration, bool) {
	streak := 0
	var first time.Time
	for _, p := range probes {
		if p.at.Before(w.end) {
			continue
		}
		if p.status == http.StatusOK && p.lat <= normal {
			if streak == 0 {
				first = p.at
			}
			streak++
			if streak == 3 {
				return max(first.Sub(w.end), 0), true
			}
		} else {
			streak = 0
		}
	}
	return 0, false
}
