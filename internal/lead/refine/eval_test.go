package refine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"concierge/internal/bot"
	"concierge/internal/lead/refine"
	"concierge/internal/lead/score"
	"concierge/internal/llm/llmtest"
)

// labelled is one case of internal/lead/score/testdata (see its README).
type labelled struct {
	ID         string          `json:"id"`
	Language   string          `json:"language"`
	Framework  string          `json:"framework"`
	Weights    map[string]int  `json:"weights"`
	Thresholds *bot.Thresholds `json:"thresholds"`
	Dimensions []bot.Dimension `json:"dimensions"`
	Transcript []score.Turn    `json:"transcript"`
	Signals    score.Signals   `json:"signals"`
	Expected   string          `json:"expected"`
	set        string
}

func loadLabelled(t *testing.T) []labelled {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "score", "testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no labelled cases: %v", err)
	}
	sort.Strings(files)
	var all []labelled
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cs []labelled
		if err := json.Unmarshal(raw, &cs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		set := "existing"
		switch filepath.Base(f) {
		case "blind_dev.json":
			set = "blind dev"
		case "blind_test.json":
			set = "blind test"
		case "blind_b_dev.json":
			set = "blind B dev"
		case "blind_b_test.json":
			set = "blind B test"
		case "blind_c_dev.json":
			set = "blind C dev"
		case "blind_c_test.json":
			set = "blind C test"
		case "blind_d_dev.json":
			set = "blind D dev"
		case "blind_d_test.json":
			set = "blind D test"
		case "blind_e_dev.json":
			set = "blind E dev"
		case "blind_e_test.json":
			set = "blind E test"
		case "blind_f_dev.json":
			set = "blind F dev"
		case "blind_f_test.json":
			set = "blind F test"
		case "blind_g_dev.json":
			set = "blind G dev"
		case "blind_g_test.json":
			set = "blind G test"
		case "blind_h_dev.json":
			set = "blind H dev"
		case "blind_h_test.json":
			set = "blind H test"
		case "blind_i_dev.json":
			set = "blind I dev"
		case "blind_i_test.json":
			set = "blind I test"
		case "blind_j_dev.json":
			set = "blind J dev"
		case "blind_j_test.json":
			set = "blind J test"
		case "blind_k_dev.json":
			set = "blind K dev"
		case "blind_k_test.json":
			set = "blind K test"
		}
		if only := os.Getenv("LEAD_EVAL_SETS"); only != "" && !strings.Contains(","+only+",", ","+set+",") {
			continue // see score's TestEvaluation
		}
		for i := range cs {
			cs[i].set = set
		}
		all = append(all, cs...)
	}
	return all
}

var tiers = []string{score.TierSQL, score.TierMQL, score.TierNurture, score.TierUnqualified}

func rank(t string) int {
	for i, x := range tiers {
		if x == t {
			return i
		}
	}
	return -1
}

// bandOf is where a model that agrees with the labeller puts every
// dimension of a case of that tier.
var bandOf = map[string]int{score.TierSQL: 85, score.TierMQL: 55, score.TierNurture: 25, score.TierUnqualified: 0}

// rubricReply is the scripted model's answer: each dimension of the
// deterministic breakdown scored in the band of the case's labelled tier,
// backed by the visitor's own words (the breakdown's quotes, else the
// visitor's longest sentence), as the prompt's rubric asks.
func rubricReply(c labelled, base score.Result) string {
	longest := ""
	for _, turn := range c.Transcript {
		if turn.Role != score.RoleVisitor {
			continue
		}
		for _, s := range strings.FieldsFunc(turn.Text, func(r rune) bool { return r == '.' || r == '?' || r == '!' || r == '\n' }) {
			s = strings.TrimSpace(s)
			if len(strings.Fields(s)) >= 2 && len(s) > len(longest) {
				longest = s
			}
		}
	}
	type quote struct {
		Quote   string `json:"quote"`
		Reading string `json:"reading"`
	}
	type dim struct {
		Name     string  `json:"name"`
		Score    int     `json:"score"`
		Evidence []quote `json:"evidence"`
	}
	var dims []dim
	for _, d := range base.Dimensions {
		out := dim{Name: d.Name, Score: bandOf[c.Expected]}
		for _, e := range d.Evidence {
			if e.Source == score.SourceVisitor && e.Quote != "" && len(out.Evidence) < 2 {
				out.Evidence = append(out.Evidence, quote{e.Quote, "as read"})
			}
		}
		if len(out.Evidence) == 0 && longest != "" {
			out.Evidence = append(out.Evidence, quote{longest, "the visitor's situation"})
		}
		dims = append(dims, out)
	}
	b, _ := json.Marshal(map[string]any{"dimensions": dims})
	return string(b)
}

