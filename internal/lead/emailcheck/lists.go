package emailcheck

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// disposableData is the shipped disposable-domain list; see the header of
// the file for where it comes from and how to update it.
//
//go:embed disposable_domains.txt
var disposableData string

// builtinDisposable is parsed once; a malformed shipped list is a build
// defect, caught by the package's tests, so it panics rather than failing
// open at run time.
var builtinDisposable = mustDomainSet(disposableData)

func mustDomainSet(data string) map[string]struct{} {
	domains, err := ParseDomainList(strings.NewReader(data))
	if err != nil {
		panic("emailcheck: shipped disposable_domains.txt: " + err.Error())
	}
	return toSet(domains)
}

// ParseDomainList reads a domain list in the format of the shipped
// disposable_domains.txt: one domain per line, blank lines and comments
// starting with # ignored, internationalised names allowed. Each domain also
// covers its subdomains, so an entry that is itself a public suffix (co.uk,
// pp.ua, github.io) is refused: it would block every domain under it.
// Operators can use it to load an extra list for Config.ExtraDisposable.
func ParseDomainList(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		d, err := normalizeListDomain(s)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read domain list: %w", err)
	}
	return out, nil
}

// normalizeListDomain turns a configured domain into the form Check compares
// against (lower-case ASCII, no trailing dot).
func normalizeListDomain(s string) (string, error) {
	d, err := checkDomain(strings.TrimSuffix(strings.TrimSpace(s), "."))
	if err != nil {
		return "", fmt.Errorf("domain %q: %v", s, err)
	}
	if ps, _ := publicsuffix.PublicSuffix(d); ps == d {
		return "", fmt.Errorf("domain %q is a public suffix; listing it would block every domain under it", s)
	}
	return d, nil
}

func normalizeDomains(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, s := range in {
		d, err := normalizeListDomain(s)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func toSet(domains []string) map[string]struct{} {
	m := make(map[string]struct{}, len(domains))
	for _, d := range domains {
		m[d] = struct{}{}
	}
	return m
}

// matchSuffix reports whether domain or one of its parent domains is in set,
// so that sub.mailinator.com matches mailinator.com.
func matchSuffix(set map[string]struct{}, domain string) bool {
	for d := domain; ; {
		if _, ok := set[d]; ok {
			return true
		}
		i := strings.IndexByte(d, '.')
		if i < 0 {
			return false
		}
		d = d[i+1:]
	}
}

// reservedTLDs can never receive mail from the internet: RFC 2606 and 6761
// (test, example, invalid, localhost), RFC 6762 (local, multicast DNS),
// RFC 7686 (onion), RFC 9476 (alt) and ICANN's 2024 private-use TLD
// (internal).
var reservedTLDs = map[string]struct{}{
	"test": {}, "example": {}, "invalid": {}, "localhost": {},
	"local": {}, "onion": {}, "alt": {}, "internal": {},
}

// reservedDomains are the RFC 2606 second-level example domains and RFC
// 8375's home network domain; their subdomains are reserved too. Answering
// from the list rather than from DNS gives the visitor a clearer reason (a
// customer testing the widget types test@example.com) and needs no lookup.
var reservedDomains = map[string]struct{}{
	"example.com": {}, "example.net": {}, "example.org": {},
	"home.arpa": {},
}

// isReserved reports whether domain (lower-case ASCII) is reserved.
func isReserved(domain string) bool {
	tld := domain[strings.LastIndexByte(domain, '.')+1:]
	if _, ok := reservedTLDs[tld]; ok {
		return true
	}
	return matchSuffix(reservedDomains, domain)
}

// spamtrapLocals are local parts that are never a person who can be followed
// up: mail-operations mailboxes read by the people who report unsolicited
// mail to blocklists (RFC 2142's abuse, postmaster, hostmaster; RFC 5321
// requires postmaster everywhere), the bounce sender, and no-reply
// mailboxes, which accept no replies by definition. Business role accounts
// (info, sales, support, contact, admin, office, hello, ...) are deliberately
// absent: they are legitimate leads.
var spamtrapLocals = map[string]string{
	"abuse":         "abuse@ is a mail-operations mailbox, not a lead",
	"postmaster":    "postmaster@ is a mail-operations mailbox, not a lead",
	"hostmaster":    "hostmaster@ is a mail-operations mailbox, not a lead",
	"mailer-daemon": "mailer-daemon@ is the bounce sender, not a lead",
	"noreply":       "no-reply addresses accept no mail",
	"no-reply":      "no-reply addresses accept no mail",
	"no_reply":      "no-reply addresses accept no mail",
	"no.reply":      "no-reply addresses accept no mail",
	"donotreply":    "no-reply addresses accept no mail",
	"do-not-reply":  "no-reply addresses accept no mail",
	"do_not_reply":  "no-reply addresses accept no mail",
	"do.not.reply":  "no-reply addresses accept no mail",
}

// spamtrapLocal reports whether the local part is a spamtrap mailbox. It
// ignores case and a +tag, since postmaster+x@ reaches postmaster@ wherever
// subaddressing is supported.
func spamtrapLocal(local string) (string, bool) {
	l := strings.ToLower(local)
	if i := strings.IndexByte(l, '+'); i > 0 {
		l = l[:i]
	}
	reason, ok := spamtrapLocals[l]
	return reason, ok
}
