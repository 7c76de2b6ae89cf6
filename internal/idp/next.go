package idp

import (
	"errors"
	"net/url"
	"strings"
)

// MaxNext is the longest `next` accepted (spec 4.1).
const MaxNext = 2048

var errNext = errors.New("must be a relative path on this site, such as /bots")

// CheckNext reports whether next is a same-origin relative path: it starts
// with one slash, is not scheme- or protocol-relative in any spelling a
// browser or a router would normalise (`//x`, `/\x`, `/%2F%2Fx`,
// `/%5Cx`), and carries no control characters, backslashes or spaces that
// could split a header or a URL. The empty string is allowed (no next).
func CheckNext(next string) error {
	if next == "" {
		return nil
	}
	if len(next) > MaxNext {
		return errors.New("must be at most 2048 characters")
	}
	if next[0] != '/' {
		return errNext
	}
	for i := 0; i < len(next); i++ {
		c := next[i]
		if c < 0x21 || c == 0x7f || c == '\\' || c >= 0x80 {
			return errNext
		}
	}
	// Decode repeatedly: a frontend or proxy may decode once more than
	// we do, so no decoding of the value may start a second slash.
	v := next
	for range 3 {
		if strings.HasPrefix(v, "//") || strings.HasPrefix(v, "/\\") {
			return errNext
		}
		for i := 0; i < len(v); i++ {
			if c := v[i]; c < 0x20 || c == 0x7f || c == '\\' {
				return errNext
			}
		}
		d, err := url.PathUnescape(v)
		if err != nil {
			return errNext
		}
		if d == v {
			break
		}
		v = d
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return errNext
	}
	return nil
}
