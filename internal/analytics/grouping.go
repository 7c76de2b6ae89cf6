package analytics

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// GroupThreshold is the least similarity (Jaccard over topic terms, a
// near-spelling counting as the same term) at which a topic joins a group.
const GroupThreshold = 0.5

// topicSet is one distinct topic with how often it was asked.
type topicSet struct {
	topic string
	terms []string
	count int
}

// groupTopics clusters topics, most asked first: each topic joins the
// group whose leading topic it is most similar to (at least
// GroupThreshold), else it leads a new group. Deterministic for a given
// input order; callers sort by count, then topic. It returns, per input
// topic, the index of its group's leading topic.
func groupTopics(topics []topicSet) []int {
	leaders := []int{}
	of := make([]int, len(topics))
	for i, t := range topics {
		best, bestSim := -1, 0.0
		for _, l := range leaders {
			if s := similarity(t.terms, topics[l].terms); s >= GroupThreshold && s > bestSim {
				best, bestSim = l, s
			}
		}
		if best < 0 {
			leaders = append(leaders, i)
			best = i
		}
		of[i] = best
	}
	return of
}

// similarity is |A∩B| / |A∪B| where a term of A matching a term of B by
// near spelling (typos: "shiping", "pasword") counts as shared.
func similarity(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		if len(a) == len(b) {
			return 1
		}
		return 0
	}
	shared := 0
	used := make([]bool, len(b))
	for _, x := range a {
		for j, y := range b {
			if !used[j] && sameTerm(x, y) {
				used[j] = true
				shared++
				break
			}
		}
	}
	return float64(shared) / float64(len(a)+len(b)-shared)
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
