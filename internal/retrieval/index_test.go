package retrieval

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var zeroTime time.Time

func addTerms(b *builder, id, doc int64, terms string, vec []float32) {
	b.add(newCounter().count(id, doc, terms, vec))
}

type testDoc struct {
	ids   []int64
	terms []string
}

func buildFull(p params, docs map[int64]testDoc, version int64) *snapshot {
	b := emptySnapshot(p).builder()
	for _, id := range slices.Sorted(maps.Keys(docs)) {
		b.addDoc(id, zeroTime)
		for i, pid := range docs[id].ids {
			addTerms(b, pid, id, docs[id].terms[i], nil)
		}
	}
	return b.finish(version)
}

// TestIncrementalMatchesFullBuild drives random adds and removals through
// the incremental builder and checks, after every step, that it ranks
// exactly like an index built from scratch, and that every snapshot
// published earlier still answers exactly as it did (the copy-on-write and
// append-in-place sharing never leak into an older snapshot).
func TestIncrementalMatchesFullBuild(t *testing.T) {
	defer func(v int) { overlayMin = v }(overlayMin)
	overlayMin = 8 // merges now and then, overlay lookups the rest of the time
	rng := rand.New(rand.NewPCG(7, 11))
	vocab := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho " +
		"sigma tau upsilon phi chi psi omega red green blue cyan magenta yellow black white")
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			// Skewed towards the first words, so some lists are long.
			w[i] = vocab[min(rng.IntN(len(vocab)), rng.IntN(len(vocab)))]
		}
		return strings.Join(w, " ")
	}
	queries := []string{"alpha", "beta gamma", "omega red blue", "xi", "black white alpha beta", "nothing"}
	p := params{k1: 1.2, b: 0.75, titleBoost: 2, headingBoost: 1.5}
	live := map[int64]testDoc{}
	snap := emptySnapshot(p)
	type published struct {
		s    *snapshot
		want [][]scored
	}
	var history []published
	nextDoc, nextPassage := int64(1), int64(1)
	for step := int64(0); step < 150; step++ {
		b := snap.builder()
		var removed []int64
		for _, id := range slices.Sorted(maps.Keys(live)) {
			if rng.IntN(6) == 0 || (step%40 == 39 && rng.IntN(2) == 0) { // now and then a mass removal: compaction
				removed = append(removed, id)
				delete(live, id)
			}
		}
		b.remove(removed)
		for range rng.IntN(5) {
			d := testDoc{}
			for range rng.IntN(4) { // zero passages happens too
				d.ids = append(d.ids, nextPassage)
				d.terms = append(d.terms, Analyze(sentence(1+rng.IntN(3)), []string{sentence(2)}, sentence(3+rng.IntN(20))))
				nextPassage++
			}
			b.addDoc(nextDoc, zeroTime)
			for i, pid := range d.ids {
				addTerms(b, pid, nextDoc, d.terms[i], nil)
			}
			live[nextDoc] = d
			nextDoc++
		}
		snap = b.finish(step)
		full := buildFull(p, live, step)
		if snap.live != full.live {
			t.Fatalf("step %d: live %d, full build %d", step, snap.live, full.live)
		}
		var got [][]scored
		for _, q := range queries {
			inc, ful := snap.bm25(Terms(q), 20), full.bm25(Terms(q), 20)
			if !sameRanking(inc, ful) {
				t.Fatalf("step %d query %q:\nincremental %v\nfull build  %v", step, q, inc, ful)
			}
			got = append(got, inc)
		}
		history = append(history, published{snap, got})
		for i, h := range history {
			for j, q := range queries {
				if again := h.s.bm25(Terms(q), 20); !sameRanking(again, h.want[j]) {
					t.Fatalf("step %d: snapshot %d changed its answer to %q", step, i, q)
				}
			}
		}
	}
}

// sameRanking compares ids and scores exactly (slots may differ).
func sameRanking(a, b []scored) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].id != b[i].id || a[i].score != b[i].score {
			return false
		}
	}
	return true
}

func TestTopK(t *testing.T) {
	top := newTopK(3)
	for i, s := range []float64{0.5, 2, 1, 2, 0.1, 3} {
		top.offer(scored{id: int64(i), score: s})
	}
	got := fmt.Sprint(top.sorted())
	if want := "[{0 5 3} {0 1 2} {0 3 2}]"; got != want {
		t.Errorf("top 3 = %s, want %s", got, want)
	}
}

func TestVectorRoundTrip(t *testing.T) {
	v := []float32{0, 1, -1.5, 3.25e-7, 1e30}
	got, err := DecodeVector(EncodeVector(v))
	if err != nil || !cmp.Equal(got, v) {
		t.Fatalf("round trip: %v %v", got, err)
	}
	if b := EncodeVector([]float32{1}); !cmp.Equal(b, []byte{0, 0, 0x80, 0x3f}) {
		t.Errorf("1.0 encodes as % x, want little-endian IEEE 754", b)
	}
	if _, err := DecodeVector([]byte{1, 2, 3}); err == nil {
		t.Error("3 bytes: want an error")
	}
}

// BenchmarkCosine measures brute-force dense scoring, the cost that grows
// with a bot: go test -bench Cosine ./internal/retrieval/
func BenchmarkCosine(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("passages=%d/dims=768", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			bl := emptySnapshot(params{k1: 1.2, b: 0.75, titleBoost: 1, headingBoost: 1}).builder()
			vec := func() []float32 {
				v := make([]float32, 768)
				for i := range v {
					v[i] = rng.Float32() - 0.5
				}
				return normalize(v)
			}
			bl.addDoc(1, zeroTime)
			for i := range n {
				addTerms(bl, int64(i+1), 1, "v1 en\nb word", vec())
			}
			s := bl.finish(1)
			q := vec()
			b.ResetTimer()
			for b.Loop() {
				s.cosine(q, 100)
			}
		})
	}
}

// BenchmarkBuild measures building a 100,000-passage index in memory from
// counted passages (the serial part of a first load): 200 terms a passage
// drawn from a Zipf distribution over 50,000 words.
func BenchmarkBuild(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	z := rand.NewZipf(rand.New(rand.NewPCG(5, 6)), 1.1, 10, 49_999)
	vocab := make([]string, 50_000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x", i*7919)
	}
	const n = 100_000
	ps := make([]*counted, n)
	c := newCounter()
	for i := range ps {
		var sb strings.Builder
		sb.WriteString("v1 en\nb")
		for range 150 + rng.IntN(100) {
			sb.WriteByte(' ')
			sb.WriteString(vocab[z.Uint64()])
		}
		ps[i] = c.count(int64(i+1), int64(i/20+1), sb.String(), nil)
	}
	b.ResetTimer()
	for b.Loop() {
		bl := emptySnapshot(params{k1: 1.2, b: 0.9, titleBoost: 2, headingBoost: 1.5}).builder()
		for d := int64(1); d <= n/20; d++ {
			bl.addDoc(d, zeroTime)
		}
		for _, p := range ps {
			bl.add(p)
		}
		bl.finish(1)
	}
}
