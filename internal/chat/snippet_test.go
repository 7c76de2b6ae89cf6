package chat

import (
	"strings"
	"testing"
	"unicode/utf8"

	"concierge/internal/retrieval"
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

// TestSourceScoresFollowTheRanking: a source's score is the one that ranked
// it (the second stage's when it read the hits), so the listed order and
// the scores agree, and a passage only the embedding found (BM25 score 0)
// does not show 0; unread hits show BM25's.
func TestSourceScoresFollowTheRanking(t *testing.T) {
	hits := []retrieval.Hit{
		{DocumentID: 1, Title: "Dense only", Text: "a", Score: 0, Evidence: retrieval.Evidence{Ranked: true, Score: 2.5}},
		{DocumentID: 2, Title: "Keyword", Text: "b", Score: 14.2, Evidence: retrieval.Evidence{Ranked: true, Score: 2.1}},
	}
	got := sourcesOf(hits, nil)
	if len(got) != 2 || got[0].Score != 2.5 || got[1].Score != 2.1 {
		t.Fatalf("ranked sources: %+v", got)
	}
	unread := []retrieval.Hit{{DocumentID: 3, Title: "First stage only", Text: "c", Score: 9.87654}}
	if got := sourcesOf(unread, nil); got[0].Score != 9.8765 {
		t.Fatalf("unread source: %+v", got)
	}
}
