package chat

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// snippetReference is the first, simpler snippet: the one to agree with.
func snippetReference(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndexByte(string(r), ' '); i > n/2 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
}

func TestSnippetAgreesWithReference(t *testing.T) {
	texts := []string{"", "   ", "short", "  two  words  ", "exactly ten",
		"Orders ship from our warehouse in Pune within two business days.\n\nDelivery inside India takes three to five days.",
		strings.Repeat("word ", 100), strings.Repeat("x", 300), "a " + strings.Repeat("y", 300),
		"Ünïcödé\ttext\u00a0with\u2003odd spaces and 日本語のテキスト " + strings.Repeat("é", 50)}
	for _, s := range texts {
		for _, n := range []int{0, 1, 5, 10, 11, 12, 20, 240} {
			if got, want := snippet(s, n), snippetReference(s, n); got != want {
				t.Errorf("snippet(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
	}
}
