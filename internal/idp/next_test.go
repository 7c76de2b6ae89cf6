package idp

import (
	"strings"
	"testing"
)

func TestCheckNext(t *testing.T) {
	good := []string{"", "/", "/bots", "/bots/1?tab=leads", "/a/b#c", "/%7Euser", "/" + strings.Repeat("x", 2047)}
	for _, s := range good {
		if err := CheckNext(s); err != nil {
			t.Errorf("CheckNext(%q) = %v, want ok", s, err)
		}
	}
	bad := []string{"//evil.com", "/\\evil.com", "/%2F%2Fevil.com", "/%2f/evil.com", "/%5cevil.com", "/%25%32%46%25%32%46evil.com",
		"/%252F%252Fevil.com", "https://evil.com", "javascript:alert(1)", "\t/x", "/x\ty", "/x\r\ny", "/%0d%0a", "/%09", "/%00",
		"x/y", "./x", "?next=/x", "#/x", "/é", "/a b", "/" + strings.Repeat("x", 2048), "/%zz"}
	for _, s := range bad {
		if err := CheckNext(s); err == nil {
			t.Errorf("CheckNext(%q) = ok, want an error", s)
		}
	}
}
