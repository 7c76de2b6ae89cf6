package emailcheck

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/internal/clock"
)

// dnsAnswer is what the fake resolver returns for one domain. A nil slice
// with a nil error means "no records of that type", which the real resolver
// reports as a not-found DNSError (NODATA and NXDOMAIN look alike).
type dnsAnswer struct {
	mx      []*net.MX
	mxErr   error
	hosts   []string
	hostErr error
	hang    bool // every lookup blocks until its context ends
}

// fakeResolver serves canned answers; unknown domains are NXDOMAIN. It
// records every name asked so tests can count lookups and check that names
// are fully qualified.
type fakeResolver struct {
	answers map[string]dnsAnswer
	// gate, when set, holds every lookup until it is closed (or the
	// lookup's context ends), to make concurrent checks overlap.
	gate chan struct{}
	// started receives one value per lookup that reached the gate.
	started chan string

	mu        sync.Mutex
	mxCalls   map[string]int
	hostCalls map[string]int
	badNames  []string
}

func newFakeResolver(answers map[string]dnsAnswer) *fakeResolver {
	return &fakeResolver{answers: answers, mxCalls: map[string]int{}, hostCalls: map[string]int{}}
}

func (f *fakeResolver) note(calls map[string]int, name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !strings.HasSuffix(name, ".") {
		f.badNames = append(f.badNames, name)
	}
	d := strings.TrimSuffix(name, ".")
	calls[d]++
	return d
}

func (f *fakeResolver) wait(ctx context.Context, name string, hang bool) error {
	if f.started != nil {
		f.started <- name
	}
	var gate <-chan struct{}
	if f.gate != nil {
		gate = f.gate
	}
	if hang {
		gate = nil
	} else if gate == nil {
		return nil
	}
	select {
	case <-gate:
		return nil
	case <-ctx.Done():
		return &net.DNSError{Err: "i/o timeout", Name: name, IsTimeout: true, IsTemporary: true}
	}
}

func (f *fakeResolver) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	d := f.note(f.mxCalls, name)
	a, ok := f.answers[d]
	if err := f.wait(ctx, name, a.hang); err != nil {
		return nil, err
	}
	if !ok || a.mx == nil && a.mxErr == nil {
		return nil, nxdomain(name)
	}
	return a.mx, a.mxErr
}

func (f *fakeResolver) LookupHost(ctx context.Context, name string) ([]string, error) {
	d := f.note(f.hostCalls, name)
	a, ok := f.answers[d]
	if err := f.wait(ctx, name, a.hang); err != nil {
		return nil, err
	}
	if !ok || a.hosts == nil && a.hostErr == nil {
		return nil, nxdomain(name)
	}
	return a.hosts, a.hostErr
}

func (f *fakeResolver) mxCount(domain string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mxCalls[domain]
}

func (f *fakeResolver) totalCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.mxCalls {
		n += c
	}
	for _, c := range f.hostCalls {
		n += c
	}
	return n
}

func nxdomain(name string) error {
	return &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func servfail(name string) error {
	return &net.DNSError{Err: "server misbehaving", Name: name, Server: "192.0.2.53:53", IsTemporary: true}
}

func dnsTimeout(name string) error {
	return &net.DNSError{Err: "i/o timeout", Name: name, Server: "192.0.2.53:53", IsTimeout: true, IsTemporary: true}
}

func mx(hosts ...string) []*net.MX {
	out := make([]*net.MX, len(hosts))
	for i, h := range hosts {
		out[i] = &net.MX{Host: h, Pref: uint16(10 * (i + 1))}
	}
	return out
}

// standardDNS is the world most tests run in.
func standardDNS() map[string]dnsAnswer {
	return map[string]dnsAnswer{
		"acme.io":          {mx: mx("mx1.acme.io.", "mx2.acme.io.")},
		"gmail.com":        {mx: mx("gmail-smtp-in.l.google.com.")},
		"gmial.com":        {mx: mx("mail.gmial.com.")},
		"xn--bcher-kva.de": {mx: mx("mx.xn--bcher-kva.de.")},
		"nullmx.io":        {mx: mx(".")},
		"aonly.io":         {hosts: []string{"192.0.2.10"}},
		"servfail.io":      {mxErr: servfail("servfail.io.")},
		"slowdns.io":       {mxErr: dnsTimeout("slowdns.io.")},
		"hostfail.io":      {hostErr: servfail("hostfail.io.")},
		"hang.io":          {hang: true},
		"partial.io": {
			mx:    mx("mx.partial.io."),
			mxErr: &net.DNSError{Err: "DNS response contained records which contain invalid names", Name: "partial.io."},
		},
		"malformed.io": {
			mx:    []*net.MX{},
			mxErr: &net.DNSError{Err: "DNS response contained records which contain invalid names", Name: "malformed.io."},
		},
	}
}

var testEpoch = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// newTestChecker builds a Checker on a fake resolver and a fake clock, with
// short timeouts so the hanging cases end quickly.
func newTestChecker(t *testing.T, cfg Config, answers map[string]dnsAnswer) (*Checker, *fakeResolver, *clock.Fake) {
	t.Helper()
	if answers == nil {
		answers = standardDNS()
	}
	res := newFakeResolver(answers)
	clk := clock.NewFake(testEpoch)
	if cfg.Resolver == nil {
		cfg.Resolver = res
	}
	if cfg.Clock == nil {
		cfg.Clock = clk
	}
	if cfg.LookupTimeout == 0 {
		cfg.LookupTimeout = 50 * time.Millisecond
	}
	if cfg.ProviderTimeout == 0 {
		cfg.ProviderTimeout = 50 * time.Millisecond
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		res.mu.Lock()
		defer res.mu.Unlock()
		if len(res.badNames) > 0 {
			t.Errorf("resolver asked for names that are not fully qualified: %q", res.badNames)
		}
	})
	return c, res, clk
}

// fakeProvider answers with a fixed result, records what it was asked, and
// can hang (honouring or ignoring its context).
type fakeProvider struct {
	result ProviderResult
	err    error
	hang   bool          // wait for ctx.Done
	stuck  chan struct{} // if set, wait for this regardless of ctx

	mu  sync.Mutex
	got []string
}

func (p *fakeProvider) Verify(ctx context.Context, address string) (ProviderResult, error) {
	p.mu.Lock()
	p.got = append(p.got, address)
	p.mu.Unlock()
	switch {
	case p.stuck != nil:
		<-p.stuck
	case p.hang:
		<-ctx.Done()
		return ProviderResult{}, ctx.Err()
	}
	return p.result, p.err
}

func (p *fakeProvider) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}
