package account

import (
	"errors"
	"net/mail"
	"strings"
)

// NormalizeEmail trims and lower-cases an address and checks that it is a
// bare addr-spec with a dotted domain. Lower-casing the local part is not
// strictly RFC 5321, but every real provider treats it so, and one account
// per mailbox matters more.
func NormalizeEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", errors.New("e-mail address is required")
	}
	if len(s) > 254 {
		return "", errors.New("e-mail address is too long")
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return "", errors.New("not a valid e-mail address")
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	if at < 1 || !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") ||
		strings.ContainsAny(s, " \t\r\n\"()<>[]\\,;:") {
		return "", errors.New("not a valid e-mail address")
	}
	return s, nil
}

// IsCountryCode reports whether c looks like an ISO 3166-1 alpha-2 code:
// two upper-case letters, excluding user-assigned codes and the
// placeholders CDNs send (XX unknown, EU/AP regions; T1 and the like fail
// the letters test).
func IsCountryCode(c string) bool {
	if len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' {
		return false
	}
	switch c {
	case "XX", "ZZ", "EU", "AP", "AA", "QM", "QZ":
		return false
	}
	return true
}
