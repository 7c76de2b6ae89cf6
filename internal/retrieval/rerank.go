package retrieval

import (
	"math"
	"regexp"
	"slices"
	"strings"
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
		ft := h.Memo(parsedKey{}, func() any {
			if h.Terms == "" {
				return fieldTerms{title: Terms(h.Title), heading: Terms(strings.Join(h.HeadingPath, " ")), body: Terms(h.Text)}
			}
			return parseTerms(h.Terms)
		}).(fieldTerms)
		var ev Evidence
		var bestMatched []bool
		bestV := 0
		for vi, q := range qs {
			e, matched := readPassage(q, ft)
			if vi == 0 || e.Coverage > ev.Coverage {
				ev, bestMatched, bestV = e, matched, vi
			}
		}
		ev.Listing = h.cached != nil && h.cached.listing
		ev.Hub = ev.Listing || h.Memo(hubKey{}, func() any { return isHub(ft.body) || changelogTitle(h.Title) }).(bool)
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

// parsedKey memoises a passage's parsed terms with the cached passage.
type parsedKey struct{}

// hubKey memoises isHub and changelogTitle of a passage.
type hubKey struct{}

// readPassage measures one passage against one analysis of the question.
// It looks only at the question's terms: positions are kept for them alone.
func readPassage(q queryWeights, ft fieldTerms) (Evidence, []bool) {
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
	ev.Phrase = phrase(q, ft, pos)
	return ev, matched
}

// proximity is m/w for the shortest span of the text (w terms long) that
// holds all m matched terms (their positions given): 1 when they are
// adjacent; 0 with fewer than two.
func proximity(positions [][]int) float64 {
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

// phrase is the share of the question's adjacent weighted term pairs that
// stand adjacent, in that order, in the title, headings or text (pos: the
// text positions of each question term).
func phrase(q queryWeights, ft fieldTerms, pos [][]int) float64 {
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

func adjacent(f []string, a, b string) bool {
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
