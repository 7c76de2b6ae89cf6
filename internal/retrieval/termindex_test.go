package retrieval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scanPassage is the second stage's reading of a passage before the term
// index (main at 08fa901): a pass over every term of the passage. Kept as
// the reference the indexed reading must equal.
func scanPassage(q queryWeights, ft fieldTerms) (Evidence, []bool) {
	var ev Evidence
	n := len(q.terms)
	flags := make([]uint8, n) // 1: title, 2: heading, 4: matched
	const inTitle, inHead, isMatched = 1, 2, 4
	// Questions have a handful of terms: a linear scan, after a filter on
	// the length and the first byte, beats hashing every term of the
	// passage.
	var lens uint64
	var firsts [256]bool
	for _, qt := range q.terms {
		lens |= 1 << min(len(qt), 63)
		if qt != "" {
			firsts[qt[0]] = true
		}
	}
	find := func(t string) int {
		if t == "" || lens&(1<<min(len(t), 63)) == 0 || !firsts[t[0]] {
			return -1
		}
		for i, qt := range q.terms {
			if qt == t {
				return i
			}
		}
		return -1
	}
	for _, t := range ft.title {
		if i := find(t); i >= 0 {
			flags[i] |= inTitle
		}
	}
	for _, t := range ft.heading {
		if i := find(t); i >= 0 {
			flags[i] |= inHead
		}
	}
	pos := make([][]int, n)
	for p, t := range ft.body {
		if i := find(t); i >= 0 {
			pos[i] = append(pos[i], p)
		}
	}
	var cov, title, head float64
	var body [][]int // positions of the weighted terms found in the text
	matched := make([]bool, n)
	for i := range q.terms {
		if flags[i] != 0 || len(pos[i]) > 0 {
			flags[i] |= isMatched
			matched[i] = true
			cov += q.weights[i]
		}
		if flags[i]&inTitle != 0 {
			title += q.weights[i]
		}
		if flags[i]&inHead != 0 {
			head += q.weights[i]
		}
		if len(pos[i]) > 0 && q.weights[i] > 0 {
			body = append(body, pos[i])
		}
	}
	if q.total > 0 {
		ev.Coverage, ev.Title, ev.Heading = cov/q.total, title/q.total, head/q.total
	}
	ev.Proximity = proximity(body)
	ev.Phrase = scanPhrase(q, ft, pos)
	return ev, matched
}

func scanPhrase(q queryWeights, ft fieldTerms, pos [][]int) float64 {
	pairs, found := 0, 0
	for i := 0; i+1 < len(q.terms); i++ {
		if q.weights[i] == 0 || q.weights[i+1] == 0 {
			continue
		}
		pairs++
		a, b := q.terms[i], q.terms[i+1]
		ok := adjacent(ft.title, a, b) || adjacent(ft.heading, a, b)
		for _, p := range pos[i] {
			if ok {
				break
			}
			ok = p+1 < len(ft.body) && ft.body[p+1] == b
		}
		if ok {
			found++
		}
	}
	if pairs == 0 {
		return 0
	}
	return float64(found) / float64(pairs)
}

