package retrieval

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"
)

// termIndex is one passage's terms arranged for the second stage: each
// distinct term once, with the fields it occurs in and its positions in the
// text. The second stage reads a candidate against a handful of question
// terms; with the index that is a binary search per question term, over
// the terms' hashes, instead of a pass over every term of the passage, and
// it is built once per cached passage (cachedPassage.index) rather than on
// every search that finds the passage. Hashes only find the place: a term
// is found when its string is equal, so a collision changes nothing.
type termIndex struct {
	// title and heading are the fields' terms in order (a few words: the
	// phrase signal scans them).
	title, heading []string
	hashes         []uint64 // of terms, ascending
	terms          []string // distinct terms of all three fields, in hash order
	fields         []uint8  // per term: inTitle | inHeading | inBody
	start          []int32  // per term: its positions are pos[start[i]:start[i+1]]
	pos            []int32  // text positions, grouped by term, ascending within a term
	bodyLen        int
	hub            bool // isHub(body) || changelogTitle(title)
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

// newTermIndex indexes parsed terms; title is the passage's title as shown
// (for changelogTitle). The slices point into the terms column value, as
// fieldTerms' do.
func newTermIndex(ft fieldTerms, title string) *termIndex {
	ix := &termIndex{title: ft.title, heading: ft.heading, bodyLen: len(ft.body)}
	n := len(ft.title) + len(ft.heading) + len(ft.body)
	ids := make(map[string]int32, n)
	var distinct []string
	id := func(t string) int32 {
		i, ok := ids[t]
		if !ok {
			i = int32(len(distinct))
			ids[t] = i
			distinct = append(distinct, t)
		}
		return i
	}
	var fields []uint8
	mark := func(f []string, flag uint8) {
		for _, t := range f {
			i := id(t)
			if int(i) == len(fields) {
				fields = append(fields, 0)
			}
			fields[i] |= flag
		}
	}
	mark(ft.title, inTitle)
	mark(ft.heading, inHeading)
	mark(ft.body, inBody)
	// The terms in hash order (ties, which are collisions, by the string).
	order := make([]int32, len(distinct))
	hashes := make([]uint64, len(distinct))
	for i, t := range distinct {
		order[i], hashes[i] = int32(i), termHash(t)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(hashes[a], hashes[b]); c != 0 {
			return c
		}
		return strings.Compare(distinct[a], distinct[b])
	})
	place := make([]int32, len(distinct)) // first-seen id → place in hash order
	ix.hashes = make([]uint64, len(distinct))
	ix.terms = make([]string, len(distinct))
	ix.fields = make([]uint8, len(distinct))
	for k, i := range order {
		place[i] = int32(k)
		ix.hashes[k], ix.terms[k], ix.fields[k] = hashes[i], distinct[i], fields[i]
	}
	// Positions grouped by term: count, then place (a counting sort, which
	// keeps each term's positions ascending).
	rank := make([]int32, len(ft.body))
	ix.start = make([]int32, len(distinct)+1)
	for p, t := range ft.body {
		k := place[ids[t]]
		rank[p] = k
		ix.start[k+1]++
	}
	for k := range distinct {
		ix.start[k+1] += ix.start[k]
	}
	ix.pos = make([]int32, len(ft.body))
	next := slices.Clone(ix.start[:len(distinct)])
	for p, k := range rank {
		ix.pos[next[k]] = int32(p)
		next[k]++
	}
	ix.hub = isHub(ft.body) || changelogTitle(title)
	return ix
}

// lookup returns the fields of term t (whose termHash is h) and its text
// positions; 0 and nil when the passage does not have it.
func (ix *termIndex) lookup(t string, h uint64) (uint8, []int32) {
	lo, hi := 0, len(ix.hashes)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ix.hashes[m] < h {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for i := lo; i < len(ix.hashes) && ix.hashes[i] == h; i++ {
		if ix.terms[i] == t {
			return ix.fields[i], ix.pos[ix.start[i]:ix.start[i+1]]
		}
	}
	return 0, nil
}

// size approximates the index's memory beyond the strings it points into.
func (ix *termIndex) size() int64 {
	return int64(16*(len(ix.title)+len(ix.heading)+len(ix.terms)) + 13*len(ix.terms) + 4*len(ix.pos) + 128)
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