type outcome struct {
	n, correct, twoOff int
	confusion          [4][4]int
	byLanguage         map[string][2]int
}

func (o *outcome) add(c labelled, got string) {
	e, g := rank(c.Expected), rank(got)
	o.n++
	o.confusion[e][g]++
	x := o.byLanguage[c.Language]
	x[1]++
	if e == g {
		o.correct++
		x[0]++
	}
	o.byLanguage[c.Language] = x
	if e-g > 1 || g-e > 1 {
		o.twoOff++
	}
}

func (o *outcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d/%d = %.1f%%, two tiers off %d; rows expected sql/mql/nurture/unqualified, columns got:", o.correct, o.n, 100*float64(o.correct)/float64(max(1, o.n)), o.twoOff)
	for _, row := range o.confusion {
		fmt.Fprintf(&b, " %v", row)
	}
	var langs []string
	for l := range o.byLanguage {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, l := range langs {
		fmt.Fprintf(&b, " %s %d/%d", l, o.byLanguage[l][0], o.byLanguage[l][1])
	}
	return b.String()
}

// TestRefinedEvaluation measures the model-refined path on the labelled
// sets with the fake model scripted to follow the rubric, and fails if it
// does worse than the rules alone on any set: fewer tiers right, or more
// two tiers off.
func TestRefinedEvaluation(t *testing.T) {
	cases := loadLabelled(t)
	srv := llmtest.NewOpenAI(t)
	var mu sync.Mutex
	var current labelled
	var base score.Result
	srv.Handle(func(llmtest.Received) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		return llmtest.Reply{Text: rubricReply(current, base)}
	})
	r := refine.New(srv.Model(t), nil)
	rules, refined := map[string]*outcome{}, map[string]*outcome{}
	for _, c := range cases {
		q := bot.Qualification{Framework: c.Framework, Weights: c.Weights, Dimensions: c.Dimensions, Thresholds: c.Thresholds}
		in := score.Input{Transcript: c.Transcript, Signals: c.Signals}
		b := score.Score(q, in)
		mu.Lock()
		current, base = c, b
		mu.Unlock()
		res, err := r.Refine(context.Background(), q, in, b)
		if err != nil {
			res = b // what the service does: the deterministic result stands
		}
		for _, m := range []map[string]*outcome{rules, refined} {
			if m[c.set] == nil {
				m[c.set] = &outcome{byLanguage: map[string][2]int{}}
			}
		}
		rules[c.set].add(c, b.Tier)
		refined[c.set].add(c, res.Tier)
	}
	for _, set := range []string{"existing", "blind dev", "blind test", "blind B dev", "blind B test", "blind C dev", "blind C test", "blind D dev", "blind D test", "blind E dev", "blind E test", "blind F dev", "blind F test", "blind G dev", "blind G test", "blind H dev", "blind H test", "blind I dev", "blind I test", "blind J dev", "blind J test", "blind K dev", "blind K test"} {
		a, m := rules[set], refined[set]
		if a == nil {
			continue
		}
		t.Logf("%s, rules alone: %s", set, a)
		t.Logf("%s, refined:     %s", set, m)
		if m.correct < a.correct || m.twoOff > a.twoOff {
			t.Errorf("%s: the refined path does worse than the rules alone", set)
		}
	}
}