// scanRerank is the second stage before the term index (main at
// 08fa901), reading each hit with scanPassage: the reference rerank must
// equal.
func (s *snapshot) scanRerank(hits []Hit, variants [][]string) {
	if len(hits) == 0 {
		return
	}
	qs := make([]queryWeights, 0, len(variants))
	for _, v := range variants {
		if q := s.weigh(v); q.total > 0 {
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		// Nothing of the question is left to weigh (all of it frame and
		// stop words: "what's the difference between is and =="): read,
		// and no page answers it.
		for i := range hits {
			hits[i].Evidence = Evidence{Ranked: true}
		}
		return
	}
	best := 0.0
	for i := range hits {
		best = max(best, hits[i].Score)
	}
	type reading struct {
		ft      fieldTerms
		matched []bool // per variant term, for the best variant
		variant int
	}
	reads := make([]reading, len(hits))
	for i := range hits {
		h := &hits[i]
		ft := parseTerms(h.Terms)
		if h.Terms == "" {
			ft = fieldTerms{title: Terms(h.Title), heading: Terms(strings.Join(h.HeadingPath, " ")), body: Terms(h.Text)}
		}
		var ev Evidence
		var bestMatched []bool
		bestV := 0
		for vi, q := range qs {
			e, matched := scanPassage(q, ft)
			if vi == 0 || e.Coverage > ev.Coverage {
				ev, bestMatched, bestV = e, matched, vi
			}
		}
		ev.Listing = h.cached != nil && h.cached.listing
		ev.Hub = ev.Listing || isHub(ft.body) || changelogTitle(h.Title)
		ev.Ranked = true
		ev.Weights = qs[bestV].set
		ev.Missing = qs[bestV].missing / qs[bestV].total
		h.Evidence = ev
		reads[i] = reading{ft: ft, matched: bestMatched, variant: bestV}
	}
	// Page support: the coverage of every candidate passage of the page
	// together.
	type pageKey struct {
		doc     int64
		variant int
	}
	union := map[pageKey][]bool{}
	perDoc := map[int64]int{}
	for i := range hits {
		perDoc[hits[i].DocumentID]++
		k := pageKey{hits[i].DocumentID, reads[i].variant}
		u := union[k]
		if u == nil {
			u = make([]bool, len(reads[i].matched))
		}
		for j, m := range reads[i].matched {
			u[j] = u[j] || m
		}
		union[k] = u
	}
	for i := range hits {
		h := &hits[i]
		q := qs[reads[i].variant]
		u := union[pageKey{h.DocumentID, reads[i].variant}]
		cov := 0.0
		for j, m := range u {
			if m {
				cov += q.weights[j]
			}
		}
		h.Evidence.Page = cov / q.total
		// Many matching sections count; so does the share of the page
		// they are (a one-passage page is not a focused one by itself).
		if n := len(s.docs[h.DocumentID].slots); n > 0 {
			h.Evidence.Passages = n
			c := float64(perDoc[h.DocumentID])
			h.Evidence.Focus = 0.6*min(1, math.Log2(1+c)/math.Log2(1+focusCount)) + 0.4*min(1, c/float64(n))
		}
		ev := &h.Evidence
		bm := 0.0
		if best > 0 {
			bm = h.Score / best
		}
		ev.Score = wBM25*bm + wCoverage*ev.Coverage + wTitle*ev.Title + wHeading*ev.Heading + wProximity*ev.Proximity +
			wPhrase*ev.Phrase + wPage*ev.Page + wFocus*ev.Focus
		switch {
		case ev.Listing:
			ev.Score -= listingPenalty
		case ev.Hub:
			ev.Score -= hubPenalty
		}
		ev.Score = math.Round(ev.Score*1e9) / 1e9 // the same float on every platform and engine
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		switch {
		case a.Evidence.Score > b.Evidence.Score:
			return -1
		case a.Evidence.Score < b.Evidence.Score:
			return 1
		case a.PassageID < b.PassageID:
			return -1
		case a.PassageID > b.PassageID:
			return 1
		}
		return 0
	})
}

// TestRerankEqualsScan: on random candidate lists (several passages of a
// page, pages of several sizes, hand-built hits and stored terms, one or
// two variants of the question), the second stage gives the same order and
// the same evidence, to the bit, as before the term index.
func TestRerankEqualsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vocab := []string{"warranty", "kettle", "return", "delivery", "lamp", "desk", "care", "clean", "filter", "power",
		"cable", "days", "month", "year", "refund", "order", "ship", "boil", "water", "light", "release", "notes", "index"}
	text := func(n int) string {
		out := make([]string, n)
		for i := range out {
			out[i] = vocab[int(r.ExpFloat64()*6)%len(vocab)]
		}
		return strings.Join(out, " ")
	}
	for round := range 300 {
		s := emptySnapshot(params{})
		s.live = 50 + r.IntN(5000)
		for _, v := range vocab {
			s.base[Terms(v)[0]] = make([]posting, 1+r.IntN(s.live))
		}
		s.queryLangs = []lang{langEnglish}
		if round%3 == 0 {
			s.queryLangs = []lang{langEnglish, langFrench}
		}
		var hits []Hit
		for i := range 1 + r.IntN(40) {
			doc := int64(1 + r.IntN(12))
			d := s.docs[doc]
			d.slots = append(d.slots, uint32(i))
			s.docs[doc] = d
			h := Hit{PassageID: int64(1000 - i*7 + r.IntN(5)), DocumentID: doc, Score: float64(r.IntN(20)) / 3,
				Title: text(r.IntN(3)), HeadingPath: []string{text(r.IntN(3))}, Text: text(r.IntN(120))}
			if r.IntN(10) == 0 {
				h.Title = "Release notes"
			}
			if r.IntN(2) == 0 {
				h.Terms = Analyze(h.Title, h.HeadingPath, h.Text)
			}
			hits = append(hits, h)
		}
		hits = slices.CompactFunc(hits, func(a, b Hit) bool { return a.PassageID == b.PassageID })
		question := text(1 + r.IntN(6))
		want, got := slices.Clone(hits), slices.Clone(hits)
		s.scanRerank(want, s.queryVariants(question))
		s.rerank(got, s.queryVariants(question))
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(Hit{})); diff != "" {
			t.Fatalf("round %d, %q (-scan +indexed):\n%s", round, question, diff)
		}
	}
}

