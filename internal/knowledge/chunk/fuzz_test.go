package chunk

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"concierge/internal/knowledge/extract"
)

// FuzzSplit feeds arbitrary text (not only what extract produces) and
// arbitrary small sizes, and checks the invariants every caller relies
// on: exact counts, the cap (a single rune can be worth several tokens,
// so caps under 8 are not asked for), pieces of the section in order,
// and determinism.
func FuzzSplit(f *testing.F) {
	f.Add("First sentence. Second one!\n\nNew paragraph? Yes.", uint16(20), uint16(30), uint16(5))
	f.Add(strings.Repeat("退款将在十四天内退回。", 50), uint16(40), uint16(60), uint16(10))
	f.Add(strings.Repeat("यह एक वाक्य है। ", 40), uint16(30), uint16(40), uint16(8))
	f.Add(strings.Repeat("x", 5000), uint16(0), uint16(0), uint16(0))
	f.Add("a\n- b\n- c\n\td\t e . . . ! ? 。。", uint16(1), uint16(8), uint16(1))
	f.Fuzz(func(t *testing.T, text string, target, maxTok, overlap uint16) {
		if len(text) > 64<<10 {
			return
		}
		o := Options{TargetTokens: int(target % 400), MaxTokens: 8 + int(maxTok%600), OverlapTokens: int(overlap%100) - 10}
		doc := &extract.Document{Title: "t", Sections: []extract.Section{{Text: text}, {HeadingPath: []string{"h"}, Text: text}}}
		ps := Split(doc, o)
		lim := o.withDefaults()
		from := [2]int{}
		for i, p := range ps {
			sec := 0
			if len(p.HeadingPath) > 0 {
				sec = 1
			}
			if p.Ordinal != i || p.Text == "" {
				t.Fatalf("passage %d: %+v", i, p)
			}
			if p.Tokens != CountTokens(p.Text) {
				t.Fatalf("passage %d: tokens %d, counted %d", i, p.Tokens, CountTokens(p.Text))
			}
			if p.Tokens > lim.MaxTokens && len([]rune(p.Text)) > 1 {
				t.Fatalf("passage %d: %d tokens over cap %d: %q", i, p.Tokens, lim.MaxTokens, p.Text)
			}
			at := strings.Index(text[from[sec]:], p.Text)
			if at < 0 {
				t.Fatalf("passage %d is not an in-order piece of its section: %q", i, p.Text)
			}
			from[sec] += at + 1
		}
		if again := Split(doc, o); !cmp.Equal(ps, again) {
			t.Fatal("not deterministic")
		}
	})
}
