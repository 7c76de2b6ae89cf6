package score

import (
	"strings"
	"testing"
)

// TestLexiconHygiene guards the rule tables against mistakes the compiler
// cannot see.
func TestLexiconHygiene(t *testing.T) {
	for i, ru := range allRules {
		ps := compile(ru.pattern) // panics on a malformed pattern
		if ru.kind != kindSuppress && ru.reading == "" {
			t.Errorf("rule %d %q has no reading to explain it", i, ru.pattern)
		}
		if ru.kind != kindSuppress && len(ru.outs) == 0 {
			t.Errorf("rule %d %q supports no facet", i, ru.pattern)
		}
		// A plain rule with a negator among its own required words would
		// negate itself on every match: it must be native or a denial. An
		// optional "not?" is there on purpose, to catch the negated form.
		if ru.kind == kindPlain {
			for _, p := range ps {
				for _, e := range p {
					if e.opt {
						continue
					}
					for _, w := range e.words {
						if negators[w] {
							t.Errorf("rule %q contains negator %q: mark it native() or deny()", ru.pattern, w)
						}
					}
				}
			}
		}
		for _, o := range ru.outs {
			if o.level < 0 || o.level > 100 {
				t.Errorf("rule %q: level %d out of 0-100", ru.pattern, o.level)
			}
		}
		if strings.Contains(ru.pattern, "  ") {
			t.Errorf("rule %q: double space", ru.pattern)
		}
	}
}
