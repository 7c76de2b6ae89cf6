package retrieval

import (
	"hash/maphash"
	"slices"
	"strings"
)

// termIndex is one passage's terms arranged for the second stage: each
// distinct term once, with the fields it occurs in and its positions in the
// text. The second stage reads a candidate against a handful of question
// terms; with the index that is a hash probe per question term instead of a
// pass over every term of the passage, and it is built once per cached
// passage (cachedPassage.index) rather than on every search that finds the
// passage. A candidate's index is seldom in the processor's caches (a
// search reads 30 passages of thousands), so a probe touches few cache
// lines: the slot, the entry (the next one tells where its term and
// positions end) and the term's bytes. Hashes only find the place: a term
// is found when its string is equal, so a collision changes nothing.
type termIndex struct {
	entries []termEntry // distinct terms in first-seen order, then a sentinel
	slots   []uint32    // open addressing by hash: entry + 1, 0 for empty; a power of two long
	col     string      // the distinct terms' bytes, back to back in entry order
	pos     []int32     // text positions, grouped by entry, ascending within one
	// title and heading are the fields' terms in order, as entries (a few
	// words: the phrase signal scans them).
	title, heading []int32
	bodyLen        int
	hub            bool // isHub(body) || changelogTitle(title)
}

// termEntry is one distinct term: its text is col[off:] up to the next
// entry's off, its positions pos[start:] up to the next entry's start.
type termEntry struct {
	hash  uint64
	offF  uint32 // off<<3 | fields (inTitle, inHeading, inBody)
	start uint32
}

const (
	inTitle   = 1
	inHeading = 2
	inBody    = 4
)

// termSeed seeds the hashes of term indexes; one per process, as the
// indexes live in memory only.
var termSeed = maphash.MakeSeed()

func termHash(t string) uint64 { return maphash.String(termSeed, t) }

// hashTerm is the hash the indexes use (a variable so that a test can make
// every term collide).
var hashTerm = termHash

// newTermIndex indexes parsed terms; title is the passage's title as shown
// (for changelogTitle).
func newTermIndex(ft fieldTerms, title string) *termIndex {
	ix := &termIndex{bodyLen: len(ft.body)}
	n := len(ft.title) + len(ft.heading) + len(ft.body)
	ids := make(map[string]int32, n)
	var distinct []string
	var fields []uint8
	id := func(t string, flag uint8) int32 {
		i, ok := ids[t]
		if !ok {
			i = int32(len(distinct))
			ids[t] = i
			distinct = append(distinct, t)
			fields = append(fields, 0)
		}
		fields[i] |= flag
		return i
	}
	ix.title = make([]int32, len(ft.title))
	for j, t := range ft.title {
		ix.title[j] = id(t, inTitle)
	}
	ix.heading = make([]int32, len(ft.heading))
	for j, t := range ft.heading {
		ix.heading[j] = id(t, inHeading)
	}
	body := make([]int32, len(ft.body))
	for j, t := range ft.body {
		body[j] = id(t, inBody)
	}
	// Positions grouped by entry: count, then place (a counting sort, which
	// keeps each entry's positions ascending).
	m := len(distinct)
	start := make([]uint32, m+1)
	for _, e := range body {
		start[e+1]++
	}
	for e := range m {
		start[e+1] += start[e]
	}
	ix.pos = make([]int32, len(body))
	next := slices.Clone(start[:m])
	for p, e := range body {
		ix.pos[next[e]] = int32(p)
		next[e]++
	}
	var col strings.Builder
	ix.entries = make([]termEntry, m+1)
	size := 2
	for size < 2*m {
		size *= 2
	}
	ix.slots = make([]uint32, size)
	mask := uint64(size - 1)
	for e, t := range distinct {
		h := hashTerm(t)
		ix.entries[e] = termEntry{hash: h, offF: uint32(col.Len())<<3 | uint32(fields[e]), start: start[e]}
		col.WriteString(t)
		i := h & mask
		for ix.slots[i] != 0 {
			i = (i + 1) & mask
		}
		ix.slots[i] = uint32(e + 1)
	}
	ix.entries[m] = termEntry{offF: uint32(col.Len()) << 3, start: start[m]}
	ix.col = col.String()
	ix.hub = isHub(ft.body) || changelogTitle(title)
	return ix
}

// find returns the entry of term t (whose hashTerm is h), or -1 when the
// passage does not have it.
func (ix *termIndex) find(t string, h uint64) int32 {
	mask := uint64(len(ix.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := ix.slots[i]
		if s == 0 {
			return -1
		}
		e := &ix.entries[s-1]
		if e.hash == h && ix.col[e.offF>>3:ix.entries[s].offF>>3] == t {
			return int32(s - 1)
		}
	}
}

// fields are the fields entry e occurs in.
func (ix *termIndex) fields(e int32) uint8 { return uint8(ix.entries[e].offF & 7) }

// positions are entry e's text positions, ascending.
func (ix *termIndex) positions(e int32) []int32 {
	return ix.pos[ix.entries[e].start:ix.entries[e+1].start]
}

// lookup returns the fields of term t and its text positions; 0 and nil
// when the passage does not have it.
func (ix *termIndex) lookup(t string) (uint8, []int32) {
	e := ix.find(t, hashTerm(t))
	if e < 0 {
		return 0, nil
	}
	return ix.fields(e), ix.positions(e)
}

// size approximates the index's memory beyond the strings it points into.
func (ix *termIndex) size() int64 {
	return int64(16*len(ix.entries) + 4*len(ix.slots) + len(ix.col) + 4*(len(ix.pos)+len(ix.title)+len(ix.heading)) + 160)
}

// indexOf returns the hit's term index: the cached passage's, or one built
// for this search (a hit built by hand, a passage too big to cache).
func (h *Hit) indexOf() *termIndex {
	if h.cached != nil && h.cached.index != nil {
		return h.cached.index
	}
	return hitIndex(h)
}

// hitIndex builds the term index of a hit.
func hitIndex(h *Hit) *termIndex { return passageIndex(h.Terms, h.Title, h.HeadingPath, h.Text) }

// passageIndex builds a passage's term index from its stored terms or,
// without them (a hit built by hand), from its fields analysed with Terms.
func passageIndex(terms, title string, heading []string, text string) *termIndex {
	var ft fieldTerms
	if terms == "" {
		ft = fieldTerms{title: Terms(title), heading: Terms(strings.Join(heading, " ")), body: Terms(text)}
	} else {
		ft = parseTerms(terms)
	}
	return newTermIndex(ft, title)
}
