package retrieval

import (
	"math"
	"regexp"
	"slices"
)

// The second stage. BM25 finds the candidates; this reads the best
// rerankDepth of them the way a person skimming the results would: does
// the passage speak of every rare word of the question, close together,
// in the same order; is it the section (title, headings) about them; does
// the rest of its page speak of them too; is the page a hub that mentions
// everything and explains nothing. Every signal is a plain number kept on
// the hit (Evidence), deterministic and the same on both engines (it reads
// the stored terms, not the database).
const rerankDepth = 30

// Weights of the signals in the second-stage score. The BM25 score enters
// normalised by the best candidate's.
// Tuned on the development half of the documentation question sets with
// SciFact (nDCG@10 ≥ 0.69) as the floor: cmd/kbbench docqa,
// cmd/retrievalbench.
const (
	wBM25      = 1.0
	wCoverage  = 1.0
	wTitle     = 1.2
	wHeading   = 0.3
	wProximity = 0.25
	wPhrase    = 0.25
	wPage      = 0.35
	wFocus     = 0.8
	// wDense weighs the embedding's opinion: a candidate's cosine
	// similarity placed between the lowest (0) and the highest (1) of the
	// candidates'. Chosen among 0, 0.25 and 0.5 on the development halves
	// with a real (if small) model, USE-lite: docs/benchmarks.md, "Dense
	// retrieval with a real model".
	wDense     = 0.5
	hubPenalty = 0.35
	// A page the extractor judged a listing (an index, a module's source)
	// lists the words other pages explain: weighed down harder than a
	// passage that merely reads like one.
	listingPenalty = 1.0
)

// Evidence is why a hit ranks where it does and how well it answers.
type Evidence struct {
	// Coverage is the share of the question's distinct terms, weighted by
	// rarity (idf), found in the passage's title, headings or text.
	Coverage float64 `json:"coverage"`
	// Title is that share found in the page's title alone: the page is
	// about it.
	Title float64 `json:"title"`
	// Heading is that share found in the section's heading path.
	Heading float64 `json:"heading"`
	// Proximity is 1 when the matched terms stand next to each other in
	// the text, falling as the shortest span holding them grows.
	Proximity float64 `json:"proximity"`
	// Phrase is the share of the question's adjacent term pairs that
	// appear adjacent in the passage (phrases, identifiers like pg_dump).
	Phrase float64 `json:"phrase"`
	// Page is the coverage of the passage's page: of all its passages
	// among the candidates together.
	Page float64 `json:"page"`
	// Focus is the share of the page's passages that are candidates: a
	// page about the question matches in many of its sections; a long page
	// that mentions it once (release notes, an index) in few.
	Focus float64 `json:"focus"`
	// Passages is the number of passages of the hit's page (its size).
	Passages int `json:"passages"`
	// Hub is set for passages that read like an index, a list of links or
	// release notes: many distinct terms, each said once.
	Hub bool `json:"hub"`
	// Dense is the passage's cosine similarity to the question with a
	// configured embedding model (0 without one); the second stage weighs
	// it relative to the other candidates' (see wDense).
	Dense float64 `json:"dense,omitempty"`
	// Listing is set for passages of a page that lists rather than
	// explains (extract.Document.Listing): an index, a table of contents,
	// a source listing.
	Listing bool `json:"listing"`
	// Missing is the weight share of question terms the whole knowledge
	// base never uses.
	Missing float64 `json:"missing"`
	// Score is the second-stage score the hits are ordered by.
	Score float64 `json:"score"`
	// Ranked is set when the second stage read the hit (not for hits built
	// by hand, or with Options.FirstStageOnly).
	Ranked bool `json:"-"`
	// Weights are the question's terms with the weights the hit was read
	// with (shared by the hits of one search: read only), so that an
	// answerer can weigh sentences the same way.
	Weights map[string]float64 `json:"-"`
}

// AnswerThreshold is the least Page coverage of the best hit for a reply:
// below it the knowledge base does not speak of enough of the question
// (weighted by rarity) and the honest reply is "I don't know". Calibrated
// on the development half of the documentation question sets
// (cmd/kbbench docqa -evidence): every unanswerable question but a third
// falls below it, 3% of the answerable ones do.
const AnswerThreshold = 0.65

// Answers reports whether a best hit with this evidence is worth answering
// from. Evidence the second stage did not fill answers nothing.
func (e Evidence) Answers() bool { return e.Ranked && e.Page >= AnswerThreshold }

