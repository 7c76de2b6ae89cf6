package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/internal/store"
	"concierge/internal/testkit"
)

// childServe is set in a child process started by startServer: it runs the
// real `concierge serve` until killed.
const childServe = "CONCIERGE_TEST_CHILD_SERVE"

func maybeChild() bool {
	if os.Getenv(childServe) == "" {
		return false
	}
	err := run(context.Background(), []string{"serve"}, os.Getenv, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child serve:", err)
		os.Exit(1)
	}
	os.Exit(0)
	return true
}

type server struct {
	cmd *exec.Cmd
	url string
}

// startServer runs the binary's serve in a child process (this test binary
// re-executed) so that it can be killed with SIGKILL.
func startServer(t *testing.T, env []string) *server {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, childServe+"=1", "CONCIERGE_ADDR=127.0.0.1:0")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	// The child's last log lines, shown when the test fails (a child that
	// died says why there).
	var (
		mu   sync.Mutex
		tail []string
	)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		re := regexp.MustCompile(`addr=(http://127\.0\.0\.1:\d+)`)
		for sc.Scan() {
			mu.Lock()
			tail = append(tail, sc.Text())
			if len(tail) > 40 {
				tail = tail[1:]
			}
			mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-found:
		s := &server{cmd: cmd, url: u}
		t.Cleanup(func() {
			if t.Failed() && s.cmd.ProcessState == nil {
				mu.Lock()
				t.Logf("child server %s, last log lines:\n%s", u, strings.Join(tail, "\n"))
				mu.Unlock()
			}
			s.kill()
		})
		return s
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("child server did not start")
	}
	return nil
}

func (s *server) kill() {
	if s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
}

func (s *server) do(t *testing.T, method, path, key string, body io.Reader, contentType string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(method, s.url+path, body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	_ = json.Unmarshal(raw, &out)
	return out
}

// TestKillDuringIngestion: SIGKILL the server while it ingests many files,
// restart it, and check that every ingestion ends completed or failed, that
// nothing of an unfinished document is retrievable, and that the credits
// charged are exactly those of what was indexed.
func TestKillDuringIngestion(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		dir := t.TempDir()
		env := []string{"CONCIERGE_DATA_DIR=" + dir, "CONCIERGE_JOB_LEASE=1s", "CONCIERGE_RATE_LIMITS=off",
			"CONCIERGE_ARGON2_MEMORY_KIB=1024", "CONCIERGE_ARGON2_ITERATIONS=1", "CONCIERGE_ACCESS_LOG=false"}
		dbURL := ""
		if e == testkit.Postgres {
			dbURL = testkit.NewPostgresURL(t)
			env = append(env, "DATABASE_URL="+dbURL)
		}
		srv := startServer(t, env)
		reg := srv.do(t, "POST", "/auth/register", "", strings.NewReader(`{"email":"crash@example.com","password":"correct horse battery"}`), "application/json")
		key := reg["api_key"].(string)
		bot := srv.do(t, "POST", "/bots", key, strings.NewReader(`{"name":"kb"}`), "application/json")
		botID := int64(bot["bot_id"].(float64))
		vars := map[string]string{"CONCIERGE_DATA_DIR": dir}
		if dbURL != "" {
			vars["DATABASE_URL"] = dbURL
		}
		if err := run(context.Background(), []string{"credits", "grant", "--email", "crash@example.com", "--credits", "1000000"},
			env0(vars), io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}

		var jobs []string
		for batch := 0; batch < 4; batch++ {
			var body bytes.Buffer
			w := multipart.NewWriter(&body)
			_ = w.WriteField("bot_id", fmt.Sprint(botID))
			for i := 0; i < 10; i++ {
				part, _ := w.CreateFormFile("files", fmt.Sprintf("file-%d-%d.txt", batch, i))
				for p := 0; p < 400; p++ {
					fmt.Fprintf(part, "Paragraph %d of file %d-%d talks about subject%d%d and nothing else.\n\n", p, batch, i, batch, i)
				}
			}
			w.Close()
			out := srv.do(t, "POST", "/ingest", key, &body, w.FormDataContentType())
			jobs = append(jobs, out["job_id"].(string))
		}
		// Kill twice while files are being indexed: after the first file
		// of the first upload, and again mid-way after a restart.
		completed := func(s *server) int {
			n := 0
			for _, job := range jobs {
				p := s.do(t, "GET", "/ingest/status/"+job, key, nil, "")["progress"].(map[string]any)
				n += int(p["completed"].(float64))
			}
			return n
		}
		waitFor := func(s *server, n int) {
			deadline := time.Now().Add(60 * time.Second)
			for completed(s) < n {
				if time.Now().After(deadline) {
					t.Fatalf("fewer than %d files indexed in time", n)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		waitFor(srv, 1)
		srv.kill()
		srv = startServer(t, env)
		waitFor(srv, 15)
		killedAt := completed(srv)
		srv.kill()
		t.Logf("killed twice; %d of 40 files indexed at the second kill", killedAt)

		t0 := time.Now()
		srv2 := startServer(t, env)
		t.Logf("restarted in %v", time.Since(t0))
		for _, job := range jobs {
			deadline := time.Now().Add(120 * time.Second)
			for {
				st := srv2.do(t, "GET", "/ingest/status/"+job, key, nil, "")
				s := st["status"].(string)
				if s == "completed" || s == "failed" || s == "partial" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("job %s still %s after the restart", job, s)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		t.Logf("all jobs terminal %v after the restart", time.Since(t0))
		opts := store.Options{SQLitePath: filepath.Join(dir, "concierge.db")}
		if dbURL != "" {
			opts = store.Options{DatabaseURL: dbURL}
		}
		db, err := store.Open(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ctx := context.Background()
		count := func(q string) int64 {
			var n int64
			if err := store.Get(ctx, db.Reader(), &n, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return n
		}
		if n := count(`SELECT COUNT(*) FROM passages p JOIN documents d ON d.id = p.document_id WHERE d.status <> 'ready'`); n != 0 {
			t.Errorf("%d passages of unfinished documents remain", n)
		}
		if n := count(`SELECT COUNT(*) FROM documents WHERE status = 'indexing'`); n != 0 {
			t.Errorf("%d documents stuck indexing", n)
		}
		charged := count(`SELECT COALESCE(SUM(-delta), 0) FROM credit_ledger WHERE kind = 'debit' AND idempotency_key LIKE 'ingest-file:%'`)
		files := count(`SELECT COALESCE(SUM(credits), 0) FROM ingestion_files WHERE status = 'completed'`)
		docs := count(`SELECT COALESCE(SUM(credits), 0) FROM documents WHERE status = 'ready'`)
		if charged != files || files != docs || charged == 0 {
			t.Errorf("credits: ledger %d, completed files %d, ready documents %d", charged, files, docs)
		}
		if n := count(`SELECT COUNT(*) FROM ingestion_files WHERE status NOT IN ('completed', 'failed')`); n != 0 {
			t.Errorf("%d files not terminal", n)
		}
	})
}

func env0(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
