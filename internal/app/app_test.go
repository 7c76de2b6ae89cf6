package app_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"concierge/internal/app"
	"concierge/internal/config"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// TestShutdownFinishesInFlightRequests: requests already being served when
// the stop signal arrives get their answers (sign-ins with production
// password hashing take long enough to be caught mid-flight).
func TestShutdownFinishesInFlightRequests(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		cfg, err := config.Load(func(k string) string {
			return map[string]string{"CONCIERGE_RATE_LIMITS": "off", "CONCIERGE_PASSWORD_HASH_CONCURRENCY": "1"}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		cfg.DataDir = t.TempDir()
		if e == testkit.Postgres {
			cfg.DatabaseURL = config.Secret(testkit.NewPostgresURL(t))
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		a, err := app.New(ctx, cfg, app.Options{Logger: testkit.TLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		inner, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln := &countingListener{Listener: inner}
		done := make(chan error, 1)
		go func() { done <- a.Serve(ctx, ln) }()
		url := "http://" + ln.Addr().String()
		body := `{"email":"inflight@example.com","password":"correct horse battery"}`
		res, err := http.Post(url+"/auth/register", "application/json", bytes.NewBufferString(body))
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("register: %v %v", err, res)
		}
		res.Body.Close()

		// One hash at a time: six sign-ins queue behind each other. Each
		// on a connection of its own, so that the server's reading from all
		// of them (not a sleep, which a busy machine outlasts) says they
		// are in flight when the stop comes.
		const n = 6
		accepted := ln.read.Load()
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		var wg sync.WaitGroup
		statuses := make([]int, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := client.Post(url+"/auth/login", "application/json", bytes.NewBufferString(body))
				if err != nil {
					t.Errorf("login %d: %v", i, err)
					return
				}
				statuses[i] = res.StatusCode
				res.Body.Close()
			}()
		}
		for deadline := time.Now().Add(10 * time.Second); ln.read.Load() < accepted+n; {
			if time.Now().After(deadline) {
				t.Fatal("the sign-ins did not reach the server")
			}
			time.Sleep(time.Millisecond)
		}
		cancel()
		wg.Wait()
		for i, s := range statuses {
			if s != 200 {
				t.Errorf("in-flight login %d answered %d", i, s)
			}
		}
		if err := <-done; err != nil {
			t.Fatalf("serve: %v", err)
		}
		if _, err := http.Get(url + "/healthz"); err == nil {
			t.Error("server still accepts connections after shutdown")
		}
	})
}

// countingListener counts the connections the server has read from. An
// accepted connection is not yet the server's: a stop between its Accept
// and the server tracking it closes it unanswered (seen on a busy CI
// machine, where a fixed sleep after the accepts was not enough). A read
// happens only once the server serves the connection.
type countingListener struct {
	net.Listener
	read atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	return &readCountingConn{Conn: c, l: l}, nil
}

type readCountingConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *readCountingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.once.Do(func() { c.l.read.Add(1) })
	}
	return n, err
}
