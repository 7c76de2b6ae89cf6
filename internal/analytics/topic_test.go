package analytics

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
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

// TestDomainConcepts: wordings of businesses the first lexicon was not
// written from fold into the broad classes of topic_domains.go, and their
// near misses stay apart.
func TestDomainConcepts(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"do you cater weddings", "can we host a private party at your place", true},
		{"i need a refill of my prescription", "can i renew my medication", true},
		{"are my blood test results back", "when will i get my lab results", true},
		{"do you serve my area", "do you come out to brighton", true},
		{"is there a minimum contract", "am i locked in for a year", true},
		{"do you sell wholesale", "can i place a bulk order", true},
		{"is it kid friendly", "can i bring my children", true},
		{"do you have an airport shuttle", "can you pick us up from the airport", true},
		{"where can i store my bags", "is there luggage storage", true},
		{"i want to make a complaint", "how do i file a complaint about the service", true},
		{"how much are tickets", "ticket prices?", true},
		{"are your technicians certified", "are you licensed", true},
		{"how do i unsubscribe from the newsletter", "stop sending me marketing emails", true},
		{"how much are tickets", "where is the box office", false},
		{"do you cater weddings", "how much is the wedding package", false},
		{"i need a refill of my prescription", "are my blood test results back", false},
		{"is there a minimum contract", "how do i cancel my contract", false},
		{"do you offer online classes", "what time is the yoga class", false},
	} {
		s := topicSimilarity(Topic(c.a), Topic(c.b))
		if (s >= GroupThreshold) != c.same {
			t.Errorf("%q (%s) ~ %q (%s): similarity %.2f, same %v", c.a, Topic(c.a), c.b, Topic(c.b), s, c.same)
		}
	}
}

// TestTopicLongMessage: a pasted page is read up to its first words only,
// and a cut never splits a character.
func TestTopicLongMessage(t *testing.T) {
	long := "how much does shipping to canada cost? " + strings.Repeat("bla ", 300) + "what about refunds"
	if got, want := Topic(long), Topic("how much does shipping to canada cost? bla"); got != want {
		t.Errorf("Topic(long) = %q, want %q", got, want)
	}
	accents := strings.Repeat("é", maxTopicBytes)
	if got := Topic(accents); !utf8.ValidString(got) {
		t.Errorf("Topic of a cut message is not valid UTF-8: %q", got)
	}
}

// BenchmarkTopicLong: a message of about 500 bytes, pasted details and
// all; Topic reads its first maxTopicBytes.
func BenchmarkTopicLong(b *testing.B) {
	q := strings.Repeat("hi, i ordered a blue jacket last week (order #A-4521) and it still hasn't arrived, can you check the tracking for jo@example.com? ", 4)
	lexicalIndex()
	for b.Loop() {
		Topic(q)
	}
}
