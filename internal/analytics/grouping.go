package analytics

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"math/bits"
	"slices"
	"strings"
)

// GroupThreshold is the least similarity at which a topic joins a group:
// its mean similarity to the group's topics (a weighted Jaccard index over
// their concepts and other words, lexIndex.similarity). Tuned on the dev
// half of testdata/question_groups.json, where 0.40–0.50 score about the
// same.
const GroupThreshold = 0.4

// topicSet is one distinct topic with how often it was asked.
type topicSet struct {
	topic string
	terms []string
	count int
}

// feature is one concept or term of a topic with its weight.
type feature struct {
	id int32
	w  float32
}

// groupTopics clusters topics, most asked first: each topic joins the
// group it is most similar to on average over the group's topics (at least
// GroupThreshold; average linkage, so a group does not drift along a chain
// of near topics), else it leads a new group; then a topic left alone
// joins the group of its nearest topic if that is near enough
// (attachAlone). A group's leading topic is its most asked, so a group
// keeps its name (groupID) while it leads. Deterministic for a given input
// order; callers sort by count, then topic. It returns, per input topic,
// the index of its group's leading topic. Only topics sharing a concept or another word that is more than
// a frame or a generic word are similar (related concepts then add to
// it), so each topic is compared with those only, found by posting lists:
// about 18 ms for 2,000 topics on a loaded 2-core machine
// (BenchmarkGroupTopics).
func groupTopics(topics []topicSet) []int {
	x := lexicalIndex()
	vecs := topicFeatures(topics)
	of := make([]int, len(topics))
	var (
		groupOf  = make([]int32, len(topics))         // topic → group
		leaders  []int                                // group → leading topic
		size     []int32                              // group → topics in it
		simSum   []float64                            // group → Σ similarity to the current topic
		groupAt  []int32                              // group → 1 + the topic it was last scored for
		topicAt  = make([]int32, len(topics))         // topic → 1 + the topic it was last scored for
		postings = make([][]int32, numFeatures(vecs)) // feature → topics with it, grouped so far
		touched  []int32
	)
	for i, v := range vecs {
		stamp := int32(i) + 1
		touched = touched[:0]
		score := func(list []int32) {
			for _, j := range list {
				if topicAt[j] == stamp {
					continue
				}
				topicAt[j] = stamp
				g := groupOf[j]
				if groupAt[g] != stamp {
					groupAt[g], simSum[g] = stamp, 0
					touched = append(touched, g)
				}
				simSum[g] += float64(x.similarity(v, vecs[j]))
			}
		}
		for _, f := range v {
			if f.w > wFrame { // sharing frames and generic words only is no similarity
				score(postings[f.id])
			}
		}
		best, bestSim := int32(-1), 0.0
		for _, g := range touched {
			s := simSum[g] / float64(size[g])
			if s >= GroupThreshold && (s > bestSim || s == bestSim && g < best) {
				best, bestSim = g, s
			}
		}
		if best < 0 {
			best = int32(len(leaders))
			leaders = append(leaders, i)
			size = append(size, 0)
			simSum = append(simSum, 0)
			groupAt = append(groupAt, 0)
		}
		groupOf[i] = best
		size[best]++
		of[i] = leaders[best]
		for _, f := range v {
			if f.w > wFrame {
				postings[f.id] = append(postings[f.id], int32(i))
			}
		}
	}
	if attachAlone(x, vecs, postings, groupOf, size) {
		lead := make([]int, len(size))
		for g := range lead {
			lead[g] = -1
		}
		for i, g := range groupOf {
			if lead[g] < 0 {
				lead[g] = i
			}
			of[i] = lead[g]
		}
	}
	return of
}

// NearestThreshold is the least similarity to its nearest topic at which a
// topic the first pass left alone joins that topic's group: average
// linkage keeps a group from drifting, but a wording of its own that is
// near one of a group's wordings is better shown with them than alone.
const NearestThreshold = 0.5

