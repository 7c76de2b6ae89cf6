package retrieval

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// The in-memory index of one bot is a chain of immutable snapshots. Searches
// read the current snapshot without locks; an update builds the next one and
// publishes it atomically, so a reader never sees a half-built index.
//
// Updates are cheap for the common case (a small ingest into a large bot)
// because the next snapshot shares almost everything with the previous one:
//
//   - a posting list only ever grows by append. The previous snapshot holds
//     the same backing array with a shorter length and never reads past it,
//     so appending in place is invisible to its readers. Only one builder
//     works on a bot at a time and it always starts from the latest
//     snapshot, so no two snapshots ever append to the same array;
//   - lists changed since the last merge live in a small overlay map that is
//     copied per update; the large base map is shared until the overlay
//     grows past an eighth of it;
//   - removing documents filters only the lists that hold their passages
//     (found by one pass over the postings) into new arrays, and leaves the
//     dead slots in place until they are a quarter of all slots, when the
//     whole index is renumbered.

// overlayMin is the overlay size below which it is never merged into the
// base (a variable so that tests can exercise merging on small indexes).
var overlayMin = 256

// posting is one passage's weighted term frequency for one term.
type posting struct {
	slot uint32
	tf   float32 // body + TitleBoost·title + HeadingBoost·heading occurrences
}

// slotInfo is what the index keeps per passage. Titles, texts and URLs stay
// in the database and are read for the hits only, which keeps memory per
// passage to the postings and these few words.
type slotInfo struct {
	id, doc int64
	lens    [3]int32 // title, heading, body terms
	lang    lang
	dead    bool
	vec     []float32 // unit length; nil without an embedding
}

type docEntry struct {
	updated time.Time
	slots   []uint32
}

// params are the scoring constants an index is built with.
type params struct {
	k1, b, titleBoost, headingBoost float64
}

type snapshot struct {
	version int64
	params  params

	slots []slotInfo
	docs  map[int64]docEntry
	base  map[string][]posting
	over  map[string][]posting

	live    int
	dead    int
	vectors int // live passages with an embedding
	sumLens [3]int64
	langs   [numLangs]int

	avgLen     float64
	norm       []float64 // per slot: k1·(1 − b + b·len/avgLen)
	queryLangs []lang    // see queryTerms
}

func emptySnapshot(p params) *snapshot {
	return &snapshot{version: -1, params: p, docs: map[int64]docEntry{},
		base: map[string][]posting{}, over: map[string][]posting{}}
}

// postings returns the list of term t.
func (s *snapshot) postings(t string) []posting {
	if l, ok := s.over[t]; ok {
		return l
	}
	return s.base[t]
}

// length is a passage's weighted length; computed from integer counts so
// that every engine and every build order gives the same float.
func (p params) length(lens [3]int32) float64 {
	return p.titleBoost*float64(lens[0]) + p.headingBoost*float64(lens[1]) + float64(lens[2])
}

// builder turns a snapshot into the next one.
type builder struct {
	s      *snapshot
	cloned bool // s.slots is private to this builder
	// fresh holds the lists of a first build, which shares nothing: a
	// pointer per list costs one map lookup per term instead of a lookup
	// and an assignment, which is most of the time of building an index.
	fresh map[string]*[]posting
}

func (s *snapshot) builder() *builder {
	n := *s
	n.docs = maps.Clone(s.docs)
	n.over = maps.Clone(s.over)
	n.norm = nil
	b := &builder{s: &n}
	if len(s.base) == 0 && len(s.over) == 0 {
		b.fresh = map[string]*[]posting{}
	}
	return b
}

// remove drops documents and their passages.
func (b *builder) remove(docIDs []int64) {
	s := b.s
	gone := false
	for _, id := range docIDs {
		d, ok := s.docs[id]
		if !ok {
			continue
		}
		if !b.cloned {
			s.slots = slices.Clone(s.slots)
			b.cloned = true
		}
		for _, sl := range d.slots {
			si := &s.slots[sl]
			si.dead = true
			s.live--
			s.dead++
			for f := range si.lens {
				s.sumLens[f] -= int64(si.lens[f])
			}
			s.langs[si.lang]--
			if si.vec != nil {
				s.vectors--
				si.vec = nil
			}
			gone = true
		}
		delete(s.docs, id)
	}
	if !gone {
		return
	}
	if s.dead*4 > len(s.slots) {
		b.compact()
		return
	}
	dead := make([]bool, len(s.slots))
	for i := range s.slots {
		dead[i] = s.slots[i].dead
	}
	// One pass over every posting finds the lists that mention a removed
	// passage; only those are copied. The result becomes the new base.
	merged := make(map[string][]posting, len(s.base)+len(s.over))
	put := func(t string, l []posting) {
		for i, p := range l {
			if dead[p.slot] {
				kept := slices.Clone(l[:i])
				for _, q := range l[i+1:] {
					if !dead[q.slot] {
						kept = append(kept, q)
					}
				}
				l = kept
				break
			}
		}
		if len(l) > 0 {
			merged[t] = l
		}
	}
	for t, l := range s.base {
		if _, ok := s.over[t]; !ok {
			put(t, l)
		}
	}
	for t, l := range s.over {
		put(t, l)
	}
	s.base, s.over = merged, map[string][]posting{}
}

