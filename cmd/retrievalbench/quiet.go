package main

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"
)

// waitQuiet waits, up to limit, until the rest of the machine uses less
// than a fifth of a core: on a shared 2-core machine another job's compile
// doubles every latency. It gives up (and says so) rather than fail.
func waitQuiet(ctx context.Context, limit time.Duration, logf func(string, ...any)) {
	if limit <= 0 {
		return
	}
	deadline := time.Now().Add(limit)
	for first := true; ; first = false {
		a, err := busyCPU()
		if err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		b, err := busyCPU()
		if err != nil {
			return
		}
		used := (b - a).Seconds()
		switch {
		case used < 0.2:
			if !first {
				logf("machine is quiet (%.2f cores busy)", used)
			}
			return
		case time.Now().After(deadline):
			logf("machine still busy (%.2f cores) after %s; going ahead", used, limit)
			return
		case first:
			logf("machine busy (%.2f cores used by others); waiting up to %s", used, limit)
		}
	}
}

// busyCPU is the CPU time all processors have spent not idle, from the
// first line of /proc/stat (user nice system idle iowait irq softirq steal,
// in clock ticks of 1/100 s).
func busyCPU() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, errors.New("unexpected /proc/stat")
	}
	var busy int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, err
		}
		busy += n
	}
	return time.Duration(busy) * 10 * time.Millisecond, nil
}

// selfCPU is the CPU time this process has used (utime + stime of
// /proc/self/stat, in ticks of 1/100 s).
func selfCPU() (time.Duration, error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may contain spaces; fields count from the
	// closing parenthesis.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, errors.New("unexpected /proc/self/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("unexpected /proc/self/stat")
	}
	var ticks int64
	for _, v := range f[11:13] { // utime, stime: fields 14 and 15
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// cpuMeter tells how many cores this process and everything else used
// over a stretch of time.
type cpuMeter struct {
	start      time.Time
	busy, self time.Duration
}

func startCPU() cpuMeter {
	busy, _ := busyCPU()
	self, _ := selfCPU()
	return cpuMeter{start: time.Now(), busy: busy, self: self}
}

// stop returns the cores used by this process and by all others.
func (m cpuMeter) stop() (self, others float64) {
	busy, err1 := busyCPU()
	me, err2 := selfCPU()
	wall := time.Since(m.start).Seconds()
	if err1 != nil || err2 != nil || wall <= 0 {
		return 0, 0
	}
	self = (me - m.self).Seconds() / wall
	others = max(0, (busy-m.busy).Seconds()/wall-self)
	return self, others
}