// fillers are question words that carry no weight in coverage: they are
// how visitors ask, not what they ask about.
var fillers = map[string]bool{"way": true, "want": true, "need": true, "pleas": true, "thank": true, "tell": true,
	"know": true, "someth": true, "thing": true, "anyon": true, "someon": true, "explain": true, "mean": true,
	"question": true, "help": true, "possibl": true, "hi": true, "hello": true,
	// "what's the difference between X and Y": the question is about X and Y
	"differ": true, "compar": true, "versus": true, "vs": true}

// contractions typed without the apostrophe ("whats", "dont") are stop
// words in disguise: dropped from queries in both stages, where as rare
// strings they would otherwise weigh the most.
var contractions = map[string]bool{"whats": true, "hows": true, "whys": true, "wheres": true, "whos": true,
	"dont": true, "doesnt": true, "didnt": true, "cant": true, "wont": true, "isnt": true, "arent": true,
	"wasnt": true, "im": true, "ive": true, "youre": true, "thats": true, "theres": true, "lets": true,
	"shouldnt": true, "couldnt": true, "wouldnt": true, "havent": true, "hasnt": true,
	// the same after stemming took the final s ("whats" → "what")
	"what": true, "how": true, "why": true, "where": true, "who": true, "that": true, "there": true}

// dropContractions removes them from analysed query terms, in place.
func dropContractions(terms []string) []string {
	return slices.DeleteFunc(terms, func(t string) bool { return contractions[t] })
}

// queryWeights are the distinct terms of one analysis of the question
// with their weights (idf; fillers zero), in question order.
type queryWeights struct {
	terms   []string
	hashes  []uint64 // termHash of each term
	weights []float64
	set     map[string]float64 // term → weight
	total   float64
	missing float64 // weight of terms no passage contains
}

func (s *snapshot) weigh(terms []string) queryWeights {
	var q queryWeights
	seen := map[string]bool{}
	var missing []bool
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		w := 0.0
		df := -1
		if !fillers[t] {
			// A word the knowledge base never uses weighs as one it uses
			// once.
			df = len(s.postings(t))
			w = idf(s.live, max(df, 1))
		}
		q.terms = append(q.terms, t)
		q.hashes = append(q.hashes, termHash(t))
		q.weights = append(q.weights, w)
		missing = append(missing, df == 0)
	}
	// Rarity means little in a small knowledge base (in ten passages a
	// word found in three looks common, and any everyday word of the
	// question it lacks looks rarest): the weights lean towards equal
	// below smoothPassages passages.
	if a := min(1, float64(s.live)/smoothPassages); a < 1 {
		mean, n := 0.0, 0
		for _, w := range q.weights {
			if w > 0 {
				mean += w
				n++
			}
		}
		if n > 0 {
			mean /= float64(n)
		}
		for i, w := range q.weights {
			if w > 0 {
				q.weights[i] = a*w + (1-a)*mean
			}
		}
	}
	q.set = map[string]float64{}
	for i, w := range q.weights {
		q.total += w
		if missing[i] {
			q.missing += w
		}
		q.set[q.terms[i]] = w
	}
	return q
}

// smoothPassages is the knowledge base size from which term weights are
// plain idf.
const smoothPassages = 2000