// scanProximity is proximity before the term index, sorting every
// position: the reference.
func scanProximity(positions [][]int) float64 {
	m := len(positions)
	if m < 2 {
		return 0
	}
	// Merge the positions, tagged by term, and slide a window that holds
	// every term at least once.
	type at struct{ p, t int }
	var all []at
	for ti, ps := range positions {
		for _, p := range ps {
			all = append(all, at{p, ti})
		}
	}
	slices.SortFunc(all, func(a, b at) int { return a.p - b.p })
	count := make([]int, m)
	have, lo := 0, 0
	span := math.MaxInt
	for _, x := range all {
		if count[x.t] == 0 {
			have++
		}
		count[x.t]++
		for have == m {
			span = min(span, x.p-all[lo].p+1)
			count[all[lo].t]--
			if count[all[lo].t] == 0 {
				have--
			}
			lo++
		}
	}
	if span == math.MaxInt {
		return 0
	}
	return float64(m) / float64(span)
}

func TestProximityEqualsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 5000 {
		text := r.IntN(80)
		m := r.IntN(6)
		positions := make([][]int, m)
		for p := range text {
			if t := r.IntN(m + 3); t < m {
				positions[t] = append(positions[t], p)
			}
		}
		if got, want := proximity(positions), scanProximity(positions); got != want {
			t.Fatalf("%v: %v, want %v", positions, got, want)
		}
	}
}

// TestTopKKeepsTheBest: the heap keeps the k best of any offer order,
// ties broken by id, as a full sort does.
func TestTopKKeepsTheBest(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for range 500 {
		var all []scored
		for i := range r.IntN(200) {
			all = append(all, scored{id: int64(i), score: float64(r.IntN(20))})
		}
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		k := 1 + r.IntN(40)
		top := newTopK(k)
		for _, c := range all {
			top.offer(c)
		}
		want := slices.Clone(all)
		slices.SortFunc(want, func(a, b scored) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		want = want[:min(k, len(want))]
		if got := top.sorted(); !slices.Equal(got, want) {
			t.Fatalf("k %d: %v, want %v", k, got, want)
		}
	}
}

// read is readPassage on a passage's fields, for tests.
func read(q queryWeights, ft fieldTerms) (Evidence, []bool) {
	matched := make([]bool, len(q.terms))
	ev := readPassage(q, newTermIndex(ft, ""), matched)
	return ev, matched
}

func TestTermIndex(t *testing.T) {
	ix := newTermIndex(fields("git clean", "untrack file", "remov untrack file clean file"), "git clean")
	cases := []struct {
		term   string
		fields uint8
		pos    []int32
	}{
		{"git", inTitle, nil},
		{"clean", inTitle | inBody, []int32{3}},
		{"untrack", inHeading | inBody, []int32{1}},
		{"file", inHeading | inBody, []int32{2, 4}},
		{"remov", inBody, []int32{0}},
		{"absent", 0, nil},
	}
	for _, c := range cases {
		f, pos := ix.lookup(c.term)
		if f != c.fields || !slices.Equal(pos, c.pos) {
			t.Errorf("%s: fields %b positions %v, want %b %v", c.term, f, pos, c.fields, c.pos)
		}
	}
	if len(ix.entries) != 6 || ix.bodyLen != 5 || len(ix.col) != len("gitcleanuntrackfileremov") {
		t.Errorf("%d entries (body %d, %q), want five distinct terms and a sentinel, five positions", len(ix.entries), ix.bodyLen, ix.col)
	}
	if newTermIndex(fields("", "", ""), "").hub || !newTermIndex(fields("", "", ""), "Release notes for 2.1").hub {
		t.Error("hub: an empty passage is none; release notes are one by their title")
	}
}

// TestIndexedReadingEqualsScan: on random passages and questions over a
// small vocabulary (so that terms repeat, meet in phrases and sit in
// titles and headings), the indexed reading gives the same evidence, to
// the bit, and the same matched terms as the scan it replaced.
func TestIndexedReadingEqualsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 5))
	vocab := make([]string, 40)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("t%d", i)
	}
	words := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = vocab[int(r.ExpFloat64()*8)%len(vocab)]
		}
		return out
	}
	for range 3000 {
		ft := fieldTerms{title: words(r.IntN(4)), heading: words(r.IntN(6)), body: words(r.IntN(150))}
		if r.IntN(10) == 0 { // a hub: every term once
			ft.body = slices.Clone(vocab[:r.IntN(len(vocab))])
		}
		q := testWeights(200+r.IntN(5000), words(1+r.IntN(8)), map[string]int{
			vocab[0]: 150, vocab[1]: 60, vocab[2]: 20, vocab[3]: 5, vocab[5]: 1})
		if r.IntN(4) == 0 && len(q.terms) > 1 {
			q.weights[r.IntN(len(q.terms))] = 0 // a filler
		}
		q.total = 0
		for _, w := range q.weights {
			q.total += w
		}
		want, wantMatched := scanPassage(q, ft)
		got, gotMatched := read(q, ft)
		if diff := cmp.Diff(want, got); diff != "" || !slices.Equal(wantMatched, gotMatched) {
			t.Fatalf("question %v on %+v:\nevidence (-scan +indexed):\n%s\nmatched %v, want %v", q.terms, ft, diff, gotMatched, wantMatched)
		}
		if isHub(ft.body) != newTermIndex(ft, "").hub {
			t.Fatalf("hub of %v: index says %v", ft.body, !isHub(ft.body))
		}
	}
}

