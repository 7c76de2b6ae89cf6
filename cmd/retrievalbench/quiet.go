package main

import (
	"context"
	"time"

	"concierge/internal/procstat"
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
		a, err := procstat.MachineBusy()
		if err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		b, err := procstat.MachineBusy()
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

// cpuMeter tells how many cores this process and everything else used
// over a stretch of time.
type cpuMeter struct {
	start      time.Time
	busy, self time.Duration
}

func startCPU() cpuMeter {
	busy, _ := procstat.MachineBusy()
	self, _ := procstat.Self()
	return cpuMeter{start: time.Now(), busy: busy, self: self}
}

// stop returns the cores used by this process and by all others.
func (m cpuMeter) stop() (self, others float64) {
	busy, err1 := procstat.MachineBusy()
	me, err2 := procstat.Self()
	wall := time.Since(m.start).Seconds()
	if err1 != nil || err2 != nil || wall <= 0 {
		return 0, 0
	}
	self = (me - m.self).Seconds() / wall
	others = max(0, (busy-m.busy).Seconds()/wall-self)
	return self, others
}
