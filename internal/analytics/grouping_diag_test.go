package analytics

import (
	"fmt"
	"os"
	"sort"
	"testing"
)

// TestGroupingDiag is a tool for tuning, not a check: with
// GROUPING_DIAG=testdata/<set>.json it prints each intent's questions with
// their topics and groups, the pairs each intent lost, and the pairs of
// intents put together, most first.
func TestGroupingDiag(t *testing.T) {
	file := os.Getenv("GROUPING_DIAG")
	if file == "" {
		t.Skip()
	}
	set, qs, labels := loadLabelled(t, file)
	groups := groupQuestions(qs)
	fn := map[int]int{}
	fp := map[[2]int]int{}
	for i := range qs {
		for j := i + 1; j < len(qs); j++ {
			if labels[i] == labels[j] && groups[i] != groups[j] {
				fn[labels[i]]++
			}
			if labels[i] != labels[j] && groups[i] == groups[j] {
				a, b := labels[i], labels[j]
				if a > b {
					a, b = b, a
				}
				fp[[2]int{a, b}]++
			}
		}
	}
	for gi, g := range set.Groups {
		fmt.Printf("== %s (fn %d)\n", g.Intent, fn[gi])
		for i, q := range qs {
			if labels[i] == gi {
				fmt.Printf("   g%-4d %-36q %s\n", groups[i], Topic(q), q)
			}
		}
	}
	var keys [][2]int
	for k := range fp {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return fp[keys[i]] > fp[keys[j]] })
	for _, k := range keys {
		fmt.Printf("FP %d %s ~ %s\n", fp[k], set.Groups[k[0]].Intent, set.Groups[k[1]].Intent)
	}
}

// TestPhraseSwallow is a tool too (GROUPING_SWALLOW=1): it lists the phrases
// of topic_words.go that take a word another concept has, which hides that
// concept from the topic ("delivery cost" would leave out "price").
func TestPhraseSwallow(t *testing.T) {
	if os.Getenv("GROUPING_SWALLOW") == "" {
		t.Skip()
	}
	x := lexicalIndex()
	check := func(name string, ws []string) {
		for _, w := range ws {
			words := phraseWords(w)
			if len(words) < 2 {
				continue
			}
			for _, v := range words {
				if n, cs := x.match([]string{v}); n == 1 && cs[0] != name && x.weight[cs[0]] >= wAction {
					fmt.Printf("SWALLOW %s: %q takes %q (%s)\n", name, w, v, cs[0])
				}
			}
		}
	}
	for name, ws := range moreWords {
		check(name, ws)
	}
	for _, c := range moreConcepts {
		check(c.name, c.words)
	}
}
