package analytics

import (
	"encoding/json"
	"os"
	"testing"
)

// BenchmarkTopic: the topic of one visitor question, as the chat's write
// path computes it, over the labelled questions in turn.
func BenchmarkTopic(b *testing.B) {
	raw, err := os.ReadFile("testdata/question_groups.json")
	if err != nil {
		b.Fatal(err)
	}
	var set labelledSet
	if err := json.Unmarshal(raw, &set); err != nil {
		b.Fatal(err)
	}
	var qs []string
	for _, g := range set.Groups {
		qs = append(qs, g.Questions...)
	}
	lexicalIndex()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		Topic(qs[i%len(qs)])
		i++
	}
}

// TestTopicDropsIdentifiers: order numbers, sizes, times, addresses,
// links and people's names say which case, not what is asked.
func TestTopicDropsIdentifiers(t *testing.T) {
	for _, c := range []struct{ q, same string }{
		{"can i still cancel order #4521", "can i still cancel my order"},
		{"where is my order 88123", "where is my order"},
		{"can i book with dr lee on monday", "can i book with the dr on monday"},
		{"im 5'8, what size", "what size"},
		{"table for two at 8pm", "table for two"},
		{"please reset the password for jo@example.com", "please reset the password"},
		{"the link https://shop.example.com/p/12 doesn't work", "the link doesn't work"},
	} {
		if got, want := Topic(c.q), Topic(c.same); got != want {
			t.Errorf("Topic(%q) = %q, want %q as for %q", c.q, got, want, c.same)
		}
	}
}