// rerank orders hits by the second stage and fills their Evidence. The
// question may have been analysed several ways (variants: one per
// language when it could not be told); each hit is read with the variant
// that explains it best.
func (s *snapshot) rerank(hits []Hit, variants [][]string) {
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
	loCos, hiCos := math.Inf(1), math.Inf(-1)
	for i := range hits {
		best = max(best, hits[i].Score)
		if hits[i].hasCos {
			loCos, hiCos = min(loCos, hits[i].cos), max(hiCos, hits[i].cos)
		}
	}
	// What each hit matched, for the variant that explains it best: one
	// row of matched per hit, in one array.
	width := 0
	for _, q := range qs {
		width = max(width, len(q.terms))
	}
	matchedAll := make([]bool, (len(hits)+1)*width)
	scratch := matchedAll[len(hits)*width:]
	chosen := make([]int, len(hits)) // hit → the variant it was read with
	for i := range hits {
		h := &hits[i]
		ix := h.indexOf()
		var ev Evidence
		bestV := 0
		row := matchedAll[i*width : (i+1)*width]
		for vi, q := range qs {
			if vi == 0 {
				ev = readPassage(q, ix, row)
				continue
			}
			if e := readPassage(q, ix, scratch); e.Coverage > ev.Coverage {
				ev, bestV = e, vi
				copy(row, scratch)
			}
		}
		ev.Listing = h.cached != nil && h.cached.listing
		ev.Hub = ev.Listing || ix.hub
		ev.Ranked = true
		ev.Weights = qs[bestV].set
		ev.Missing = qs[bestV].missing / qs[bestV].total
		h.Evidence = ev
		chosen[i] = bestV
	}
	// Page support: the coverage of every candidate passage of the page
	// together. A search has a few dozen candidates: their pages are found
	// by a linear scan, with a map only for deep searches.
	type page struct {
		doc     int64
		variant int
		union   []bool
	}
	type pageKey struct {
		doc     int64
		variant int
	}
	var pages []page
	var byKey map[pageKey]int
	if len(hits) > 64 {
		byKey = map[pageKey]int{}
	}
	find := func(doc int64, v int) int {
		if byKey != nil {
			if g, ok := byKey[pageKey{doc, v}]; ok {
				return g
			}
			return -1
		}
		return slices.IndexFunc(pages, func(p page) bool { return p.doc == doc && p.variant == v })
	}
	group := make([]int, len(hits)) // hit → its page read with its variant
	perDoc := map[int64]int{}
	for i := range hits {
		doc, v := hits[i].DocumentID, chosen[i]
		row := matchedAll[i*width : i*width+len(qs[v].terms)]
		g := find(doc, v)
		if g < 0 {
			g = len(pages)
			pages = append(pages, page{doc: doc, variant: v, union: make([]bool, len(row))})
			if byKey != nil {
				byKey[pageKey{doc, v}] = g
			}
		}
		group[i] = g
		if hits[i].denseOnly {
			// A passage only the embedding found is read with its page's
			// keyword candidates but does not change their reading (page
			// coverage, focus): they are read as without an embedding.
			continue
		}
		perDoc[doc]++
		for j, m := range row {
			pages[g].union[j] = pages[g].union[j] || m
		}
	}
	for i := range hits {
		h := &hits[i]
		q := qs[chosen[i]]
		u := pages[group[i]].union
		row := matchedAll[i*width : i*width+len(q.terms)]
		cov := 0.0
		for j, m := range u {
			if m || (h.denseOnly && row[j]) {
				cov += q.weights[j]
			}
		}
		h.Evidence.Page = cov / q.total
		// Many matching sections count; so does the share of the page
		// they are (a one-passage page is not a focused one by itself).
		if n := len(s.docs[h.DocumentID].slots); n > 0 {
			h.Evidence.Passages = n
			c := float64(perDoc[h.DocumentID])
			if h.denseOnly {
				c++
			}
			h.Evidence.Focus = 0.6*min(1, math.Log2(1+c)/math.Log2(1+focusCount)) + 0.4*min(1, c/float64(n))
		}
		ev := &h.Evidence
		bm := 0.0
		if best > 0 {
			bm = h.Score / best
		}
		ev.Score = wBM25*bm + wCoverage*ev.Coverage + wTitle*ev.Title + wHeading*ev.Heading + wProximity*ev.Proximity +
			wPhrase*ev.Phrase + wPage*ev.Page + wFocus*ev.Focus
		if h.hasCos {
			ev.Dense = h.cos
			if hiCos > loCos {
				ev.Score += wDense * (h.cos - loCos) / (hiCos - loCos)
			}
		}
		switch {
		case ev.Listing:
			ev.Score -= listingPenalty
		case ev.Hub:
			ev.Score -= hubPenalty
		}
		ev.Score = math.Round(ev.Score*1e9) / 1e9 // the same float on every platform and engine
	}
	// Sort an order rather than the hits themselves (a Hit is a few
	// hundred bytes), then lay the hits out in it.
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := &hits[i], &hits[j]
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
	// Apply the permutation in place, one cycle at a time: hits[i] takes
	// hits[order[i]].
	for i := range order {
		if order[i] < 0 {
			continue
		}
		h := hits[i]
		j := i
		for {
			o := order[j]
			order[j] = -1
			if o == i {
				hits[j] = h
				break
			}
			hits[j] = hits[o]
			j = o
		}
	}
}

