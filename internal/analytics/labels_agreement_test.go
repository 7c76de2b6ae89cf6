package analytics

import (
	"testing"
)

// TestGroupingLabellersAgree: the questions of blind set 2 were grouped a
// second time, independently (testdata/question_groups_blind2_second.json:
// a session that saw only the shuffled questions and a one-paragraph
// brief, never the code or the first labelling). The two labellings agree
// at pairwise F1 0.941, so the goal (0.85) is well inside what a
// careful reader reaches on these questions: the shortfall is the
// grouping's, not the labels'. The test prints the agreement and the
// grouping's F1 against each labelling, and checks that the files still
// hold the same questions.
func TestGroupingLabellersAgree(t *testing.T) {
	load := func(name string) map[string]int {
		t.Helper()
		_, qs, labels := loadLabelled(t, "testdata/"+name)
		of := map[string]int{}
		for i, q := range qs {
			if _, dup := of[q]; dup {
				t.Fatalf("%s: %q twice", name, q)
			}
			of[q] = labels[i]
		}
		return of
	}
	first, second := load("question_groups_blind2.json"), load("question_groups_blind2_second.json")
	if len(first) != len(second) {
		t.Fatalf("the labellings hold %d and %d questions", len(first), len(second))
	}
	var qs []string
	var a, b []int
	for q, g := range first {
		h, ok := second[q]
		if !ok {
			t.Fatalf("%q is not in the second labelling", q)
		}
		qs, a, b = append(qs, q), append(a, g), append(b, h)
	}
	p, r, f := pairwise(a, b)
	t.Logf("second labeller against the writer: pairwise precision %.3f recall %.3f F1 %.3f", p, r, f)
	if f < 0.9 {
		t.Errorf("the labellings agree at F1 %.3f, recorded as 0.941: a file changed", f)
	}
	groups := groupQuestions(qs)
	for _, l := range []struct {
		name   string
		labels []int
	}{{"the writer's", a}, {"the second labeller's", b}} {
		p, r, f := pairwise(l.labels, groups)
		t.Logf("grouping against %s labels: precision %.3f recall %.3f F1 %.3f", l.name, p, r, f)
	}
}
