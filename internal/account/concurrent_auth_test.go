package account_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"concierge/internal/testkit"
)

// TestConcurrentKeysResolveToTheirOwnWorkspace: many callers with different
// keys at once (on PostgreSQL their lookups share queries) each get their
// own workspace, and a wrong key among them is still a 401.
func TestConcurrentKeysResolveToTheirOwnWorkspace(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		const n = 6
		keys := make([]string, n)
		for i := range keys {
			keys[i], _ = a.Register(t, fmt.Sprintf("conc%d@example.com", i))
		}
		var wrong atomic.Int32
		var wg sync.WaitGroup
		for g := 0; g < 4*n; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 15; i++ {
					if g%(n+1) == n {
						if r := a.Do(t, "GET", "/auth/me", nil, "X-API-Key", keys[0]+"x"); r.Status != 401 {
							wrong.Add(1)
						}
						continue
					}
					r := a.Do(t, "GET", "/auth/me", nil, "X-API-Key", keys[g%(n+1)])
					if r.Status != 200 || r.JSON(t)["email"] != fmt.Sprintf("conc%d@example.com", g%(n+1)) {
						wrong.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		if wrong.Load() != 0 {
			t.Fatalf("%d answers were for the wrong caller", wrong.Load())
		}
	})
}

// TestRotationUnderLoad: callers keep using a key while it is rotated. Any
// request sent after the rotation answered must be refused, however many
// lookups were in flight when it happened.
func TestRotationUnderLoad(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		old, _ := a.Register(t, "underload@example.com")
		other, _ := a.Register(t, "bystander@example.com")
		var rotated atomic.Bool
		var late, lateRefused, bystanderFailed atomic.Int32
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if g%4 == 0 {
						if a.Do(t, "GET", "/auth/me", nil, "X-API-Key", other).Status != 200 {
							bystanderFailed.Add(1)
						}
						continue
					}
					after := rotated.Load() // read before the request is sent
					status := a.Do(t, "GET", "/auth/me", nil, "X-API-Key", old).Status
					if after {
						late.Add(1)
						if status == 401 {
							lateRefused.Add(1)
						}
					} else if status != 200 && status != 401 {
						bystanderFailed.Add(1)
					}
				}
			}()
		}
		// Let requests overlap the rotation, then rotate and keep going.
		for i := 0; i < 20; i++ {
			a.Do(t, "GET", "/auth/me", nil, "X-API-Key", other)
		}
		r := a.Do(t, "POST", "/client/api-key/regenerate", nil, "X-API-Key", old)
		if r.Status != 200 {
			t.Fatalf("regenerate: %d %s", r.Status, r.Body)
		}
		rotated.Store(true)
		for late.Load() < 200 {
			a.Do(t, "GET", "/auth/me", nil, "X-API-Key", other)
		}
		close(stop)
		wg.Wait()
		if late.Load() != lateRefused.Load() {
			t.Fatalf("the rotated key succeeded %d times after the rotation answered", late.Load()-lateRefused.Load())
		}
		if bystanderFailed.Load() != 0 {
			t.Fatalf("%d unexpected answers", bystanderFailed.Load())
		}
	})
}
