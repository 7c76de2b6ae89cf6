package analytics

import "testing"

// blind3Floor is the third blind set's F1 after the fifth round of
// grouping work, less a little (see TestGroupingQualityBlind3).
const blind3Floor = 0.48

// TestGroupingQualityBlind3: a third labelled set (testdata/
// question_groups_blind3.json: 87 intents, 604 questions from sixteen kinds
// of business, near-neighbour intents written on purpose), written blind by
// a session that never saw the code or the other sets, kept outside the
// repository through the fourth round of grouping work and run once when
// that round ended (2026-11-26): precision 0.609, recall 0.401, F1 0.483
// (the code before the round: 0.487, 0.319, 0.386). The round carried
// about a quarter of its gain on blind set 2 (0.497 → 0.746 there, read
// while tuning); issue 15's 0.85 is far off. Its whole set is the test,
// and it is now spent like the others: the fifth round read it while
// tuning and reached precision 0.632, recall 0.416, F1 0.502.
func TestGroupingQualityBlind3(t *testing.T) {
	checkWholeSet(t, "blind set 3", "testdata/question_groups_blind3.json", blind3Floor)
}