// compact renumbers the live passages into a fresh slot array and rewrites
// every posting list.
func (b *builder) compact() {
	s := b.s
	remap := make([]uint32, len(s.slots))
	slots := make([]slotInfo, 0, s.live)
	for i, si := range s.slots {
		if !si.dead {
			remap[i] = uint32(len(slots))
			slots = append(slots, si)
		}
	}
	rewrite := func(l []posting) []posting {
		out := make([]posting, 0, len(l))
		for _, p := range l {
			if !s.slots[p.slot].dead {
				out = append(out, posting{slot: remap[p.slot], tf: p.tf})
			}
		}
		return out
	}
	merged := make(map[string][]posting, len(s.base)+len(s.over))
	for t, l := range s.base {
		if _, ok := s.over[t]; !ok {
			if r := rewrite(l); len(r) > 0 {
				merged[t] = r
			}
		}
	}
	for t, l := range s.over {
		if r := rewrite(l); len(r) > 0 {
			merged[t] = r
		}
	}
	for id, d := range s.docs {
		ns := make([]uint32, len(d.slots))
		for i, sl := range d.slots {
			ns[i] = remap[sl]
		}
		s.docs[id] = docEntry{updated: d.updated, slots: ns}
	}
	s.slots, s.base, s.over, s.dead = slots, merged, map[string][]posting{}, 0
	b.cloned = true
}

// addDoc records a document (possibly without passages, so that it is not
// looked for again until it changes).
func (b *builder) addDoc(id int64, updated time.Time) {
	if _, ok := b.s.docs[id]; !ok {
		b.s.docs[id] = docEntry{updated: updated}
	}
}

// counted is one passage ready to be indexed: its terms counted per field.
// Counting is the bulk of loading an index and needs no shared state, so
// it runs on several goroutines; only add touches the builder.
type counted struct {
	id, doc int64
	lang    lang
	lens    [3]int32 // title, heading, body terms
	terms   []termCount
	vec     []float32
}

type termCount struct {
	term string // points into the terms column value
	n    [3]int32
}

// counter counts the terms of passages; one per goroutine.
type counter struct {
	idx map[string]int32
}

func newCounter() *counter { return &counter{idx: map[string]int32{}} }

func (c *counter) count(id, doc int64, terms string, vec []float32) *counted {
	clear(c.idx)
	p := &counted{id: id, doc: doc, vec: vec}
	p.lang = scanTerms(terms, func(f int, t string) {
		p.lens[f]++
		i, ok := c.idx[t]
		if !ok {
			i = int32(len(p.terms))
			c.idx[t] = i
			p.terms = append(p.terms, termCount{term: t})
		}
		p.terms[i].n[f]++
	})
	return p
}

// add indexes one passage of a document already recorded with addDoc.
func (b *builder) add(p *counted) {
	s := b.s
	slot := uint32(len(s.slots))
	si := slotInfo{id: p.id, doc: p.doc, lang: p.lang, lens: p.lens}
	if len(p.vec) > 0 {
		si.vec = p.vec
		s.vectors++
	}
	s.slots = append(s.slots, si)
	for _, tc := range p.terms {
		tf := float32(s.params.titleBoost*float64(tc.n[0]) + s.params.headingBoost*float64(tc.n[1]) + float64(tc.n[2]))
		if tf <= 0 {
			continue // a field weighted zero: the term must not match at all
		}
		t := tc.term
		if b.fresh != nil {
			l := b.fresh[t]
			if l == nil {
				l = new([]posting)
				b.fresh[strings.Clone(t)] = l
			}
			*l = append(*l, posting{slot: slot, tf: tf})
			continue
		}
		l, ok := s.over[t]
		if !ok {
			l, ok = s.base[t]
			if !ok {
				t = strings.Clone(t) // the key must not pin the whole terms value
			}
		}
		s.over[t] = append(l, posting{slot: slot, tf: tf})
	}
	for f := range si.lens {
		s.sumLens[f] += int64(si.lens[f])
	}
	s.langs[si.lang]++
	s.live++
	d := s.docs[p.doc]
	d.slots = append(d.slots, slot)
	s.docs[p.doc] = d
}

