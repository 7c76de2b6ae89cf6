package emailcheck

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// junkVerdicts are exactly the verdicts with Valid=false.
var junkVerdicts = map[string]bool{
	VerdictInvalidSyntax: true, VerdictReservedDomain: true, VerdictSpamtrap: true,
	VerdictDisposable: true, VerdictNoMailServer: true, VerdictUndeliverable: true,
}

// checkInvariants holds for every Result whatever the input.
func checkInvariants(t *testing.T, in string, r Result) {
	t.Helper()
	if r.Valid == junkVerdicts[r.Verdict] {
		t.Errorf("Check(%q): Valid=%v with verdict %q", in, r.Valid, r.Verdict)
	}
	if r.Verdict != VerdictValid && r.Reason == "" {
		t.Errorf("Check(%q): verdict %q without a reason", in, r.Verdict)
	}
	if (r.Verdict == VerdictInvalidSyntax) != (r.Normalized == "") {
		t.Errorf("Check(%q): verdict %q with Normalized %q", in, r.Verdict, r.Normalized)
	}
	if r.Suggestion != "" && r.Suggestion == r.Normalized {
		t.Errorf("Check(%q): Suggestion repeats the address", in)
	}
}

// TestCheckWithoutProvider runs the local checks and DNS against the fake
// resolver, one row per behaviour the spec names.
func TestCheckWithoutProvider(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Result
	}{
		{"valid", "jane@acme.io", Result{Valid: true, Verdict: VerdictValid, Normalized: "jane@acme.io"}},
		{"plus addressing and case", "Jane.Doe+leads@ACME.io", Result{Valid: true, Verdict: VerdictValid, Normalized: "Jane.Doe+leads@acme.io"}},
		{"idn domain", "info@Bücher.de", Result{Valid: true, Verdict: VerdictValid, Normalized: "info@xn--bcher-kva.de"}},

		{"syntax", "jane@@acme.io", Result{Verdict: VerdictInvalidSyntax, Reason: "address has more than one @"}},
		{"syntax with repair", "jane@acme.io.", Result{Verdict: VerdictInvalidSyntax, Reason: "domain ends with a dot", Suggestion: "jane@acme.io"}},
		{"syntax with repair and typo", "jane@gmial,com", Result{Verdict: VerdictInvalidSyntax, Reason: "domain has no dot", Suggestion: "jane@gmail.com"}},

		{"reserved example.com", "test@example.com", Result{Verdict: VerdictReservedDomain, Reason: "the domain is reserved and cannot receive mail", Normalized: "test@example.com"}},
		{"reserved subdomain", "a@mail.example.org", Result{Verdict: VerdictReservedDomain, Reason: "the domain is reserved and cannot receive mail", Normalized: "a@mail.example.org"}},
		{"reserved .test", "a@shop.test", Result{Verdict: VerdictReservedDomain, Reason: "the domain is reserved and cannot receive mail", Normalized: "a@shop.test"}},
		{"reserved .invalid", "a@x.invalid", Result{Verdict: VerdictReservedDomain, Reason: "the domain is reserved and cannot receive mail", Normalized: "a@x.invalid"}},
		{"reserved .localhost", "a@app.localhost", Result{Verdict: VerdictReservedDomain, Reason: "the domain is reserved and cannot receive mail", Normalized: "a@app.localhost"}},
		{"reserved .example", "a@acme.example", Result{Verdict: VerdictReservedDomain, Reason: "the domain is reserved and cannot receive mail", Normalized: "a@acme.example"}},
		{"reserved .local", "a@printer.local", Result{Verdict: VerdictReservedDomain, Reason: "the domain is reserved and cannot receive mail", Normalized: "a@printer.local"}},
		{"reserved home.arpa", "a@nas.home.arpa", Result{Verdict: VerdictReservedDomain, Reason: "the domain is reserved and cannot receive mail", Normalized: "a@nas.home.arpa"}},
		{"not reserved lookalike", "a@myexample.com", Result{Verdict: VerdictNoMailServer, Reason: "the domain has no mail server", Normalized: "a@myexample.com"}},

		{"spamtrap abuse", "abuse@acme.io", Result{Verdict: VerdictSpamtrap, Reason: "abuse@ is a mail-operations mailbox, not a lead", Normalized: "abuse@acme.io"}},
		{"spamtrap postmaster tagged", "PostMaster+x@acme.io", Result{Verdict: VerdictSpamtrap, Reason: "postmaster@ is a mail-operations mailbox, not a lead", Normalized: "PostMaster+x@acme.io"}},
		{"spamtrap noreply", "no-reply@acme.io", Result{Verdict: VerdictSpamtrap, Reason: "no-reply addresses accept no mail", Normalized: "no-reply@acme.io"}},
		{"spamtrap donotreply", "DoNotReply@acme.io", Result{Verdict: VerdictSpamtrap, Reason: "no-reply addresses accept no mail", Normalized: "DoNotReply@acme.io"}},

		{"disposable", "x@mailinator.com", Result{Verdict: VerdictDisposable, Reason: "the domain belongs to a disposable e-mail service", Normalized: "x@mailinator.com"}},
		{"disposable upper case", "x@YOPMAIL.com", Result{Verdict: VerdictDisposable, Reason: "the domain belongs to a disposable e-mail service", Normalized: "x@yopmail.com"}},
		{"disposable subdomain", "x@team.mailinator.com", Result{Verdict: VerdictDisposable, Reason: "the domain belongs to a disposable e-mail service", Normalized: "x@team.mailinator.com"}},
		{"disposable guerrilla", "x@guerrillamail.de", Result{Verdict: VerdictDisposable, Reason: "the domain belongs to a disposable e-mail service", Normalized: "x@guerrillamail.de"}},
		{"disposable multi-label entry", "x@cool.fr.nf", Result{Verdict: VerdictDisposable, Reason: "the domain belongs to a disposable e-mail service", Normalized: "x@cool.fr.nf"}},
		{"disposable needs a label boundary", "x@notreallymailinator.com", Result{Verdict: VerdictNoMailServer, Reason: "the domain has no mail server", Normalized: "x@notreallymailinator.com"}},

		{"mx present", "x@gmail.com", Result{Valid: true, Verdict: VerdictValid, Normalized: "x@gmail.com"}},
		{"null mx", "x@nullmx.io", Result{Verdict: VerdictNoMailServer, Reason: "the domain declares that it accepts no mail (null MX)", Normalized: "x@nullmx.io"}},
		{"implicit mx from address record", "x@aonly.io", Result{Valid: true, Verdict: VerdictValid, Normalized: "x@aonly.io"}},
		{"nxdomain", "x@nosuchdomain.io", Result{Verdict: VerdictNoMailServer, Reason: "the domain has no mail server", Normalized: "x@nosuchdomain.io"}},
		{"mx servfail fails open", "x@servfail.io", Result{Valid: true, Verdict: VerdictUnknown, Reason: "the mail server lookup failed: temporary DNS failure", Normalized: "x@servfail.io"}},
		{"mx timeout fails open", "x@slowdns.io", Result{Valid: true, Verdict: VerdictUnknown, Reason: "the mail server lookup failed: timeout", Normalized: "x@slowdns.io"}},
		{"address lookup servfail fails open", "x@hostfail.io", Result{Valid: true, Verdict: VerdictUnknown, Reason: "the mail server lookup failed: temporary DNS failure", Normalized: "x@hostfail.io"}},
		{"resolver hangs past the lookup timeout", "x@hang.io", Result{Valid: true, Verdict: VerdictUnknown, Reason: "the mail server lookup failed: timeout", Normalized: "x@hang.io"}},
		{"malformed mx records fail open", "x@malformed.io", Result{Valid: true, Verdict: VerdictUnknown, Reason: "the mail server lookup failed: DNS error", Normalized: "x@malformed.io"}},
		{"usable records beside malformed ones", "x@partial.io", Result{Valid: true, Verdict: VerdictValid, Normalized: "x@partial.io"}},

		{"typo suggestion never changes validity", "jane@gmial.com", Result{Valid: true, Verdict: VerdictValid, Normalized: "jane@gmial.com", Suggestion: "jane@gmail.com"}},
	}
	c, _, _ := newTestChecker(t, Config{}, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.Check(context.Background(), tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			checkInvariants(t, tt.in, got)
		})
	}
}