// attachAlone joins each topic alone in its group (in order) to the
// group of its most similar topic if that is at least NearestThreshold;
// it reports whether any moved. A moved topic leads the group it joins if
// it was asked more.
func attachAlone(x *lexIndex, vecs [][]feature, postings [][]int32, groupOf, size []int32) bool {
	moved := false
	seen := make([]int32, len(vecs)) // topic → 1 + the topic it was last compared with
	for i, v := range vecs {
		cur := groupOf[i]
		if size[cur] != 1 {
			continue
		}
		stamp := int32(i) + 1
		best, bestSim := int32(-1), float32(NearestThreshold)
		for _, f := range v {
			if f.w <= wFrame {
				continue
			}
			for _, j := range postings[f.id] {
				if seen[j] == stamp || groupOf[j] == cur {
					continue
				}
				seen[j] = stamp
				if s := x.similarity(v, vecs[j]); s > bestSim || s == bestSim && best < 0 {
					best, bestSim = j, s
				}
			}
		}
		if best >= 0 {
			g := groupOf[best]
			size[cur]--
			size[g]++
			groupOf[i] = g
			moved = true
		}
	}
	return moved
}

// topicFeatures turns each topic's terms into weighted features: the
// lexicon's concepts with their weights (a term stored by an older Topic
// is folded the same way), generic words and numbers a little, other
// words wUnknown, a near spelling of another topic's word (typos) taken
// as that word. Concepts have the lexicon's ids; words get ids after them.
func topicFeatures(topics []topicSet) [][]feature {
	x := lexicalIndex()
	ids := map[string]int32{}
	id := func(s string) int32 {
		if n, ok := x.conceptID[s]; ok {
			return n
		}
		n, ok := ids[s]
		if !ok {
			n = int32(len(x.conceptID) + len(ids))
			ids[s] = n
		}
		return n
	}
	concepts := map[string][]string{} // a term → its concepts, nil for none
	unknown := map[string]string{}    // an unknown word → the word it is taken as
	words := newNearIndex(nil)
	vecs := make([][]feature, len(topics))
	for i, t := range topics {
		v := make([]feature, 0, len(t.terms))
		put := func(s string, w float64) {
			n := id(s)
			for k := range v {
				if v[k].id == n {
					v[k].w = max(v[k].w, float32(w))
					return
				}
			}
			v = append(v, feature{n, float32(w)})
		}
		for _, term := range t.terms {
			cs, ok := concepts[term]
			if !ok {
				cs, _ = x.conceptsOf(term)
				concepts[term] = cs
			}
			if cs != nil {
				for _, c := range cs {
					put(c, x.weight[c])
				}
				continue
			}
			if hasDigit(term) {
				continue // stored by an older Topic: a number says nothing of what is asked
			}
			if x.generic[term] {
				put(term, wGeneric)
				continue
			}
			canon, ok := unknown[term]
			if !ok {
				canon = term
				if len(term) >= 5 {
					if s, found := words.find(term); found {
						canon = s
					}
				}
				unknown[term] = canon
				if canon == term {
					words.add(term)
				}
			}
			put(canon, wUnknown)
		}
		slices.SortFunc(v, func(a, b feature) int { return cmp.Compare(a.id, b.id) })
		vecs[i] = v
	}
	return vecs
}

// numFeatures is one more than the largest feature id of vecs.
func numFeatures(vecs [][]feature) int {
	n := int32(len(lexicalIndex().conceptID))
	for _, v := range vecs {
		for _, f := range v {
			n = max(n, f.id+1)
		}
	}
	return int(n)
}

