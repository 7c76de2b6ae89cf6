// Package procstat reads CPU time from /proc (Linux only): of a process,
// of the PostgreSQL backends serving one database, and of the whole
// machine. The benchmark commands use it to state what one request costs
// the server and the database; elsewhere every call returns an error or
// false, and the commands print n/a.
package procstat

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clock ticks per second of /proc times; 100 on every Linux port Go runs on.
const userHZ = 100

// Self is this process's CPU time (user + system).
func Self() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// Process is the CPU time (user + system) of the process pid.
func Process(pid int) (time.Duration, error) {
	return procTicks(fmt.Sprintf("/proc/%d/stat", pid))
}

// PostgresBackends sums the CPU time of the PostgreSQL backends whose
// process title ("postgres: user database host state") names database.
// A backend that exits between two readings takes its time with it; the
// service's pool keeps its connections for a benchmark's run.
func PostgresBackends(database string) (time.Duration, bool) {
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

// MachineBusy is the non-idle time summed over every CPU since boot.
func MachineBusy() (time.Duration, error) {
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
