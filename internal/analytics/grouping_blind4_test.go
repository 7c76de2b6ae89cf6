package analytics

import "testing"

// blind4Floor is the F1 of the fourth blind set's first run, less a little
// (see TestGroupingQualityBlind4).
const blind4Floor = 0.49

// TestGroupingQualityBlind4: a fourth labelled set (testdata/
// question_groups_blind4.json), written blind by a session that never saw
// the code or the other sets, kept outside the repository through the
// fifth round of grouping work and run once when that round ended
// (2026-11-26): 74 intents, 550 questions from sixteen kinds of business;
// precision 0.729, recall 0.395, F1 0.513 (the code before the round:
// 0.707, 0.378, 0.493). Issue 15's 0.85 is far off; the set is now spent
// like the others.
func TestGroupingQualityBlind4(t *testing.T) {
	checkWholeSet(t, "blind set 4", "testdata/question_groups_blind4.json", blind4Floor)
}
