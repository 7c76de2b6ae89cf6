package emailcheck

import (
	"strings"
	"testing"
)

func TestParseAddressAccepts(t *testing.T) {
	local64 := strings.Repeat("a", 64)
	label63 := strings.Repeat("b", 63)
	// 1 + 1 + 252 = 254, the longest address RFC 5321 allows.
	longDomain := strings.Join([]string{label63, label63, label63, strings.Repeat("c", 60)}, ".")
	tests := []struct {
		in, want string
	}{
		{"jane@acme.io", "jane@acme.io"},
		{"Jane.Doe@Acme.IO", "Jane.Doe@acme.io"}, // local part keeps its case
		{"jane+leads@acme.io", "jane+leads@acme.io"},
		{"jane+@acme.io", "jane+@acme.io"},
		{"j.a.n.e@sub.acme.co.uk", "j.a.n.e@sub.acme.co.uk"},
		{"o'brien@acme.ie", "o'brien@acme.ie"},
		{"first_last-1@acme-corp.com", "first_last-1@acme-corp.com"},
		{"!#$%&'*+-/=?^_`{|}~@acme.io", "!#$%&'*+-/=?^_`{|}~@acme.io"},
		{"a@b.co", "a@b.co"},
		{"123@456.io", "123@456.io"},
		{"  jane@acme.io\t\n", "jane@acme.io"}, // pasted or autofilled white space
		{"info@bücher.de", "info@xn--bcher-kva.de"},
		{"info@BÜCHER.DE", "info@xn--bcher-kva.de"},
		{"info@xn--bcher-kva.de", "info@xn--bcher-kva.de"},
		{"info@ａｃｍｅ.io", "info@acme.io"},            // full-width letters map to ASCII
		{"用户@例子。广告", "用户@xn--fsqu00a.xn--4rr70v"},   // ideographic full stop
		{"jörg@bücher.de", "jörg@xn--bcher-kva.de"}, // RFC 6531 local part
		{"jo\u0308rg@acme.io", "jörg@acme.io"},      // decomposed ö is stored in NFC
		{local64 + "@acme.io", local64 + "@acme.io"},
		{"a@" + label63 + ".io", "a@" + label63 + ".io"},
		{"a@" + longDomain, "a@" + longDomain},
	}
	for _, tt := range tests {
		a, err := parseAddress(tt.in)
		if err != nil {
			t.Errorf("parseAddress(%q): %v", tt.in, err)
			continue
		}
		if got := a.String(); got != tt.want {
			t.Errorf("parseAddress(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseAddressRejects(t *testing.T) {
	label63 := strings.Repeat("b", 63)
	tests := []struct {
		in, reason string
	}{
		{"", "address is empty"},
		{"   ", "address is empty"},
		{"janeacme.io", "address has no @"},
		{"@acme.io", "address has nothing before the @"},
		{"jane@", "address has nothing after the @"},
		{"jane@@acme.io", "address has more than one @"},
		{"jane@acme@io", "address has more than one @"},
		{"jane..doe@acme.io", "the part before the @ has two dots in a row"},
		{".jane@acme.io", "the part before the @ starts or ends with a dot"},
		{"jane.@acme.io", "the part before the @ starts or ends with a dot"},
		{"jane@acme..io", "domain has an empty label (two dots in a row or a leading dot)"},
		{"jane@.acme.io", "domain has an empty label (two dots in a row or a leading dot)"},
		{"jane@acme.io.", "domain ends with a dot"},
		{"jane doe@acme.io", "address contains a space"},
		{"jane@acme .io", "address contains a space"},
		{"jane\n@acme.io", "address contains a space"},
		{"Jane <jane@acme.io>", "address contains a space"},
		{"jane@acme.io (work)", "address contains a space"},
		{"jane(work)@acme.io", "the part before the @ contains a character that is not allowed: '('"},
		{"ja\x00ne@acme.io", "the part before the @ contains a character that is not allowed: U+0000"},
		{"jane\xff@acme.io", "address is not valid UTF-8"},
		{`"jane doe"@acme.io`, "quoted local parts are not accepted"},
		{`"jane"@acme.io`, "quoted local parts are not accepted"},
		{"jane@[192.0.2.1]", "IP address literals are not accepted"},
		{"jane@[IPv6:2001:db8::1]", "IP address literals are not accepted"},
		{"jane@192.0.2.1", "IP addresses are not accepted as the domain"},
		{"jane@localhost", "domain has no dot"},
		{"jane@acme", "domain has no dot"},
		{"jane@acme.c", "domain does not end in a valid top-level domain"},
		{"jane@acme.c0m", "domain does not end in a valid top-level domain"},
		{"jane@-acme.io", "a domain label starts or ends with a hyphen"},
		{"jane@acme-.io", "a domain label starts or ends with a hyphen"},
		{"jane@acme_corp.io", "domain contains a character that is not allowed: '_'"},
		{"jane@acme!.io", "domain contains a character that is not allowed: '!'"},
		{"jane@xn--zz.io", "domain is not a valid internationalised domain name"},
		{"jane@bü_cher.de", "domain is not a valid internationalised domain name"},
		{strings.Repeat("a", 65) + "@acme.io", "the part before the @ is longer than 64 characters"},
		{"a@" + strings.Repeat("b", 64) + ".io", "a domain label is longer than 63 characters"},
		{"a@" + strings.Repeat(label63+".", 4) + "io", "domain is longer than 253 characters"},
		{strings.Repeat("a", 64) + "@" + strings.Repeat(label63+".", 3) + "io", "address is longer than 254 characters"},
		{strings.Repeat("a", 2000) + "@acme.io", "address is too long"},
	}
	for _, tt := range tests {
		_, err := parseAddress(tt.in)
		if err == nil {
			t.Errorf("parseAddress(%q) accepted, want %q", tt.in, tt.reason)
			continue
		}
		if err.Error() != tt.reason {
			t.Errorf("parseAddress(%q) = %q, want %q", tt.in, err, tt.reason)
		}
	}
}

func TestRepair(t *testing.T) {
	tests := []struct {
		in, want string // want "" means no repair
	}{
		{"jane@acme.io.", "jane@acme.io"},
		{"jane@acme,io", "jane@acme.io"},
		{"jane @ acme.io", "jane@acme.io"},
		{"jane@acme..io", "jane@acme.io"},
		{"jane..doe@acme.io", "jane.doe@acme.io"},
		{"jane@@acme.io", ""},
		{"jane", ""},
		{"jane@[192.0.2.1]", ""},
	}
	for _, tt := range tests {
		a, ok := repair(tt.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("repair(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParseAddress checks that whatever is accepted normalises to a fixed
// point within the limits, and that nothing panics.
func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"jane@acme.io", "info@bücher.de", `"x"@y.z`, "a@[1.2.3.4]", "用户@例子。广告", "a@xn--bcher-kva.de"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseAddress(s)
		if err != nil {
			repair(s)
			return
		}
		n := a.String()
		if len(n) > maxAddressLen || len(a.local) > maxLocalLen || len(a.domain) > maxDomainLen {
			t.Fatalf("parseAddress(%q) = %q exceeds a length limit", s, n)
		}
		again, err := parseAddress(n)
		if err != nil || again.String() != n {
			t.Fatalf("normalised %q of %q does not re-parse to itself: %q, %v", n, s, again.String(), err)
		}
	})
}
