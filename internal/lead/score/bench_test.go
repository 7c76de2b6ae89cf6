package score

import (
	"testing"
)

// longTranscript is about 120 turns of realistic chat drawn from the
// labelled set: the size of a long support-and-sales conversation.
func longTranscript(tb testing.TB) []Turn {
	tb.Helper()
	var tr []Turn
	for _, c := range loadCases(tb) {
		if len(tr) >= 120 {
			break
		}
		tr = append(tr, c.Transcript...)
	}
	return tr
}

func BenchmarkScore(b *testing.B) {
	tr := longTranscript(b)
	bytes := 0
	for _, t := range tr {
		bytes += len(t.Text)
	}
	q := qual("meddic")
	in := Input{Transcript: tr, Signals: Signals{Pages: []PageView{{URL: "/pricing", Seconds: 60}}, MeetingBooked: true}}
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Score(q, in)
	}
}

// BenchmarkScoreShort is a typical six-turn chat.
func BenchmarkScoreShort(b *testing.B) {
	c := loadCases(b)[0]
	q, in := c.qualification(), c.input()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Score(q, in)
	}
}