// finish publishes the builder's work as a snapshot of version.
func (b *builder) finish(version int64) *snapshot {
	s := b.s
	s.version = version
	if b.fresh != nil {
		for t, l := range b.fresh {
			s.over[t] = *l
		}
		b.fresh = nil
	}
	if len(s.over) > len(s.base)/8+overlayMin {
		merged := maps.Clone(s.base)
		maps.Copy(merged, s.over)
		s.base, s.over = merged, map[string][]posting{}
	}
	p := s.params
	if s.live > 0 {
		s.avgLen = (p.titleBoost*float64(s.sumLens[0]) + p.headingBoost*float64(s.sumLens[1]) +
			float64(s.sumLens[2])) / float64(s.live)
	}
	s.norm = make([]float64, len(s.slots))
	for i := range s.slots {
		if s.avgLen > 0 {
			s.norm[i] = p.k1 * (1 - p.b + p.b*p.length(s.slots[i].lens)/s.avgLen)
		}
	}
	// The languages a query of unknown language is analysed in: those of at
	// least 5% of the passages, most frequent first, at most three; English
	// when the bot has none.
	s.queryLangs = s.queryLangs[:0:0]
	for l := range s.langs {
		if lang(l) != langUnknown && s.langs[l] > 0 && s.langs[l]*20 >= s.live {
			s.queryLangs = append(s.queryLangs, lang(l))
		}
	}
	slices.SortStableFunc(s.queryLangs, func(a, b lang) int { return s.langs[b] - s.langs[a] })
	if len(s.queryLangs) > 3 {
		s.queryLangs = s.queryLangs[:3]
	}
	if len(s.queryLangs) == 0 {
		s.queryLangs = []lang{langEnglish}
	}
	return s
}

// queryTerms analyses a query. Queries are short, so their language often
// cannot be told ("envío internacional" has no stop word); rather than guess
// and stem differently from the passages, such a query is analysed in each
// of the bot's main languages and the terms are pooled. A passage is
// stemmed one way, so it matches the variant of its own language; the others
// mostly match nothing.
func (s *snapshot) queryTerms(query string) []string { return pool(s.queryVariants(query)) }

// pool is the first stage's query terms from the second stage's variants:
// all of them, in order.
func pool(variants [][]string) []string {
	if len(variants) == 1 {
		return variants[0]
	}
	var terms []string
	for _, v := range variants {
		terms = append(terms, v...)
	}
	return terms
}

// queryVariants are the analyses of a query the second stage reads passages
// with: one in the query's language, or one per main language of the bot
// when it cannot be told (queryTerms pools them for the first stage).
func (s *snapshot) queryVariants(query string) [][]string {
	toks := dropQuestionFrame(segment(query))
	if len(toks) == 0 {
		return nil
	}
	if l := detectLanguage(toks); l != langUnknown {
		return [][]string{dropContractions(emitTerms(toks, l, nil))}
	}
	out := make([][]string, 0, len(s.queryLangs))
	for _, l := range s.queryLangs {
		out = append(out, dropContractions(emitTerms(toks, l, nil)))
	}
	return out
}

// howFrames are the words that, after "how", make the question's frame
// rather than its subject: "how long does shipping take" asks about
// shipping, "how much is the plan" about the plan.
var howFrames = map[string]bool{"long": true, "much": true, "many": true, "often": true, "soon": true, "far": true,
	"fast": true, "quickly": true}

// dropQuestionFrame removes the words of an English question's frame
// ("how long … take", "how much", "how many", "how often", "good for") from its
// tokens. In a small knowledge base every question term weighs about the
// same, and a page that answers "how long does shipping take" rarely says
// "long" or "take".
func dropQuestionFrame(toks []token) []token {
	duration := false
	for i := 1; i < len(toks); i++ {
		if toks[i-1].text == "how" && howFrames[toks[i].text] {
			duration = duration || toks[i].text == "long"
			toks[i].kind = kindDropped
		}
		// "what is X good for": the question is what X is for.
		if toks[i].text == "for" && toks[i-1].text == "good" {
			toks[i-1].kind = kindDropped
		}
	}
	if duration {
		for i := range toks {
			switch toks[i].text {
			case "take", "takes", "took", "taking", "last", "lasts":
				toks[i].kind = kindDropped
			}
		}
	}
	return toks
}

// idf is Lucene's BM25 idf, never negative.
func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// QuestionTerms are the content terms of a visitor's question as the
// second stage weighs them: analysed in the question's language (English
// when it cannot be told), without the question's frame ("how long …
// take", "how much"), apostrophe-less contractions or filler words
// ("please", "tell", "want"). Analytics groups questions by them.
func QuestionTerms(question string) []string {
	toks := dropQuestionFrame(segment(question))
	l := detectLanguage(toks)
	if l == langUnknown {
		l = langEnglish
	}
	terms := dropContractions(emitTerms(toks, l, nil))
	return slices.DeleteFunc(terms, func(t string) bool { return fillers[t] })
}