// TestRoleAccountsAreLeads pins the decision that business role mailboxes
// are never blocked: only the mail-operations and no-reply mailboxes are.
func TestRoleAccountsAreLeads(t *testing.T) {
	c, _, _ := newTestChecker(t, Config{}, nil)
	for _, local := range []string{
		"info", "sales", "support", "contact", "admin", "hello", "office",
		"team", "marketing", "billing", "webmaster", "security", "noc",
		"jobs", "hr", "reply", "abuse.team", "postmaster.jane", "noreply.support.desk",
	} {
		addr := local + "@acme.io"
		if got := c.Check(context.Background(), addr); !got.Valid || got.Verdict != VerdictValid {
			t.Errorf("Check(%q) = %+v, want a valid lead", addr, got)
		}
	}
}

// TestLocalJunkNeedsNoLookup: the cheap checks stop before DNS, so junk
// never costs a query (nor a provider call).
func TestLocalJunkNeedsNoLookup(t *testing.T) {
	p := &fakeProvider{result: ProviderResult{Verdict: ProviderDeliverable}}
	c, res, _ := newTestChecker(t, Config{Provider: p}, nil)
	for _, in := range []string{"bad@", "a@example.com", "abuse@acme.io", "a@mailinator.com", "a@[192.0.2.1]"} {
		if got := c.Check(context.Background(), in); got.Valid {
			t.Errorf("Check(%q) valid, want junk", in)
		}
	}
	if n := res.totalCalls(); n != 0 {
		t.Errorf("resolver called %d times for junk, want 0", n)
	}
	if got := p.asked(); len(got) != 0 {
		t.Errorf("provider asked about junk: %q", got)
	}
}

