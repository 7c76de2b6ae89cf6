package emailcheck

import (
	"bufio"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestShippedDisposableList guards the data file: every entry already in
// canonical form, no duplicates, a sensible size, and none of the big real
// mailbox providers (a false positive there would block real leads).
func TestShippedDisposableList(t *testing.T) {
	seen := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(disposableData))
	for line := 1; sc.Scan(); line++ {
		raw := strings.TrimSpace(sc.Text())
		if raw == "" || strings.HasPrefix(raw, "#") {
			continue
		}
		d, err := normalizeListDomain(raw)
		if err != nil {
			t.Errorf("line %d: %v", line, err)
			continue
		}
		if d != raw {
			t.Errorf("line %d: %q is not in canonical form %q", line, raw, d)
		}
		if prev, dup := seen[d]; dup {
			t.Errorf("line %d: %q duplicates line %d", line, d, prev)
		}
		seen[d] = line
	}
	if len(seen) < 300 {
		t.Errorf("shipped list has %d domains, want a few hundred", len(seen))
	}
	if len(builtinDisposable) != len(seen) {
		t.Errorf("builtin set has %d domains, file has %d", len(builtinDisposable), len(seen))
	}
	neverDisposable := append([]string{
		// Forwarding and privacy services real people keep for years.
		"duck.com", "mozmail.com", "simplelogin.com", "addy.io", "anonaddy.com",
		"33mail.com", "spamgourmet.com", "sneakemail.com", "hushmail.com", "cock.li",
	}, popularDomains...)
	for _, d := range neverDisposable {
		if matchSuffix(builtinDisposable, d) {
			t.Errorf("%s is on the disposable list", d)
		}
	}
}

func TestParseDomainList(t *testing.T) {
	in := `# operator list
Burner.Example.NET   # trailing comment, upper case
wegwerf.bücher.de.

  spam-me.io
`
	got, err := ParseDomainList(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"burner.example.net", "wegwerf.xn--bcher-kva.de", "spam-me.io"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseDomainList mismatch (-want +got):\n%s", diff)
	}

	for _, bad := range []string{"ok.io\nnot a domain\n", "github.io\n", "com\n", "a@b.io\n"} {
		if _, err := ParseDomainList(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseDomainList(%q) succeeded, want an error", bad)
		}
	}
	_, err = ParseDomainList(strings.NewReader("ok.io\n\n# c\nco.uk\n"))
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("error %v does not name line 4", err)
	}
}

func TestMatchSuffix(t *testing.T) {
	set := toSet([]string{"mailinator.com", "cool.fr.nf"})
	tests := []struct {
		domain string
		want   bool
	}{
		{"mailinator.com", true},
		{"a.mailinator.com", true},
		{"a.b.mailinator.com", true},
		{"notmailinator.com", false},
		{"mailinator.com.evil.io", false},
		{"cool.fr.nf", true},
		{"x.cool.fr.nf", true},
		{"fr.nf", false},
		{"uncool.fr.nf", false},
	}
	for _, tt := range tests {
		if got := matchSuffix(set, tt.domain); got != tt.want {
			t.Errorf("matchSuffix(%q) = %v, want %v", tt.domain, got, tt.want)
		}
	}
}

func TestIsReserved(t *testing.T) {
	for _, d := range []string{
		"example.com", "www.example.com", "example.net", "example.org", "a.example",
		"b.test", "c.invalid", "d.localhost", "e.local", "f.onion", "g.internal", "h.alt", "home.arpa", "nas.home.arpa",
	} {
		if !isReserved(d) {
			t.Errorf("isReserved(%q) = false", d)
		}
	}
	for _, d := range []string{"example.co", "examples.com", "test.com", "localhost.io", "acme.io", "arpa.io", "testing.dev"} {
		if isReserved(d) {
			t.Errorf("isReserved(%q) = true", d)
		}
	}
}
