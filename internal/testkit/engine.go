// Package testkit starts the real service on a fresh database of either
// engine for tests: a throwaway PostgreSQL cluster from the machine's own
// binaries (or TEST_DATABASE_URL), a scenario runner that drives the real
// router over HTTP, and seed helpers. Under CI (the CI variable set) an
// engine that cannot start is a failure, never a silent skip.
package testkit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/internal/jobs"
	"concierge/internal/logging"
	"concierge/internal/store"
)

// Engine is a database engine under test.
type Engine string

// The engines every store test and API scenario runs on.
const (
	SQLite   Engine = "sqlite"
	Postgres Engine = "postgres"
)

// Engines lists the engines tests run on: both, unless
// CONCIERGE_TEST_ENGINES names some (a comma list, e.g. "postgres"). The
// CI's race pass uses it: modernc's SQLite is C translated to Go, so the
// race detector instruments the whole database engine too and a SQLite
// scenario runs 20–50 times slower than without it; the packages whose
// own concurrency differs by engine run both there as well.
func Engines() []Engine {
	v := strings.TrimSpace(os.Getenv("CONCIERGE_TEST_ENGINES"))
	if v == "" {
		return []Engine{SQLite, Postgres}
	}
	var out []Engine
	for _, e := range []Engine{SQLite, Postgres} {
		for _, name := range strings.Split(v, ",") {
			if strings.TrimSpace(name) == string(e) {
				out = append(out, e)
			}
		}
	}
	if len(out) == 0 {
		panic(fmt.Sprintf("testkit: CONCIERGE_TEST_ENGINES=%q names no engine (sqlite, postgres)", v))
	}
	return out
}

var (
	runsMu sync.Mutex
	runs   = map[Engine]int{}
)

// ForEachEngine runs fn as a subtest per engine, counting the runs for the
// summary printed by Main.
func ForEachEngine(t *testing.T, fn func(t *testing.T, e Engine)) {
	t.Helper()
	for _, e := range Engines() {
		t.Run(string(e), func(t *testing.T) {
			if e == Postgres {
				requirePostgres(t)
			}
			fn(t, e)
			if !t.Skipped() {
				runsMu.Lock()
				runs[e]++
				runsMu.Unlock()
			}
		})
	}
}

// NewDB opens a fresh, migrated database of engine e, closed and removed
// when the test ends.
func NewDB(t testing.TB, e Engine) *store.DB {
	t.Helper()
	db := OpenDB(t, e, DatabaseURL(t, e))
	if _, err := db.Migrate(context.Background(), nil); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}

// DatabaseURL returns a fresh, empty database for engine e: a PostgreSQL URL,
// or for SQLite a file path.
func DatabaseURL(t testing.TB, e Engine) string {
	t.Helper()
	if e == Postgres {
		return NewPostgresURL(t)
	}
	return filepath.Join(t.TempDir(), "concierge.db")
}

// OpenDB opens the database at url (from DatabaseURL) without migrating.
func OpenDB(t testing.TB, e Engine, url string) *store.DB {
	t.Helper()
	opts := store.Options{SQLitePath: url, MaxOpenConns: 8}
	if e == Postgres {
		opts = store.Options{DatabaseURL: url, MaxOpenConns: 16}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := store.Open(ctx, opts)
	if err != nil {
		t.Fatalf("open %s: %v", e, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Main runs a package's tests, stops the PostgreSQL cluster and reports how
// many engine subtests ran on each engine, on stdout and, when
// CONCIERGE_ENGINE_REPORT names a directory, in a file there (CI sums them).
// Use it from TestMain: func TestMain(m *testing.M) { testkit.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	if pgCluster != nil {
		pgCluster.stop()
	}
	runsMu.Lock()
	summary := fmt.Sprintf("engine subtests: sqlite=%d postgres=%d", runs[SQLite], runs[Postgres])
	runsMu.Unlock()
	if runs[SQLite]+runs[Postgres] > 0 {
		fmt.Println("testkit:", summary)
		if dir := os.Getenv("CONCIERGE_ENGINE_REPORT"); dir != "" {
			pkg, _ := os.Getwd()
			name := strings.ReplaceAll(strings.TrimPrefix(pkg, "/"), "/", "_") + ".txt"
			_ = os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("%s sqlite=%d postgres=%d\n",
				filepath.Base(pkg), runs[SQLite], runs[Postgres])), 0o644)
		}
	}
	os.Exit(code)
}

// Logger returns the production logger (text, debug level) writing to w, so
// tests can grep what the service logs.
func Logger(w io.Writer) *slog.Logger {
	l, err := logging.New(w, "text", "debug")
	if err != nil {
		panic(err)
	}
	return l
}

// TLogger returns a logger that writes through t.Log, so log lines show up
// next to the test that produced them, and only when it fails or runs -v.
func TLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// WaitJob polls until job id reaches status (or fails the test after 20s).
func WaitJob(t testing.TB, q *jobs.Queue, id int64, status string) *jobs.Job {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		j, err := q.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status == status {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d: status %s (attempts %d, last error %q), want %s", id, j.Status, j.Attempts, j.LastError.String, status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
