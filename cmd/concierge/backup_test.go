package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestBackup copies a running SQLite database while bots are being created
// and checks the copy is whole: it opens, passes an integrity check and
// holds every bot acknowledged before the backup began. On PostgreSQL the
// command refuses and names the right tool.
func TestBackup(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, _ := a.Register(t, "owner@example.com")
		cli := cliAgainst(a)
		if _, err := cli("workspace", "set-plan", "--email", "owner@example.com", "--plan", "pro"); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			if r := a.Do(t, "POST", "/bots", map[string]any{"name": fmt.Sprint("bot ", i)}, "X-API-Key", key); r.Status != 201 {
				t.Fatalf("create bot: %d", r.Status)
			}
		}
		out := filepath.Join(t.TempDir(), "copy.db")
		if e == testkit.Postgres {
			if _, err := cli("backup", "--out", out); err == nil || !strings.Contains(err.Error(), "pg_dump") {
				t.Fatalf("backup on PostgreSQL: %v", err)
			}
			return
		}
		// Writes go on while the copy is taken.
		var wg sync.WaitGroup
		stop := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				a.Do(t, "POST", "/bots", map[string]any{"name": fmt.Sprint("more ", i)}, "X-API-Key", key)
			}
		}()
		msg, err := cli("backup", "--out", out)
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(msg, "secret key") {
			t.Errorf("the output does not remind of the secret key: %q", msg)
		}
		if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("copy: %v %v", st, err)
		}
		db, err := store.Open(context.Background(), store.Options{SQLitePath: out})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var check string
		if err := store.Get(context.Background(), db.Reader(), &check, `PRAGMA integrity_check`); err != nil || check != "ok" {
			t.Fatalf("integrity_check = %q (%v)", check, err)
		}
		var bots int
		if err := store.Get(context.Background(), db.Reader(), &bots, `SELECT COUNT(*) FROM bots`); err != nil || bots < 5 {
			t.Fatalf("bots in the copy: %d (%v)", bots, err)
		}
		if _, err := cli("backup", "--out", out); err == nil {
			t.Error("an existing file was overwritten")
		}
	})
}