func TestExtraAndAllowedDomains(t *testing.T) {
	answers := standardDNS()
	answers["yopmail.com"] = dnsAnswer{mx: mx("mx.yopmail.com.")}
	c, _, _ := newTestChecker(t, Config{
		ExtraDisposable: []string{"Burner-Corp.IO", "wegwerf.例子.de"},
		AllowDomains:    []string{"yopmail.com."},
	}, answers)
	tests := []struct {
		in   string
		want string
	}{
		{"x@burner-corp.io", VerdictDisposable},
		{"x@eu.burner-corp.io", VerdictDisposable},
		{"x@wegwerf.xn--fsqu00a.de", VerdictDisposable},
		{"x@yopmail.com", VerdictValid},         // allowed despite the shipped list
		{"x@mailinator.com", VerdictDisposable}, // the shipped list still applies
	}
	for _, tt := range tests {
		if got := c.Check(context.Background(), tt.in); got.Verdict != tt.want {
			t.Errorf("Check(%q) verdict %q, want %q", tt.in, got.Verdict, tt.want)
		}
	}
}

func TestNewRejectsBadDomainLists(t *testing.T) {
	for _, cfg := range []Config{
		{ExtraDisposable: []string{"not a domain"}},
		{ExtraDisposable: []string{"co.uk"}}, // would block every .co.uk address
		{AllowDomains: []string{"-bad-.com"}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", cfg)
		}
	}
}