// TestIndexedReadingOfAnalysedPassages: the same on real passages as the
// index stores them, with questions analysed as Search does.
func TestIndexedReadingOfAnalysedPassages(t *testing.T) {
	s := emptySnapshot(params{})
	s.live = 1000
	s.queryLangs = []lang{langEnglish}
	passages := []struct{ title, heading, text string }{
		{"git-clean(1)", "DESCRIPTION", "Cleans the working tree by recursively removing files that are not under version control, starting from the current directory. Normally, only files unknown to Git are removed."},
		{"concurrent.futures", "ThreadPoolExecutor", "An Executor subclass that uses a pool of at most max_workers threads to execute calls asynchronously. Deadlocks can occur when the callable associated with a Future waits on the results of another Future."},
		{"Settings", "DATABASES › CONN_MAX_AGE", "Default: 0. The lifetime of a database connection, as an integer of seconds. Use 0 to close database connections at the end of each request."},
		{"Release notes", "Django 4.2", "Psycopg 3 support, comments on columns and tables, mitigation for the BREACH attack, in-memory file storage, custom file storages."},
	}
	questions := []string{"how do I remove untracked files", "thread pool executor deadlock", "how long is a database connection kept",
		"what is CONN_MAX_AGE", "breach attack mitigation", "files files files", "max_workers threads"}
	for _, p := range passages {
		ft := parseTerms(Analyze(p.title, strings.Split(p.heading, " › "), p.text))
		for _, question := range questions {
			q := s.weigh(s.queryTerms(question))
			want, wantMatched := scanPassage(q, ft)
			got, gotMatched := read(q, ft)
			if diff := cmp.Diff(want, got); diff != "" || !slices.Equal(wantMatched, gotMatched) {
				t.Errorf("%q on %q: (-scan +indexed):\n%s\nmatched %v, want %v", question, p.title, diff, gotMatched, wantMatched)
			}
		}
	}
}

// TestFollows covers the phrase signal's adjacency in the text, in order.
func TestFollows(t *testing.T) {
	ix := newTermIndex(fields("", "", "a b x a c b a"), "")
	at := func(t string) []int32 { _, p := ix.lookup(t); return p }
	for _, c := range []struct {
		a, b string
		want bool
	}{{"a", "b", true}, {"a", "c", true}, {"c", "b", true}, {"b", "a", true}, {"b", "c", false}, {"x", "b", false},
		{"c", "a", false}, {"a", "z", false}, {"z", "a", false}} {
		if got := follows(at(c.a), at(c.b)); got != c.want {
			t.Errorf("follows(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestLookupSurvivesCollisions: hashes only narrow the search; terms whose
// hashes collide are told apart by their strings.
func TestLookupSurvivesCollisions(t *testing.T) {
	defer func(h func(string) uint64) { hashTerm = h }(hashTerm)
	hashTerm = func(string) uint64 { return 7 } // every term collides with every other
	ix := newTermIndex(fields("b", "", "a b c a ab"), "")
	for _, c := range []struct {
		term string
		pos  []int32
	}{{"a", []int32{0, 3}}, {"b", []int32{1}}, {"c", []int32{2}}, {"ab", []int32{4}}, {"d", nil}, {"", nil}} {
		if _, pos := ix.lookup(c.term); !slices.Equal(pos, c.pos) {
			t.Errorf("%s: %v, want %v", c.term, pos, c.pos)
		}
	}
}
