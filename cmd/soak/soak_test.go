package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestSoak is a short soak (30 s of load, faults scaled down, 60 s of
// drain at most), part of go test ./...: it fails when any invariant is
// broken. -short skips it.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak: skipped with -short")
	}
	_, pgErr := postgresBin()
	_, redisErr := exec.LookPath("redis-server")
	if pgErr != nil || redisErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("soak needs PostgreSQL and redis-server in CI: %v %v", pgErr, redisErr)
		}
		t.Skipf("soak: PostgreSQL or redis-server not installed: %v %v", pgErr, redisErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute) // under go test's 10
	defer cancel()
	var out bytes.Buffer
	ok, err := run(ctx, options{duration: 30 * time.Second, seed: 1, replicas: 3, users: 4, drain: 60 * time.Second}, &out)
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatal("soak: an invariant is broken (see the report above)")
	}
}
