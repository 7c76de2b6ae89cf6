package retrieval

import (
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// maxQueryTerms bounds the work of one query: each term walks a posting
// list that can be as long as the bot has passages. A 2,048-character
// message has a few hundred terms; the rarest 64 carry nearly all of the
// ranking signal.
const maxQueryTerms = 64

// scored is a candidate: a slot and its score.
type scored struct {
	slot  uint32
	id    int64
	score float64
}

// better orders candidates: higher score first, then lower passage id, so
// ties break the same way on every engine and every run.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id < b.id
}

// accPool recycles score accumulators (one float64 per slot): allocating
// and zeroing 800 KB per query on a 100,000-passage bot would dominate a
// warm search.
var accPool sync.Pool

type accumulator struct {
	scores  []float64
	touched []uint32
}

func getAcc(n int) *accumulator {
	a, _ := accPool.Get().(*accumulator)
	if a == nil {
		a = &accumulator{}
	}
	if cap(a.scores) < n {
		a.scores = make([]float64, n)
	}
	a.scores = a.scores[:n]
	return a
}

func putAcc(a *accumulator) {
	for _, sl := range a.touched {
		a.scores[sl] = 0
	}
	a.touched = a.touched[:0]
	accPool.Put(a)
}

// queryTerm is one distinct query term. A term repeated in the query counts
// once (BM25 with k3 = 0): questions are short, a repeat there is more often
// two words stemming alike than emphasis, and on SciFact it ranked slightly
// better than Lucene's count-weighted sum.
type queryTerm struct {
	term string
	idf  float64
	list []posting
}

// bm25 returns up to k best passages for the analysed query terms.
func (s *snapshot) bm25(terms []string, k int) []scored {
	if s.live == 0 || k <= 0 {
		return nil
	}
	uniq := slices.Clone(terms)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	qts := make([]queryTerm, 0, len(uniq))
	for _, t := range uniq {
		l := s.postings(t)
		if len(l) == 0 {
			continue
		}
		qts = append(qts, queryTerm{term: t, idf: idf(s.live, len(l)), list: l})
	}
	if len(qts) > maxQueryTerms {
		sort.Slice(qts, func(i, j int) bool {
			if qts[i].idf != qts[j].idf {
				return qts[i].idf > qts[j].idf
			}
			return qts[i].term < qts[j].term
		})
		qts = qts[:maxQueryTerms]
	}
	// A fixed order of additions makes every passage's float sum, and so the
	// ranking, independent of map iteration and of the engine.
	sort.Slice(qts, func(i, j int) bool { return qts[i].term < qts[j].term })

	acc := getAcc(len(s.slots))
	defer putAcc(acc)
	k1p1 := s.params.k1 + 1
	for _, qt := range qts {
		w := qt.idf * k1p1
		for _, p := range qt.list {
			tf := float64(p.tf)
			if acc.scores[p.slot] == 0 {
				acc.touched = append(acc.touched, p.slot)
			}
			acc.scores[p.slot] += w * tf / (tf + s.norm[p.slot])
		}
	}
	top := newTopK(k)
	for _, sl := range acc.touched {
		sc := acc.scores[sl]
		if top.full() && sc < top.worst().score {
			continue // cannot enter, whatever its id: no need to read it
		}
		top.offer(scored{slot: sl, id: s.slots[sl].id, score: sc})
	}
	return top.sorted()
}

// cosineChunk is the number of passages one goroutine scores: below it a
// goroutine costs more than it saves; above it, brute force over 100,000
// vectors of 768 dimensions (300 MB, memory-bound) is split across cores.
const cosineChunk = 16_384

// cosine returns up to k passages by cosine similarity to q (unit length),
// over the passages whose embedding has q's dimensions.
func (s *snapshot) cosine(q []float32, k int) []scored {
	if s.vectors == 0 || k <= 0 {
		return nil
	}
	score := func(lo, hi int) *topK {
		top := newTopK(k)
		for i := lo; i < hi; i++ {
			v := s.slots[i].vec
			if len(v) != len(q) || s.slots[i].dead {
				continue
			}
			top.offer(scored{slot: uint32(i), id: s.slots[i].id, score: dot(q, v)})
		}
		return top
	}
	n := len(s.slots)
	parts := min(runtime.GOMAXPROCS(0), (n+cosineChunk-1)/cosineChunk)
	if parts <= 1 {
		return score(0, n).sorted()
	}
	tops := make([]*topK, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { tops[p] = score(p*n/parts, (p+1)*n/parts) })
	}
	wg.Wait()
	all := newTopK(k)
	for _, t := range tops {
		for _, c := range t.h {
			all.offer(c)
		}
	}
	return all.sorted()
}

func dot(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	// Reslicing rather than indexing lets the compiler drop the bounds
	// checks; four accumulators break the dependency chain.
	for len(a) >= 4 && len(b) >= 4 {
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
		a, b = a[4:], b[4:]
	}
	for i := range a {
		s0 += a[i] * b[i]
	}
	return float64(s0 + s1 + s2 + s3)
}

// topK keeps the k best candidates in a heap whose root is the worst.
// The heap is written out rather than container/heap's, which boxes every
// pushed candidate in an interface: an allocation per offer.
type topK struct {
	k int
	h []scored
}

func newTopK(k int) *topK { return &topK{k: k, h: make([]scored, 0, min(k, 1024))} }

// full reports whether a candidate must beat the worst kept one to enter.
func (t *topK) full() bool { return len(t.h) == t.k }

// worst is the worst kept candidate; only when full.
func (t *topK) worst() scored { return t.h[0] }

func (t *topK) offer(c scored) {
	if len(t.h) < t.k {
		t.h = append(t.h, c)
		t.up(len(t.h) - 1)
		return
	}
	if better(c, t.h[0]) {
		t.h[0] = c
		t.down(0)
	}
}

// up and down restore the heap: a parent is never better than its
// children.
func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(t.h[p], t.h[i]) {
			return
		}
		t.h[p], t.h[i] = t.h[i], t.h[p]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.h)
	for {
		w := i
		if l := 2*i + 1; l < n && better(t.h[w], t.h[l]) {
			w = l
		}
		if r := 2*i + 2; r < n && better(t.h[w], t.h[r]) {
			w = r
		}
		if w == i {
			return
		}
		t.h[i], t.h[w] = t.h[w], t.h[i]
		i = w
	}
}

func (t *topK) sorted() []scored {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b scored) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return out
}

// normalize scales v to unit length in place; a zero vector stays zero.
func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}
