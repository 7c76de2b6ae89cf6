package score

import (
	"concierge/internal/bot"
	"strings"
	"testing"
)

// read analyses one visitor message, after an optional bot question.
func read(botQ, visitor string) *analysis {
	var tr []Turn
	if botQ != "" {
		tr = append(tr, Turn{Role: RoleBot, Text: botQ})
	}
	tr = append(tr, Turn{Role: RoleVisitor, Text: visitor})
	return analyse(Input{Transcript: tr})
}

// facetDim scores a single facet the way a dimension would.
func facetDim(a *analysis, f facet) Dimension {
	return scoreDimension(dimSpec{key: f.String(), label: f.String(), sources: []source{{f, 1}}}, a)
}

// checkQuotes fails unless every visitor quote of r is a verbatim,
// non-empty substring of a visitor turn of the transcript.
func checkQuotes(t *testing.T, id string, tr []Turn, r Result) {
	t.Helper()
	check := func(e Evidence, where string) {
		if e.Source != SourceVisitor {
			return
		}
		if e.Turn < 0 || e.Turn >= len(tr) {
			t.Errorf("%s: %s: evidence turn %d out of range", id, where, e.Turn)
			return
		}
		turn := tr[e.Turn]
		if !isVisitor(turn.Role) {
			t.Errorf("%s: %s: quote %q comes from a %s turn", id, where, e.Quote, turn.Role)
		}
		if strings.TrimSpace(e.Quote) == "" || !strings.Contains(turn.Text, e.Quote) {
			t.Errorf("%s: %s: quote %q is not a substring of visitor turn %q", id, where, e.Quote, turn.Text)
		}
	}
	for _, d := range r.Dimensions {
		for _, e := range d.Evidence {
			check(e, d.Name)
		}
	}
	for _, o := range r.Overrides {
		for _, e := range o.Evidence {
			check(e, "override "+o.Rule)
		}
	}
}

func qual(framework string) bot.Qualification { return bot.Qualification{Framework: framework} }

// convo reads "V: visitor|B: bot|..." into a transcript.
func convo(s string) []Turn {
	var tr []Turn
	for _, p := range strings.Split(s, "|") {
		role := RoleVisitor
		if strings.HasPrefix(p, "B: ") {
			role = RoleBot
		}
		tr = append(tr, Turn{Role: role, Text: p[3:]})
	}
	return tr
}

// checkTiers scores each conversation with BANT and compares the tier.
func checkTiers(t *testing.T, cases []struct{ want, conv string }) {
	t.Helper()
	for _, c := range cases {
		tr := convo(c.conv)
		r := Score(qual("bant"), Input{Transcript: tr})
		if r.Tier != c.want {
			t.Errorf("%.70s: %s, want %s: %s", c.conv, r.Tier, c.want, r.Summary)
		}
		checkQuotes(t, c.conv[:20], tr, r)
	}
}
