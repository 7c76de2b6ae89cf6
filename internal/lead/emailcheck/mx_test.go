package emailcheck

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"
)

func TestLookupMail(t *testing.T) {
	tests := []struct {
		name   string
		answer dnsAnswer
		want   mxStatus
	}{
		{"mx", dnsAnswer{mx: mx("mx.d.io.")}, mxOK},
		{"null mx", dnsAnswer{mx: mx(".")}, mxNone},
		{"null mx beside a real one", dnsAnswer{mx: mx(".", "mx.d.io.")}, mxOK},
		{"no mx, address", dnsAnswer{hosts: []string{"2001:db8::1"}}, mxOK},
		{"nothing at all", dnsAnswer{}, mxNone},
		{"mx servfail", dnsAnswer{mxErr: servfail("d.io.")}, mxUnknown},
		{"mx timeout", dnsAnswer{mxErr: dnsTimeout("d.io.")}, mxUnknown},
		{"mx context deadline", dnsAnswer{mxErr: context.DeadlineExceeded}, mxUnknown},
		{"mx refused (not a DNSError)", dnsAnswer{mxErr: fmt.Errorf("refused")}, mxUnknown},
		{"no mx, address servfail", dnsAnswer{hostErr: servfail("d.io.")}, mxUnknown},
		{"no mx, empty address answer", dnsAnswer{hosts: []string{}}, mxUnknown},
		{"hang", dnsAnswer{hang: true}, mxUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newFakeResolver(map[string]dnsAnswer{"d.io": tt.answer})
			got := lookupMail(context.Background(), r, "d.io", 20*time.Millisecond)
			if got.status != tt.want {
				t.Errorf("status %v (%q), want %v", got.status, got.reason, tt.want)
			}
			if got.status != mxOK && got.reason == "" {
				t.Error("no reason given")
			}
		})
	}
}

// TestCacheSecondCheckNoLookup: a burst of sign-ups from one domain costs
// one lookup, case differences included.
func TestCacheSecondCheckNoLookup(t *testing.T) {
	c, res, _ := newTestChecker(t, Config{}, nil)
	for _, in := range []string{"a@acme.io", "b@ACME.io", "c@Acme.Io"} {
		if got := c.Check(context.Background(), in); got.Verdict != VerdictValid {
			t.Fatalf("Check(%q) verdict %q", in, got.Verdict)
		}
	}
	if n := res.mxCount("acme.io"); n != 1 {
		t.Errorf("%d MX lookups for acme.io, want 1", n)
	}
}

func TestCacheTTLs(t *testing.T) {
	c, res, clk := newTestChecker(t, Config{PositiveTTL: time.Hour, NegativeTTL: 5 * time.Minute}, nil)
	check := func(in, verdict string) {
		t.Helper()
		if got := c.Check(context.Background(), in); got.Verdict != verdict {
			t.Fatalf("Check(%q) verdict %q, want %q", in, got.Verdict, verdict)
		}
	}
	check("a@acme.io", VerdictValid)
	check("a@nosuch.io", VerdictNoMailServer)
	check("a@nullmx.io", VerdictNoMailServer)

	clk.Advance(4 * time.Minute)
	check("b@acme.io", VerdictValid)
	check("b@nosuch.io", VerdictNoMailServer)
	check("b@nullmx.io", VerdictNoMailServer)
	for _, d := range []string{"acme.io", "nosuch.io", "nullmx.io"} {
		if n := res.mxCount(d); n != 1 {
			t.Errorf("within both TTLs: %d MX lookups for %s, want 1", n, d)
		}
	}

	clk.Advance(2 * time.Minute) // 6m: negative answers expired, positive not
	check("c@acme.io", VerdictValid)
	check("c@nosuch.io", VerdictNoMailServer)
	check("c@nullmx.io", VerdictNoMailServer)
	if n := res.mxCount("acme.io"); n != 1 {
		t.Errorf("positive answer re-looked-up after 6m: %d lookups", n)
	}
	for _, d := range []string{"nosuch.io", "nullmx.io"} {
		if n := res.mxCount(d); n != 2 {
			t.Errorf("negative answer for %s not refreshed after 6m: %d lookups, want 2", d, n)
		}
	}

	clk.Advance(time.Hour)
	check("d@acme.io", VerdictValid)
	if n := res.mxCount("acme.io"); n != 2 {
		t.Errorf("positive answer not refreshed after its TTL: %d lookups, want 2", n)
	}
}

// TestCacheSkipsTemporaryErrors: only definitive answers are remembered; a
// SERVFAIL or timeout is asked again next time.
func TestCacheSkipsTemporaryErrors(t *testing.T) {
	c, res, _ := newTestChecker(t, Config{}, nil)
	for _, d := range []string{"servfail.io", "slowdns.io", "hang.io", "hostfail.io"} {
		for i := range 2 {
			if got := c.Check(context.Background(), fmt.Sprintf("u%d@%s", i, d)); got.Verdict != VerdictUnknown || !got.Valid {
				t.Fatalf("Check(@%s) = %+v, want valid/unknown", d, got)
			}
		}
		if n := res.mxCount(d); n != 2 {
			t.Errorf("%d MX lookups for %s, want 2 (temporary failures are not cached)", n, d)
		}
	}
	if n := c.cache.len(); n != 0 {
		t.Errorf("cache holds %d entries after only temporary failures", n)
	}
}

