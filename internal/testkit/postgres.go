package testkit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver for admin connections
)

// The throwaway cluster is shared by all tests of one test binary: initdb
// takes a second or two, CREATE DATABASE from a template a few milliseconds.
var (
	pgOnce    sync.Once
	pgCluster *cluster
	pgErr     error
	pgSeq     atomic.Int64
)

// Cluster is a throwaway PostgreSQL server (or, with TEST_DATABASE_URL, an
// existing one on which only databases are created).
type Cluster = cluster

type cluster struct {
	dir      string // temp dir holding data and log
	ctl      string // pg_ctl
	adminURL string
	cred     *syscall.Credential
	external bool // TEST_DATABASE_URL: someone else's server, we only create databases
}

// PostgresAvailable reports whether PostgreSQL tests can run here, starting
// the cluster if needed.
func PostgresAvailable() error {
	pgOnce.Do(func() { pgCluster, pgErr = startCluster() })
	return pgErr
}

// requirePostgres skips (or, under CI, fails) when no PostgreSQL can run.
func requirePostgres(t testing.TB) *cluster {
	t.Helper()
	if err := PostgresAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL is required in CI: %v", err)
		}
		t.Skipf("PostgreSQL not available, skipped: %v", err)
	}
	return pgCluster
}

// NewPostgresURL returns the URL of a fresh, empty database that is dropped
// when the test ends.
func NewPostgresURL(t testing.TB) string {
	t.Helper()
	c := requirePostgres(t)
	return c.newDatabase(t, "")
}

func (c *cluster) newDatabase(t testing.TB, template string) string {
	t.Helper()
	name := fmt.Sprintf("t_%d_%d", os.Getpid(), pgSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q := "CREATE DATABASE " + name
	if template != "" {
		q += " TEMPLATE " + template
	}
	if err := c.exec(ctx, q); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
	})
	return withDatabase(c.adminURL, name)
}

func (c *cluster) exec(ctx context.Context, q string) error {
	db, err := sql.Open("pgx", c.adminURL)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, q)
	return err
}

func withDatabase(rawURL, name string) string {
	i := strings.LastIndex(rawURL, "/")
	rest := ""
	if j := strings.IndexByte(rawURL[i:], '?'); j >= 0 {
		rest = rawURL[i+j:]
	}
	return rawURL[:i+1] + name + rest
}

func startCluster() (*cluster, error) {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		c := &cluster{adminURL: u, external: true}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.exec(ctx, "SELECT 1"); err != nil {
			return nil, fmt.Errorf("TEST_DATABASE_URL: %w", err)
		}
		return c, nil
	}
	bin, err := findPostgresBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "concierge-pg-")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, ctl: filepath.Join(bin, "pg_ctl")}
	// PostgreSQL refuses to run as root; run it as the postgres user.
	if os.Geteuid() == 0 {
		cred, err := unprivileged()
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		c.cred = cred
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := c.run(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
		"--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	port, err := FreePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	opts := strings.Join([]string{
		"-p " + strconv.Itoa(port),
		"-c listen_addresses=127.0.0.1",
		"-c unix_socket_directories=''",
		"-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
		"-c max_connections=400", "-c shared_buffers=128MB",
	}, " ")
	if out, err := c.run(c.ctl, "-D", data, "-o", opts, "-l", filepath.Join(dir, "postgres.log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %v: %s %s", err, out, log)
	}
	c.adminURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return c, nil
}

// StartPostgres starts a throwaway cluster outside of tests (the load
// benchmark uses it). Stop it with Stop.
func StartPostgres() (*Cluster, error) { return startCluster() }

// CreateDatabase creates an empty database and returns its URL.
func (c *cluster) CreateDatabase(ctx context.Context, name string) (string, error) {
	if err := c.exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	return withDatabase(c.adminURL, name), nil
}

// Stop shuts the cluster down and removes its files.
func (c *cluster) Stop() { c.stop() }

// stop shuts the cluster down and removes its files.
func (c *cluster) stop() {
	if c == nil || c.external {
		return
	}
	_, _ = c.run(c.ctl, "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	os.RemoveAll(c.dir)
}

func (c *cluster) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = c.dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd.CombinedOutput()
}

func findPostgresBin() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(real), nil
		}
		return filepath.Dir(p), nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(matches) > 0 {
		return filepath.Dir(matches[len(matches)-1]), nil
	}
	return "", errors.New("pg_ctl not found (install PostgreSQL server binaries or set TEST_DATABASE_URL)")
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

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
