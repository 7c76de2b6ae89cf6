package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" driver, to create the benchmark database

	"concierge/internal/testkit"
)

// server is one server subprocess; its stdout and stderr go to a file so
// that logging costs the load generator nothing.
type server struct {
	name    string
	addr    string
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{} // closed when the process has exited
	waitErr error         // valid after exited is closed
}

// startServer runs bin with the arguments args(addr) on a free loopback port.
func startServer(ctx context.Context, name, bin string, args func(addr string) []string, env []string, dir string) (*server, error) {
	port, err := testkit.FreePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor
	cmd := exec.Command(bin, args(addr)...)
	cmd.Env = append(append([]string(nil), env...), "CONCIERGE_ADDR="+addr)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Die with us even if we are killed without a chance to clean up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &server{name: name, addr: addr, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

func (s *server) base() string { return "http://" + s.addr }

// stop asks the server to shut down and kills it if it takes over 10s.
func (s *server) stop(logf func(string, ...any)) {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		logf("%s: server did not stop within 10s, killing it", s.name)
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// logTail is the last few KiB of the server's output.
func (s *server) logTail() string {
	f, err := os.Open(s.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	const max = 4 << 10
	if st, err := f.Stat(); err == nil && st.Size() > max {
		_, _ = f.Seek(st.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, max))
	return strings.TrimSpace(string(b))
}

// withLog adds the server's state and the tail of its output to err.
func (s *server) withLog(err error) error {
	state := "still running"
	select {
	case <-s.exited:
		state = fmt.Sprintf("exited: %v", s.waitErr)
	default:
	}
	return fmt.Errorf("%w\n%s server (%s), last output:\n%s", err, s.name, state, s.logTail())
}

// waitReady polls GET /readyz until it answers 200.
func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base()+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Errorf("GET /readyz: %s", resp.Status)
		} else {
			last = err
		}
		select {
		case <-s.exited:
			return s.withLog(errors.New("server exited before it was ready"))
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return s.withLog(fmt.Errorf("not ready within %s: %v", timeout, last))
			}
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// register creates an account and returns its API key and e-mail address.
func register(ctx context.Context, base string) (key, email string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	email = fmt.Sprintf("loadbench-%d@example.com", time.Now().UnixNano())
	body, _ := json.Marshal(map[string]string{
		"email":    email,
		"password": "loadbench-password",
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/auth/register", bytes.NewReader(body))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("register: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", "", fmt.Errorf("register: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("register: %s: %s", resp.Status, b)
	}
	var out struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.APIKey == "" {
		return "", "", fmt.Errorf("register: no api_key in %s", b)
	}
	return out.APIKey, email, nil
}

// probe checks that GET /auth/me answers 200 and returns the body size.
func probe(ctx context.Context, base, key string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/auth/me", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("GET /auth/me: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, fmt.Errorf("GET /auth/me: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET /auth/me: %s: %s", resp.Status, b)
	}
	return len(b), nil
}

// buildConcierge builds ./cmd/concierge of the enclosing module into dir.
func buildConcierge(ctx context.Context, dir string, logf func(string, ...any)) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	bin := filepath.Join(dir, "concierge")
	logf("building %s/cmd/concierge", root)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/concierge")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/concierge: %v\n%s", err, out)
	}
	return bin, nil
}

// moduleRoot walks up from the working directory to the directory of go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; run from the module or pass -bin")
		}
		dir = parent
	}
}

// conciergeVersion is the output of "concierge version", or "", with the
// source's git revision when we built the binary ourselves.
func conciergeVersion(ctx context.Context, bin string, built bool) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return ""
	}
	v := strings.TrimSpace(string(out))
	if root, err := moduleRoot(); err == nil && built && !strings.Contains(v, "(") {
		rev, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
		if err == nil {
			v += ", source at git " + strings.TrimSpace(string(rev))
			if st, err := exec.CommandContext(ctx, "git", "-C", root, "status", "--porcelain").Output(); err == nil && len(st) > 0 {
				v += " plus uncommitted changes"
			}
		}
	}
	return v
}

// postgresDatabase returns the URL of a fresh database and a function that
// drops it (and stops the throwaway cluster, if one was started).
func postgresDatabase(ctx context.Context, serverURL string, logf func(string, ...any)) (string, func(), error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	name := fmt.Sprintf("loadbench_%d_%d", os.Getpid(), time.Now().Unix())
	if serverURL == "" {
		logf("postgres: starting a throwaway cluster")
		c, err := testkit.StartPostgres()
		if err != nil {
			return "", nil, fmt.Errorf("start PostgreSQL: %w", err)
		}
		u, err := c.CreateDatabase(ctx, name)
		if err != nil {
			c.Stop()
			return "", nil, fmt.Errorf("create database: %w", err)
		}
		return u, func() { logf("postgres: stopping the throwaway cluster"); c.Stop() }, nil
	}
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		logf("postgres: -database-url is not a postgres:// URL; using it as is")
		return serverURL, func() {}, nil
	}
	db, err := sql.Open("pgx", serverURL)
	if err != nil {
		return "", nil, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		logf("postgres: cannot create a database (%v); using -database-url as is", err)
		return serverURL, func() {}, nil
	}
	fresh := *u
	fresh.Path = "/" + name
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		db, err := sql.Open("pgx", serverURL)
		if err != nil {
			return
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			logf("postgres: drop database %s: %v", name, err)
		}
	}
	logf("postgres: using fresh database %s on -database-url's server", name)
	return fresh.String(), drop, nil
}