func TestCacheIsBounded(t *testing.T) {
	answers := map[string]dnsAnswer{}
	for i := range 5 {
		answers[fmt.Sprintf("d%d.io", i)] = dnsAnswer{mx: mx("mx.example.net.")}
	}
	c, res, _ := newTestChecker(t, Config{CacheSize: 2}, answers)
	check := func(d string) {
		t.Helper()
		if got := c.Check(context.Background(), "x@"+d); got.Verdict != VerdictValid {
			t.Fatalf("Check(@%s) verdict %q", d, got.Verdict)
		}
	}
	check("d0.io")
	check("d1.io")
	check("d0.io") // d0 most recently used: d1 is evicted next
	check("d2.io")
	if n := c.cache.len(); n != 2 {
		t.Errorf("cache holds %d entries, want 2", n)
	}
	check("d0.io")
	check("d1.io")
	if got := [3]int{res.mxCount("d0.io"), res.mxCount("d1.io"), res.mxCount("d2.io")}; got != [3]int{1, 2, 1} {
		t.Errorf("MX lookups per domain %v, want [1 2 1] (LRU eviction)", got)
	}
}

func TestCacheDisabled(t *testing.T) {
	c, res, _ := newTestChecker(t, Config{CacheSize: -1}, nil)
	c.Check(context.Background(), "a@acme.io")
	c.Check(context.Background(), "b@acme.io")
	if n := res.mxCount("acme.io"); n != 2 {
		t.Errorf("%d MX lookups with the cache disabled, want 2", n)
	}
}

// TestBurstSharesOneLookup: concurrent checks of one domain while its lookup
// is still in flight wait for that lookup instead of starting their own.
func TestBurstSharesOneLookup(t *testing.T) {
	c, res, _ := newTestChecker(t, Config{LookupTimeout: time.Minute}, nil)
	res.gate = make(chan struct{})
	res.started = make(chan string, 100)

	const n = 32
	results := make(chan Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results <- c.Check(context.Background(), fmt.Sprintf("u%d@acme.io", i)) })
	}
	<-res.started // the one lookup is in flight and held at the gate
	close(res.gate)
	wg.Wait()
	close(results)
	for r := range results {
		if r.Verdict != VerdictValid {
			t.Errorf("burst result %+v", r)
		}
	}
	if got := res.mxCount("acme.io"); got != 1 {
		t.Errorf("%d MX lookups for a burst of %d, want 1", got, n)
	}
}

// TestWaiterCancellationDoesNotCancelLookup: a visitor who leaves stops
// waiting, but the shared lookup finishes and its answer is cached for the
// next visitor.
func TestWaiterCancellationDoesNotCancelLookup(t *testing.T) {
	c, res, _ := newTestChecker(t, Config{LookupTimeout: time.Minute}, nil)
	res.gate = make(chan struct{})
	res.started = make(chan string, 10)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result)
	go func() { done <- c.Check(ctx, "a@acme.io") }()
	<-res.started
	cancel()
	if got := <-done; !got.Valid || got.Verdict != VerdictUnknown {
		t.Errorf("cancelled check = %+v, want valid/unknown", got)
	}
	close(res.gate)
	if got := c.Check(context.Background(), "b@acme.io"); got.Verdict != VerdictValid {
		t.Errorf("next check = %+v, want valid", got)
	}
	if n := res.mxCount("acme.io"); n != 1 {
		t.Errorf("%d MX lookups, want 1: the cancelled caller's lookup should have been reused", n)
	}
}

// TestConcurrentChecks mixes domains, outcomes and a provider under -race.
func TestConcurrentChecks(t *testing.T) {
	p := &fakeProvider{result: ProviderResult{Verdict: ProviderCatchAll}}
	c, res, clk := newTestChecker(t, Config{Provider: p, CacheSize: 3}, nil)
	cases := map[string]string{
		"a@acme.io":        VerdictCatchAll,
		"a@gmail.com":      VerdictCatchAll,
		"a@aonly.io":       VerdictCatchAll,
		"a@nullmx.io":      VerdictNoMailServer,
		"a@nosuch.io":      VerdictNoMailServer,
		"a@servfail.io":    VerdictCatchAll, // DNS unknown, the provider answers
		"a@mailinator.com": VerdictDisposable,
		"abuse@acme.io":    VerdictSpamtrap,
		"a@example.com":    VerdictReservedDomain,
		"a@@acme.io":       VerdictInvalidSyntax,
	}
	var inputs []string
	for in := range cases {
		inputs = append(inputs, in)
	}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				in := inputs[(g*7+i)%len(inputs)]
				got := c.Check(context.Background(), in)
				if got.Verdict != cases[in] {
					t.Errorf("Check(%q) verdict %q, want %q", in, got.Verdict, cases[in])
				}
				if i%10 == 0 {
					clk.Advance(time.Minute) // expire negative entries while others read
				}
			}
		})
	}
	wg.Wait()
	if res.totalCalls() == 0 {
		t.Error("no lookups happened")
	}
	if n := c.cache.len(); n > 3 {
		t.Errorf("cache grew to %d entries past its bound of 3", n)
	}
}

// TestNetResolverSatisfiesResolver documents that production wiring needs no
// adapter. It does not resolve anything.
func TestNetResolverSatisfiesResolver(t *testing.T) {
	var _ Resolver = &net.Resolver{}
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c.resolver != net.DefaultResolver {
		t.Error("zero Config does not use the system resolver")
	}
}
