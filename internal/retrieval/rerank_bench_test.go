package retrieval_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"concierge/internal/retrieval"
	"concierge/internal/testkit"
)

// BenchmarkSearch measures a warm search of a 4,000-passage bot (the
// passages cached, as under a chat load of recurring questions), with and
// without the second stage. Besides wall time per search it reports the
// process's CPU time per search (cpu-ns/op, garbage collection included),
// which other load on a shared machine inflates far less.
//
//	go test -run '^$' -bench Search -benchtime 3000x ./internal/retrieval/
func BenchmarkSearch(b *testing.B) {
	f := newFixture(b, testkit.SQLite)
	ws := f.workspace()
	bot := f.bot(ws)
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 3000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx", i)
	}
	word := func() string { return words[int(r.ExpFloat64()*300)%len(words)] }
	for d := range 200 {
		var ps []passage
		for range 20 {
			var sb strings.Builder
			for range 120 {
				sb.WriteString(word() + " ")
			}
			ps = append(ps, passage{Title: word() + " " + word(), Heading: []string{word()}, Text: sb.String()})
		}
		f.document(ws, bot, fmt.Sprint("doc", d), "ready", ps...)
	}
	queries := make([]string, 100)
	for i := range queries {
		queries[i] = word() + " " + word() + " " + word() + " " + word()
	}
	for _, first := range []bool{false, true} {
		name := "reranked"
		if first {
			name = "first-stage-only"
		}
		b.Run(name, func(b *testing.B) {
			s := f.service(retrieval.Options{FirstStageOnly: first})
			for _, q := range queries { // warm the index and the passage cache
				if _, err := s.Search(context.Background(), ws, bot, q, 6); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			cpu0 := processCPU(b)
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(context.Background(), ws, bot, queries[i%len(queries)], 6); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the user and system CPU time of this process so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
