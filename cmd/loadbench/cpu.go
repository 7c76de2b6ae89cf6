package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
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

// clock ticks per second of /proc times; 100 on every Linux port Go runs on.
const userHZ = 100

// snapCPU snapshots the server's CPU time and, when pgDatabase is set, that
// of the PostgreSQL backends connected to that database.
func snapCPU(serverPID int, pgDatabase string) cpuSnap {
	s := cpuSnap{at: time.Now()}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return s
	}
	s.generator = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	srv, err1 := procTicks(fmt.Sprintf("/proc/%d/stat", serverPID))
	busy, err2 := machineBusy()
	if err1 != nil || err2 != nil {
		return s
	}
	s.server, s.busy, s.ok = srv, busy, true
	if pgDatabase != "" {
		s.pg, s.pgOK = backendTicks(pgDatabase)
	}
	return s
}

// backendTicks sums utime + stime of the PostgreSQL backends whose process
// title ("postgres: user database host state") names database. A backend
// that exits between two snapshots takes its time with it; concierge's
// pool keeps its connections for the whole run.
func backendTicks(database string) (time.Duration, bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	var sum time.Duration
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmd, err := readSmall("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.HasPrefix(cmd, []byte("postgres: ")) {
			continue
		}
		if f := strings.Fields(string(bytes.TrimRight(cmd, "\x00"))); len(f) < 3 || f[2] != database {
			continue
		}
		t, err := procTicks("/proc/" + e.Name() + "/stat")
		if err == nil {
			sum += t
		}
	}
	return sum, true
}

// procTicks reads utime + stime of one process.
func procTicks(path string) (time.Duration, error) {
	b, err := readSmall(path)
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces; the fields start after its ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("%s: unexpected format", path)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 { // state is field 3, utime 14, stime 15
		return 0, fmt.Errorf("%s: unexpected format", path)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// machineBusy is the non-idle time summed over every CPU since boot.
func machineBusy() (time.Duration, error) {
	b, err := readSmall("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: unexpected format")
	}
	var busy int64
	for i, s := range f[1:] {
		if i >= 7 { // user nice system idle iowait irq softirq steal; guest is in user
			break
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return time.Duration(busy) * time.Second / userHZ, nil
}

func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 64<<10))
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
		a, err := machineBusy()
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
		b, err := machineBusy()
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