// similarity of two topics' features: a weighted Jaccard index, Σ of the
// weights both have / Σ of the weights either has, where a concept of one
// related to a concept of the other (x.related: "refund" and "return")
// counts as that share of the lighter weight. Sharing only frames and
// generic words ("available", "when", "get", "week") is no similarity.
func (x *lexIndex) similarity(a, b []feature) float32 {
	var shared, total float32
	key := false
	var used, unmatched uint64 // b's features matched, a's not, by index (a topic has a few dozen at most)
	// Features are sorted by id: a merge.
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].id == b[j].id:
			used |= 1 << (j & 63)
			shared += min(a[i].w, b[j].w)
			key = key || a[i].w > wFrame
			i++
			j++
		case a[i].id < b[j].id:
			if a[i].id < int32(len(x.related)) && len(x.related[a[i].id]) > 0 {
				unmatched |= 1 << (i & 63)
			}
			i++
		default:
			j++
		}
	}
	for ; i < len(a); i++ {
		if a[i].id < int32(len(x.related)) && len(x.related[a[i].id]) > 0 {
			unmatched |= 1 << (i & 63)
		}
	}
	for _, f := range a {
		total += f.w
	}
	for _, g := range b {
		total += g.w
	}
	for ; unmatched != 0; unmatched &= unmatched - 1 {
		f := a[bits.TrailingZeros64(unmatched)]
		best, bestM := float32(0), -1
		for _, r := range x.related[f.id] {
			for m, g := range b {
				if used&(1<<(m&63)) == 0 && r.id == g.id && r.f*min(f.w, g.w) > best {
					best, bestM = r.f*min(f.w, g.w), m
				}
			}
		}
		if bestM >= 0 {
			used |= 1 << (bestM & 63)
			shared += best
			key = true
		}
	}
	if !key {
		return 0
	}
	return shared / (total - shared)
}

// topicSimilarity is the similarity of two questions' topics the grouping
// uses, in [0, 1].
func topicSimilarity(a, b string) float64 {
	vecs := topicFeatures([]topicSet{{terms: splitTopic(a)}, {terms: splitTopic(b)}})
	return float64(lexicalIndex().similarity(vecs[0], vecs[1]))
}

// nearIndex finds, among a set of words, one within near spelling
// (sameTerm) of a given word, by the words' single-deletion neighbourhoods:
// two words within one edit share a key (a word, or it less one letter).
type nearIndex struct {
	keys map[string][]string // key → words, in the order added
}

func newNearIndex(words []string) *nearIndex {
	n := &nearIndex{keys: map[string][]string{}}
	for _, w := range words {
		n.add(w)
	}
	return n
}

func (n *nearIndex) add(w string) {
	deletions(w, func(k string) { n.keys[k] = append(n.keys[k], w) })
}

// find is the nearest word (fewest edits, then first added) within
// sameTerm of w, w itself excluded.
func (n *nearIndex) find(w string) (string, bool) {
	best, bestD := "", 3
	deletions(w, func(k string) {
		for _, c := range n.keys[k] {
			if c == w || !sameTerm(w, c) {
				continue
			}
			if d := editDistance(w, c, 2); d < bestD {
				best, bestD = c, d
			}
		}
	})
	return best, best != ""
}

// deletions calls fn with w and each distinct string w less one rune.
func deletions(w string, fn func(string)) {
	fn(w)
	var last rune = -1
	for i, r := range w {
		if r != last { // "ll" less either l is the same key
			fn(w[:i] + w[i+len(string(r)):])
		}
		last = r
	}
}

// sameTerm: equal, or within one edit for terms of five or more bytes
// (two for nine or more).
func sameTerm(a, b string) bool {
	if a == b {
		return true
	}
	n := min(len(a), len(b))
	if n < 5 {
		return false
	}
	limit := 1
	if n >= 9 {
		limit = 2
	}
	if d := len(a) - len(b); d > limit || -d > limit {
		return false
	}
	return editDistance(a, b, limit) <= limit
}

// editDistance is the Damerau–Levenshtein (adjacent swaps) distance of
// two short strings, or limit+1 once it must exceed limit.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// groupID names a group by its leading topic: stable while that topic
// leads, which is what a dismissal needs.
func groupID(topic string) string {
	h := sha256.Sum256([]byte("topic\x00" + topic))
	return "grp_" + hex.EncodeToString(h[:8])
}

func splitTopic(t string) []string {
	if t == "" {
		return nil
	}
	return strings.Split(t, " ")
}
