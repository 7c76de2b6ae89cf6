package emailcheck

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// Length limits from RFC 5321 section 4.5.3.1. The path limit of 256 octets
// includes the angle brackets, so an address proper is at most 254.
const (
	maxLocalLen   = 64
	maxDomainLen  = 253
	maxLabelLen   = 63
	maxAddressLen = 254
	// maxInputLen bounds the work done on hostile input before any of the
	// finer checks run; nothing longer can pass them.
	maxInputLen = 1024
)

// address is a syntactically valid address split into its parts.
type address struct {
	local  string // as typed, NFC-normalised
	domain string // lower-case ASCII (A-labels), no trailing dot
}

func (a address) String() string { return a.local + "@" + a.domain }

// syntaxError says why an address is not acceptable; its text is the
// Result.Reason of an invalid_syntax verdict.
type syntaxError string

func (e syntaxError) Error() string { return string(e) }

// parseAddress applies the package's syntax rules (see the package
// documentation for what is accepted and why) and normalises the address.
// Surrounding white space is forgiven because browsers' autofill and pasting
// add it; white space inside is not.
func parseAddress(raw string) (address, error) {
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		return address{}, syntaxError("address is empty")
	case len(s) > maxInputLen:
		return address{}, syntaxError("address is too long")
	case !utf8.ValidString(s):
		return address{}, syntaxError("address is not valid UTF-8")
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return address{}, syntaxError("address has no @")
	}
	local, domain := s[:at], s[at+1:]
	if strings.HasPrefix(local, `"`) {
		return address{}, syntaxError("quoted local parts are not accepted")
	}
	if strings.IndexByte(local, '@') >= 0 {
		return address{}, syntaxError("address has more than one @")
	}
	local, err := checkLocal(local)
	if err != nil {
		return address{}, err
	}
	domain, err = checkDomain(domain)
	if err != nil {
		return address{}, err
	}
	a := address{local: local, domain: domain}
	if len(a.local)+1+len(a.domain) > maxAddressLen {
		return address{}, syntaxError("address is longer than 254 characters")
	}
	return a, nil
}

// checkLocal validates a dot-atom local part (RFC 5322 3.2.3) whose atoms
// may also contain non-ASCII characters (RFC 6531), and returns it in NFC so
// that visually identical addresses compare equal.
func checkLocal(local string) (string, error) {
	if local == "" {
		return "", syntaxError("address has nothing before the @")
	}
	if !isASCII(local) {
		local = norm.NFC.String(local)
	}
	if len(local) > maxLocalLen {
		return "", syntaxError("the part before the @ is longer than 64 characters")
	}
	if local[0] == '.' || local[len(local)-1] == '.' {
		return "", syntaxError("the part before the @ starts or ends with a dot")
	}
	if strings.Contains(local, "..") {
		return "", syntaxError("the part before the @ has two dots in a row")
	}
	for _, r := range local {
		switch {
		case r == '.' || r < utf8.RuneSelf && isAtext(byte(r)):
		case r >= utf8.RuneSelf && unicode.IsGraphic(r) && !unicode.IsSpace(r):
		case unicode.IsSpace(r):
			return "", syntaxError("address contains a space")
		default:
			return "", syntaxError("the part before the @ contains a character that is not allowed: " + quoteRune(r))
		}
	}
	return local, nil
}

// isAtext reports whether c is an RFC 5322 atext character.
func isAtext(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

// checkDomain validates a domain and returns its lower-case ASCII form. It
// accepts only host names with at least two labels and an alphabetic (or
// IDN) top-level label: dotless names cannot receive internet mail (ICANN
// SAC053), and a numeric last label means an IP address, which we do not
// accept as a lead's domain.
func checkDomain(domain string) (string, error) {
	switch {
	case domain == "":
		return "", syntaxError("address has nothing after the @")
	case strings.HasPrefix(domain, "["):
		return "", syntaxError("IP address literals are not accepted")
	case strings.HasSuffix(domain, "."):
		// RFC 5321's Domain grammar has no trailing dot; in a form it is
		// almost always the full stop of a sentence, which the Suggestion
		// offers to remove.
		return "", syntaxError("domain ends with a dot")
	case strings.IndexFunc(domain, unicode.IsSpace) >= 0:
		return "", syntaxError("address contains a space")
	}
	ascii := domain
	if !isASCII(domain) {
		// UTS #46 lookup mapping, as browsers do: it folds case and width,
		// maps ideographic full stops to dots and validates the labels.
		a, err := idna.Lookup.ToASCII(domain)
		if err != nil {
			return "", syntaxError("domain is not a valid internationalised domain name")
		}
		ascii = a
	}
	ascii = strings.ToLower(ascii)
	if len(ascii) > maxDomainLen {
		return "", syntaxError("domain is longer than 253 characters")
	}
	labels := strings.Split(ascii, ".")
	if len(labels) < 2 {
		return "", syntaxError("domain has no dot")
	}
	for _, l := range labels {
		if err := checkLabel(l); err != nil {
			return "", err
		}
	}
	tld := labels[len(labels)-1]
	if isDigits(tld) {
		return "", syntaxError("IP addresses are not accepted as the domain")
	}
	if !strings.HasPrefix(tld, "xn--") && (len(tld) < 2 || !isLetters(tld)) {
		return "", syntaxError("domain does not end in a valid top-level domain")
	}
	if strings.Contains(ascii, "xn--") {
		// A-labels typed directly must decode to a valid U-label; this
		// also rejects "xn--" followed by garbage.
		if _, err := idna.Lookup.ToUnicode(ascii); err != nil {
			return "", syntaxError("domain is not a valid internationalised domain name")
		}
	}
	return ascii, nil
}

// checkLabel enforces the letters-digits-hyphen rule for one ASCII label.
func checkLabel(l string) error {
	switch {
	case l == "":
		return syntaxError("domain has an empty label (two dots in a row or a leading dot)")
	case len(l) > maxLabelLen:
		return syntaxError("a domain label is longer than 63 characters")
	case l[0] == '-' || l[len(l)-1] == '-':
		return syntaxError("a domain label starts or ends with a hyphen")
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return syntaxError("domain contains a character that is not allowed: " + quoteRune(rune(c)))
		}
	}
	return nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// quoteRune renders a rejected character for a Reason without echoing
// control characters into logs or the widget.
func quoteRune(r rune) string {
	if unicode.IsPrint(r) {
		return "'" + string(r) + "'"
	}
	return fmt.Sprintf("U+%04X", r)
}

// repair tries the few mechanical fixes that turn a typical mistyped address
// into a valid one: a trailing full stop, commas for dots, doubled dots and
// stray spaces. It reports false when no repair yields a valid address. It
// only feeds Suggestion and never changes a verdict.
func repair(raw string) (address, bool) {
	s := strings.TrimSpace(raw)
	if len(s) > maxInputLen || strings.Count(s, "@") != 1 {
		return address{}, false
	}
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return -1
		case r == ',':
			return '.'
		}
		return r
	}, s)
	for strings.Contains(s, "..") {
		s = strings.ReplaceAll(s, "..", ".")
	}
	at := strings.IndexByte(s, '@')
	local := strings.Trim(s[:at], ".")
	domain := strings.Trim(s[at+1:], ".")
	a, err := parseAddress(local + "@" + domain)
	return a, err == nil
}