// TestCheckWithProvider covers the provider verdicts and every way it can
// fail, which must all fail open.
func TestCheckWithProvider(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		provider *fakeProvider
		want     Result
	}{
		{"deliverable", "Jane@ACME.io", &fakeProvider{result: ProviderResult{Verdict: ProviderDeliverable}},
			Result{Valid: true, Verdict: VerdictValid, Normalized: "Jane@acme.io"}},
		{"undeliverable", "jane@acme.io", &fakeProvider{result: ProviderResult{Verdict: ProviderUndeliverable, Reason: "550 5.1.1 user unknown"}},
			Result{Verdict: VerdictUndeliverable, Reason: "550 5.1.1 user unknown", Normalized: "jane@acme.io"}},
		{"undeliverable without reason", "jane@acme.io", &fakeProvider{result: ProviderResult{Verdict: ProviderUndeliverable}},
			Result{Verdict: VerdictUndeliverable, Reason: "the mailbox does not exist", Normalized: "jane@acme.io"}},
		{"catch-all is let through", "jane@acme.io", &fakeProvider{result: ProviderResult{Verdict: ProviderCatchAll}},
			Result{Valid: true, Verdict: VerdictCatchAll, Reason: "the domain accepts mail for any mailbox, so this one cannot be confirmed", Normalized: "jane@acme.io"}},
		{"unknown is let through", "jane@acme.io", &fakeProvider{result: ProviderResult{Verdict: ProviderUnknown}},
			Result{Valid: true, Verdict: VerdictUnknown, Reason: "the verification service could not confirm the mailbox", Normalized: "jane@acme.io"}},
		{"unrecognised verdict is let through", "jane@acme.io", &fakeProvider{result: ProviderResult{Verdict: "risky"}},
			Result{Valid: true, Verdict: VerdictUnknown, Reason: "the verification service could not confirm the mailbox", Normalized: "jane@acme.io"}},
		{"provider down", "jane@acme.io", &fakeProvider{err: errors.New("dial tcp: connection refused")},
			Result{Valid: true, Verdict: VerdictUnknown, Reason: "the verification service is unavailable", Normalized: "jane@acme.io"}},
		{"provider slow", "jane@acme.io", &fakeProvider{hang: true},
			Result{Valid: true, Verdict: VerdictUnknown, Reason: "the verification service is unavailable", Normalized: "jane@acme.io"}},
		{"dns unknown, provider decides", "jane@servfail.io", &fakeProvider{result: ProviderResult{Verdict: ProviderUndeliverable, Reason: "no such user"}},
			Result{Verdict: VerdictUndeliverable, Reason: "no such user", Normalized: "jane@servfail.io"}},
		{"dns unknown, provider confirms", "jane@servfail.io", &fakeProvider{result: ProviderResult{Verdict: ProviderDeliverable}},
			Result{Valid: true, Verdict: VerdictValid, Normalized: "jane@servfail.io"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := newTestChecker(t, Config{Provider: tt.provider}, nil)
			got := c.Check(context.Background(), tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			checkInvariants(t, tt.in, got)
			if asked := tt.provider.asked(); len(asked) != 1 || asked[0] != got.Normalized {
				t.Errorf("provider asked %q, want exactly the normalised address %q", asked, got.Normalized)
			}
		})
	}
}

// TestProviderIgnoringContext: a provider that never returns still cannot
// hold the widget beyond ProviderTimeout.
func TestProviderIgnoringContext(t *testing.T) {
	p := &fakeProvider{stuck: make(chan struct{}), result: ProviderResult{Verdict: ProviderUndeliverable}}
	defer close(p.stuck)
	c, _, _ := newTestChecker(t, Config{Provider: p}, nil)
	got := c.Check(context.Background(), "jane@acme.io")
	if !got.Valid || got.Verdict != VerdictUnknown {
		t.Errorf("Check with a stuck provider = %+v, want valid/unknown", got)
	}
}

func TestProviderNotAskedWithoutMailServer(t *testing.T) {
	p := &fakeProvider{result: ProviderResult{Verdict: ProviderDeliverable}}
	c, _, _ := newTestChecker(t, Config{Provider: p}, nil)
	if got := c.Check(context.Background(), "x@nullmx.io"); got.Verdict != VerdictNoMailServer {
		t.Errorf("verdict %q, want %q", got.Verdict, VerdictNoMailServer)
	}
	if asked := p.asked(); len(asked) != 0 {
		t.Errorf("provider asked %q for a domain without mail server", asked)
	}
}

func TestCallerCancellationFailsOpen(t *testing.T) {
	p := &fakeProvider{result: ProviderResult{Verdict: ProviderUndeliverable}}
	c, _, _ := newTestChecker(t, Config{Provider: p}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := c.Check(ctx, "jane@hang.io")
	if !got.Valid || got.Verdict != VerdictUnknown {
		t.Errorf("Check on a cancelled context = %+v, want valid/unknown", got)
	}
	if asked := p.asked(); len(asked) != 0 {
		t.Errorf("provider asked %q although nobody waits for the answer", asked)
	}
}

func TestProviderReasonIsSanitised(t *testing.T) {
	long := strings.Repeat("é", 300)
	if got := providerReason(long, "x"); len(got) > maxReasonLen || !strings.HasPrefix(long, got) {
		t.Errorf("providerReason kept %d bytes, want at most %d on a rune boundary", len(got), maxReasonLen)
	}
	if got := providerReason("bad\x00\nthing\xff", "x"); got != "bad  thing" {
		t.Errorf("providerReason = %q", got)
	}
	if got := providerReason("  ", "fallback"); got != "fallback" {
		t.Errorf("providerReason = %q, want the fallback", got)
	}
}
