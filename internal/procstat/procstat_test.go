package procstat

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestReadings(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("procstat reads /proc")
	}
	// Some CPU to measure: /proc counts in 10 ms ticks.
	self, x := time.Duration(0), 0
	for self < 100*time.Millisecond {
		for i := range 1_000_000 {
			x += i % 7
		}
		var err error
		if self, err = Self(); err != nil {
			t.Fatal(err)
		}
	}
	_ = x
	proc, err := Process(os.Getpid())
	if err != nil || proc <= 0 || proc > 2*self {
		t.Fatalf("Process: %v, %v (rusage says %v)", proc, err, self)
	}
	if busy, err := MachineBusy(); err != nil || busy < proc {
		t.Fatalf("MachineBusy: %v, %v (this process alone %v)", busy, err, proc)
	}
	if n, ok := PostgresBackends("no_such_database_here"); !ok || n != 0 {
		t.Fatalf("PostgresBackends of no database: %v, %v", n, ok)
	}
	if _, err := Process(-1); err == nil {
		t.Fatal("Process(-1): no error")
	}
}