// readPassage measures one passage against one analysis of the question,
// marking in matched (one per question term) the terms the passage has.
// It looks up the question's terms in the passage's term index: the work
// is per question term, not per term of the passage.
func readPassage(q queryWeights, ix *termIndex, matched []bool) Evidence {
	var ev Evidence
	var cov, title, head float64
	var stack [8]int32
	var bodyStack [8][]int32
	found := stack[:0]    // each question term's entry, -1 when absent
	body := bodyStack[:0] // positions of the weighted terms found in the text
	for i, t := range q.terms {
		e := ix.find(t, q.hashes[i])
		found = append(found, e)
		matched[i] = e >= 0
		if e < 0 {
			continue
		}
		cov += q.weights[i]
		f := ix.fields(e)
		if f&inTitle != 0 {
			title += q.weights[i]
		}
		if f&inHeading != 0 {
			head += q.weights[i]
		}
		if f&inBody != 0 && q.weights[i] > 0 {
			body = append(body, ix.positions(e))
		}
	}
	if q.total > 0 {
		ev.Coverage, ev.Title, ev.Heading = cov/q.total, title/q.total, head/q.total
	}
	ev.Proximity = proximity(body)
	ev.Phrase = phrase(q, ix, found)
	return ev
}

// proximity is m/w for the shortest span of the text (w terms long) that
// holds all m matched terms (their positions given, ascending): 1 when they
// are adjacent; 0 with fewer than two.
func proximity[P int | int32](positions [][]P) float64 {
	m := len(positions)
	if m < 2 {
		return 0
	}
	for _, ps := range positions {
		if len(ps) == 0 {
			return 0
		}
	}
	// One position of each term at a time, starting from their first: the
	// span from the lowest to the highest, then the term at the lowest
	// moves to its next position, until one has none left. Every shortest
	// span starts at some term's position while the others sit at their
	// first positions after it, so this sees it.
	var buf [8]int
	var next []int
	if m <= len(buf) {
		next = buf[:m]
	} else {
		next = make([]int, m)
	}
	span := math.MaxInt
	for {
		lo, hi, low := math.MaxInt, math.MinInt, 0
		for t, ps := range positions {
			p := int(ps[next[t]])
			if p < lo {
				lo, low = p, t
			}
			hi = max(hi, p)
		}
		span = min(span, hi-lo+1)
		next[low]++
		if next[low] == len(positions[low]) {
			return float64(m) / float64(span)
		}
	}
}

// phrase is the share of the question's adjacent weighted term pairs that
// stand adjacent, in that order, in the title, headings or text (found: the
// entry of each question term in the passage's index, -1 when absent).
func phrase(q queryWeights, ix *termIndex, found []int32) float64 {
	pairs, hits := 0, 0
	for i := 0; i+1 < len(q.terms); i++ {
		if q.weights[i] == 0 || q.weights[i+1] == 0 {
			continue
		}
		pairs++
		a, b := found[i], found[i+1]
		if a < 0 || b < 0 {
			continue
		}
		if adjacent(ix.title, a, b) || adjacent(ix.heading, a, b) || follows(ix.positions(a), ix.positions(b)) {
			hits++
		}
	}
	if pairs == 0 {
		return 0
	}
	return float64(hits) / float64(pairs)
}

// follows tells whether a position of b (ascending) comes right after one
// of a (ascending).
func follows(a, b []int32) bool {
	for j := 0; len(a) > 0 && j < len(b); {
		switch want := a[0] + 1; {
		case b[j] == want:
			return true
		case b[j] < want:
			j++
		default:
			a = a[1:]
		}
	}
	return false
}

func adjacent[T comparable](f []T, a, b T) bool {
	for i := 0; i+1 < len(f); i++ {
		if f[i] == a && f[i+1] == b {
			return true
		}
	}
	return false
}

// isHub tells a passage that lists rather than explains: an index, a table
// of contents, a glossary of one-liners, a changelog. Long enough to judge
// (hubMinTerms), and nearly every term said once: the share of distinct
// terms is above what running prose of that length shows.
func isHub(body []string) bool {
	if len(body) < hubMinTerms {
		return false
	}
	distinct := map[string]struct{}{}
	for _, t := range body {
		distinct[t] = struct{}{}
	}
	return float64(len(distinct))/float64(len(body)) > hubDistinctShare
}

const (
	hubMinTerms      = 60
	hubDistinctShare = 0.85
	focusCount       = 8.0 // candidate passages of one page that count as fully focused
)

// changelogTitle tells release notes and change logs by their title: they
// name every feature once, in passing, and explain none.
func changelogTitle(title string) bool {
	return changelogRE.MatchString(title)
}

var changelogRE = regexp.MustCompile(`(?i)\b(release notes?|what['’]s new|changelog|change log|changes in (version )?[0-9])`)
