package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestServeWalkThrough runs the real binary's entry point with no
// configuration but a data directory and a free port, and follows the
// README's walk-through: register, read the code from the outbox, verify,
// log in, me, regenerate. Then it stops the server with its context.
func TestServeWalkThrough(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data") // the service creates it
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "-addr", "127.0.0.1:0", "-data-dir", dir},
			env(map[string]string{"CONCIERGE_ARGON2_MEMORY_KIB": "1024", "CONCIERGE_ARGON2_ITERATIONS": "1"}), io.Discard, pw)
		pw.Close()
	}()
	var logs bytes.Buffer
	base := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		re := regexp.MustCompile(`addr=(http://127\.0\.0\.1:\d+)`)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				base <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-base:
	case err := <-done:
		t.Fatalf("serve exited: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("server did not report ready")
	}
	// The container health check asks the same listener.
	if err := run(ctx, []string{"healthcheck", "-addr", strings.TrimPrefix(url, "http://")}, env(nil), io.Discard, io.Discard); err != nil {
		t.Errorf("healthcheck of the running server: %v", err)
	}
	if err := run(ctx, []string{"healthcheck", "-addr", "127.0.0.1:1"}, env(nil), io.Discard, io.Discard); err == nil {
		t.Error("healthcheck of a closed port passed")
	}

	post := func(path, key string, body any) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", url+path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		return do(t, req)
	}
	reg := post("/auth/register", "", map[string]string{"email": "me@example.com", "password": "correct horse battery"})
	key := reg["api_key"].(string)

	var code string
	deadline := time.Now().Add(10 * time.Second)
	for code == "" && time.Now().Before(deadline) {
		files, _ := filepath.Glob(filepath.Join(dir, "outbox", "*.eml"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			if m := regexp.MustCompile(`code is (\d{6})`).FindSubmatch(b); m != nil {
				code = string(m[1])
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code == "" {
		t.Fatal("no verification code in the outbox")
	}
	post("/auth/verify-email", "", map[string]string{"email": "me@example.com", "code": code})
	login := post("/auth/login", "", map[string]string{"email": "me@example.com", "password": "correct horse battery"})
	if login["api_key"] != key {
		t.Fatalf("login returned %v", login)
	}
	req, _ := http.NewRequest("GET", url+"/auth/me", nil)
	req.Header.Set("X-API-Key", key)
	if me := do(t, req); me["email_verified"] != true || me["email"] != "me@example.com" {
		t.Fatalf("me = %v", me)
	}
	if fresh := post("/client/api-key/regenerate", key, nil)["api_key"]; fresh == key || fresh == nil {
		t.Fatalf("regenerate returned %v", fresh)
	}

	if fi, err := os.Stat(filepath.Join(dir, "secret.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("secret key file: %v, mode %v", err, fi.Mode())
	}
	// Everything in the data directory is the owner's alone: the database
	// and its WAL files (written to by now), the key, the mail outbox.
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data directory: %v, mode %v", err, fi.Mode())
	}
	for _, name := range []string{"concierge.db", "concierge.db-wal", "concierge.db-shm"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v", name, err, fi.Mode())
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not shut down")
	}
	if strings.Contains(logs.String(), key) {
		t.Error("the log holds the API key")
	}
}

func do(t *testing.T, req *http.Request) map[string]any {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, b)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return out
}

func TestMigrateAndVersion(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"migrate", "-data-dir", dir}, env(nil), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`applied [1-9]\d* migration\(s\)`).MatchString(out.String()) {
		t.Errorf("migrate said %q", out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"migrate", "-data-dir", dir}, env(nil), &out, io.Discard); err != nil || !strings.Contains(out.String(), "applied 0") {
		t.Errorf("second migrate: %v %q", err, out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"version"}, env(nil), &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "concierge ") {
		t.Errorf("version: %v %q", err, out.String())
	}
	if err := run(context.Background(), []string{"bogus"}, env(nil), io.Discard, io.Discard); err == nil {
		t.Error("unknown command accepted")
	}
	if err := run(context.Background(), []string{"serve"}, env(map[string]string{"CONCIERGE_RATE_LIMITS": "maybe"}), io.Discard, io.Discard); err == nil {
		t.Error("bad configuration accepted")
	}
}
