package main

import (
	"context"
	"strconv"
	"time"

	"concierge/internal/procstat"
)

// cpuSnap is cumulative CPU time at one instant, from /proc (Linux only;
// elsewhere the fields stay zero and the CPU table says n/a).
type cpuSnap struct {
	at        time.Time
	server    time.Duration // the server process (user + system)
	generator time.Duration // this process
	busy      time.Duration // every CPU of the machine, not idle
	// pg is the PostgreSQL backends serving the benchmark's database
	// (found by their process title, which names it), when there is one.
	pg   time.Duration
	pgOK bool
	ok   bool
}

// snapCPU snapshots the server's CPU time and, when pgDatabase is set, that
// of the PostgreSQL backends connected to that database.
func snapCPU(serverPID int, pgDatabase string) cpuSnap {
	s := cpuSnap{at: time.Now()}
	self, err := procstat.Self()
	if err != nil {
		return s
	}
	s.generator = self
	srv, err1 := procstat.Process(serverPID)
	busy, err2 := procstat.MachineBusy()
	if err1 != nil || err2 != nil {
		return s
	}
	s.server, s.busy, s.ok = srv, busy, true
	if pgDatabase != "" {
		s.pg, s.pgOK = procstat.PostgresBackends(pgDatabase)
	}
	return s
}

// cpuUse is the CPU spent during the measured period, in cores.
type cpuUse struct {
	server, generator, other float64       // cores
	serverPerReq, withOther  time.Duration // CPU per 200 response: server; server + other
	// pg and withPG: the benchmark database's PostgreSQL backends alone,
	// in cores, and server + backends per 200 response (postgres target).
	pg     float64
	withPG time.Duration
	pgOK   bool
	// ownPerReq is server + generator (+ backends) CPU per 200 response:
	// what one request costs in the processes of the benchmark, whatever
	// else runs on the machine.
	ownPerReq time.Duration
	ok        bool
}

func cpuBetween(a, b cpuSnap, requests int) cpuUse {
	wall := b.at.Sub(a.at).Seconds()
	if !a.ok || !b.ok || wall <= 0 {
		return cpuUse{}
	}
	u := cpuUse{ok: true}
	srv, gen, busy := b.server-a.server, b.generator-a.generator, b.busy-a.busy
	u.server, u.generator = srv.Seconds()/wall, gen.Seconds()/wall
	u.other = max(0, (busy-srv-gen).Seconds()/wall)
	if requests > 0 {
		u.serverPerReq = srv / time.Duration(requests)
		u.withOther = max(srv, busy-gen) / time.Duration(requests)
	}
	own := srv + gen
	if a.pgOK && b.pgOK {
		pg := max(0, b.pg-a.pg)
		u.pg, u.pgOK = pg.Seconds()/wall, true
		if requests > 0 {
			u.withPG = (srv + pg) / time.Duration(requests)
		}
		own += pg
	}
	if requests > 0 {
		u.ownPerReq = own / time.Duration(requests)
	}
	return u
}

func fmtCores(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

// waitQuiet waits until the machine used under 0.15 cores over one second,
// or limit has passed.
func waitQuiet(ctx context.Context, limit time.Duration, logf func(string, ...any)) {
	deadline := time.Now().Add(limit)
	for first := true; ; first = false {
		a, err := procstat.MachineBusy()
		if err != nil {
			return
		}
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		b, err := procstat.MachineBusy()
		if err != nil {
			return
		}
		used := (b - a).Seconds()
		if used < 0.15 {
			if !first {
				logf("machine is quiet (%.2f cores busy)", used)
			}
			return
		}
		if time.Now().After(deadline) {
			logf("machine still busy (%.2f cores) after %s; going ahead", used, limit)
			return
		}
		if first {
			logf("machine busy (%.2f cores used by others); waiting up to %s", used, limit)
		}
	}
}
