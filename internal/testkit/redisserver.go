package testkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisStartAttempts bounds retries of the race between picking a free port
// and redis-server binding it: another process may grab the port in between.
const redisStartAttempts = 3

// redisReadyTimeout is generous because CI machines under -race can be slow
// to fork and load a server.
const redisReadyTimeout = 15 * time.Second

// StartRedis starts a throwaway redis-server on a free loopback port and
// returns its redis:// URL. The server is stopped in t.Cleanup. Tests run
// against the real server rather than an emulation so that Lua scripts and
// server-side time behave exactly as in production.
//
// When redis-server is not installed the test is skipped, except when the CI
// environment variable is set: a CI job that silently skips Redis tests would
// report green without having tested anything, so there it is a failure.
func StartRedis(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("testkit: redis-server not found in PATH and CI is set: %v", err)
		}
		t.Skip("testkit: redis-server not found in PATH; install it to run Redis tests (skipping)")
	}

	dir := t.TempDir()
	var lastErr error
	for range redisStartAttempts {
		url, stop, err := redisStart(bin, dir)
		if err == nil {
			t.Cleanup(stop)
			return url
		}
		lastErr = err
	}
	t.Fatalf("testkit: starting redis-server: %v", lastErr)
	return ""
}

// redisStart launches one server and waits for it to answer PING. On
// failure the process is already stopped.
func redisStart(bin, dir string) (url string, stop func(), err error) {
	port, err := redisFreePort()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin,
		"--save", "",
		"--appendonly", "no",
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--dir", dir,
	)
	var out redisOutput
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("exec %s: %w", bin, err)
	}

	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	stop = func() { redisStop(cmd, exited) }

	url = fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	if err := redisWaitReady(url, exited); err != nil {
		stop()
		if redisExited(exited) && waitErr != nil {
			err = fmt.Errorf("%w (exit: %v)", err, waitErr)
		}
		return "", nil, fmt.Errorf("%w; server output:\n%s", err, out.String())
	}
	return url, stop, nil
}

func redisExited(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// redisFreePort asks the kernel for an unused port. The listener is closed
// before redis-server binds it, hence the retries in StartRedis.
func redisFreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func redisWaitReady(url string, exited <-chan struct{}) error {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return err
	}
	opts.MaxRetries = -1
	opts.DialTimeout = 500 * time.Millisecond
	client := redis.NewClient(opts)
	defer client.Close()

	deadline := time.Now().Add(redisReadyTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err = client.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return errors.New("redis-server exited before answering PING")
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server did not answer PING within %s: %w", redisReadyTimeout, err)
		}
	}
}

// redisStop asks for a clean shutdown first so the server releases its port
// promptly, and kills it if it does not comply.
func redisStop(cmd *exec.Cmd, exited <-chan struct{}) {
	if redisExited(exited) {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// redisOutput collects the server's output for error messages. exec writes
// to it from its own goroutine while a failing start reads it.
type redisOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *redisOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *redisOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}
