package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver: the end checks read the database

	"concierge/internal/testkit"
)

// proc is one child process (postgres, redis-server, a replica). It dies
// with the soak even when the soak is killed (Pdeathsig), and its output
// goes to a log file.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	waitErr error
}

func startProc(name, logPath string, cred *syscall.Credential, env []string, bin string, args ...string) (*proc, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the child holds its own descriptor
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	// Pdeathsig is set after the credential switch, so it survives it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Credential: cred}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop sends sig and waits up to grace before killing.
func (p *proc) stop(sig syscall.Signal, grace time.Duration) {
	if !p.running() {
		return
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

func (p *proc) kill() {
	if p.running() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

func (p *proc) logTail(n int64) string {
	f, err := os.Open(p.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, n))
	return strings.TrimSpace(string(b))
}

// waitTCP waits until addr accepts connections or the process exits.
func waitTCP(p *proc, addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		if !p.running() {
			return fmt.Errorf("%s exited (%v): %s", p.name, p.waitErr, p.logTail(2000))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s not listening on %s within %s: %s", p.name, addr, timeout, p.logTail(2000))
}

// postgres is a throwaway cluster whose postmaster is our child, so that it
// can be restarted (a fast shutdown, then a start on the same port) and
// never outlives the soak. testkit.StartPostgres runs it through pg_ctl,
// detached, and cannot restart it.
type postgres struct {
	bin, dir, data string
	port           int
	cred           *syscall.Credential
	mu             sync.Mutex
	p              *proc
}

func startPostgres(dir string) (*postgres, error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	pg := &postgres{bin: bin, dir: filepath.Join(dir, "pg")}
	if err := os.MkdirAll(pg.dir, 0o755); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 { // PostgreSQL refuses to run as root
		if pg.cred, err = unprivileged(); err != nil {
			return nil, err
		}
		if err := os.Chown(pg.dir, int(pg.cred.Uid), int(pg.cred.Gid)); err != nil {
			return nil, err
		}
	}
	pg.data = filepath.Join(pg.dir, "data")
	cmd := exec.Command(filepath.Join(bin, "initdb"), "-D", pg.data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: pg.cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	if pg.port, err = testkit.FreePort(); err != nil {
		return nil, err
	}
	if err := pg.start(); err != nil {
		return nil, err
	}
	return pg, nil
}

func (pg *postgres) start() error {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	p, err := startProc("postgres", filepath.Join(pg.dir, "postgres.log"), pg.cred, os.Environ(), filepath.Join(pg.bin, "postgres"),
		"-D", pg.data, "-p", strconv.Itoa(pg.port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300",
		"-c", "shared_buffers=64MB")
	if err != nil {
		return err
	}
	pg.p = p
	if err := waitTCP(p, pg.addr(), 60*time.Second); err != nil {
		return err
	}
	// Listening is not accepting queries yet (recovery after a stop).
	deadline := time.Now().Add(60 * time.Second)
	for {
		db, err := sql.Open("pgx", pg.url("postgres"))
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err = db.PingContext(ctx)
			cancel()
			db.Close()
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stopFast is pg_ctl stop -m fast: SIGINT to the postmaster.
func (pg *postgres) stopFast() {
	pg.mu.Lock()
	p := pg.p
	pg.mu.Unlock()
	if p != nil {
		p.stop(syscall.SIGINT, 30*time.Second)
	}
}

func (pg *postgres) close() {
	pg.mu.Lock()
	p := pg.p
	pg.mu.Unlock()
	if p != nil {
		p.stop(syscall.SIGQUIT, 10*time.Second)
	}
}

func (pg *postgres) addr() string { return fmt.Sprintf("127.0.0.1:%d", pg.port) }

func (pg *postgres) url(db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", pg.addr(), db)
}

func (pg *postgres) createDatabase(name string) (string, error) {
	db, err := sql.Open("pgx", pg.url("postgres"))
	if err != nil {
		return "", err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	return pg.url(name), nil
}

func postgresBin() (string, error) {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(matches) > 0 {
		return filepath.Dir(matches[len(matches)-1]), nil
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "postgres")); err == nil {
			return filepath.Dir(p), nil
		}
	}
	return "", errors.New("PostgreSQL server binaries (postgres, initdb) not found")
}

func unprivileged() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.New("running as root and no postgres or nobody user to run PostgreSQL as")
}

// redisProc is a redis-server that can be stopped and started again on the
// same port.
type redisProc struct {
	bin, dir string
	port     int
	mu       sync.Mutex
	p        *proc
}

func startRedis(dir string) (*redisProc, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server not found: %w", err)
	}
	r := &redisProc{bin: bin, dir: filepath.Join(dir, "redis")}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	if r.port, err = testkit.FreePort(); err != nil {
		return nil, err
	}
	return r, r.start()
}

func (r *redisProc) start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := startProc("redis-server", filepath.Join(r.dir, "redis.log"), nil, os.Environ(), r.bin,
		"--save", "", "--appendonly", "no", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--dir", r.dir)
	if err != nil {
		return err
	}
	r.p = p
	return waitTCP(p, r.addr(), 15*time.Second)
}

func (r *redisProc) stop() {
	r.mu.Lock()
	p := r.p
	r.mu.Unlock()
	if p != nil {
		p.kill()
	}
}

func (r *redisProc) addr() string { return fmt.Sprintf("127.0.0.1:%d", r.port) }
func (r *redisProc) url() string  { return "redis://" + r.addr() + "/0" }

// replica is one "concierge serve" on a fixed port (kept across restarts so
// the proxy's table does not change).
type replica struct {
	idx  int
	addr string
	bin  string
	env  []string
	dir  string
	mu   sync.Mutex
	p    *proc
}

func (r *replica) start(ctx context.Context) error {
	r.mu.Lock()
	p, err := startProc(fmt.Sprintf("replica%d", r.idx), filepath.Join(r.dir, "serve.log"), nil,
		append(append([]string(nil), r.env...), "CONCIERGE_ADDR="+r.addr, "CONCIERGE_DATA_DIR="+r.dir), r.bin, "serve")
	if err == nil {
		r.p = p
	}
	r.mu.Unlock()
	if err != nil {
		return err
	}
	return r.waitReady(ctx, 90*time.Second)
}

func (r *replica) proc() *proc {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.p
}

func (r *replica) waitReady(ctx context.Context, timeout time.Duration) error {
	p := r.proc()
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		resp, err := client.Get("http://" + r.addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if !p.running() {
			return fmt.Errorf("replica %d exited (%v): %s", r.idx, p.waitErr, p.logTail(3000))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("replica %d not ready within %s: %s", r.idx, timeout, p.logTail(3000))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// buildConcierge builds ./cmd/concierge of the enclosing module into dir.
func buildConcierge(dir string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "concierge")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/concierge")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/concierge: %v\n%s", err, out)
	}
	return bin, nil
}

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
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
