package score

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"concierge/internal/bot"
)

// evalCase is one labelled conversation of testdata/*.json. The expected
// tier is a sales lead's judgement written before the scorer was tuned.
type evalCase struct {
	ID         string          `json:"id"`
	Industry   string          `json:"industry"`
	Framework  string          `json:"framework"`
	Weights    map[string]int  `json:"weights,omitempty"`
	Thresholds *bot.Thresholds `json:"thresholds,omitempty"`
	Dimensions []bot.Dimension `json:"dimensions,omitempty"`
	Transcript []Turn          `json:"transcript"`
	Signals    Signals         `json:"signals"`
	Expected   string          `json:"expected"`
	Rationale  string          `json:"rationale"`
	file       string
}

func (c evalCase) qualification() bot.Qualification {
	return bot.Qualification{Framework: c.Framework, Weights: c.Weights, Dimensions: c.Dimensions, Thresholds: c.Thresholds}
}

func (c evalCase) input() Input { return Input{Transcript: c.Transcript, Signals: c.Signals} }

var tierOrder = []string{TierSQL, TierMQL, TierNurture, TierUnqualified}

func tierRank(t string) int {
	for i, x := range tierOrder {
		if x == t {
			return i
		}
	}
	return -1
}

func loadCases(t testing.TB) []evalCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no labelled cases: %v", err)
	}
	sort.Strings(files)
	var all []evalCase
	ids := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields() // a misspelt field would silently drop a label
		var cs []evalCase
		if err := dec.Decode(&cs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cs {
			switch {
			case c.ID == "" || ids[c.ID]:
				t.Fatalf("%s: missing or duplicate id %q", f, c.ID)
			case tierRank(c.Expected) < 0:
				t.Fatalf("%s: %s: unknown expected tier %q", f, c.ID, c.Expected)
			case c.Rationale == "" || c.Industry == "" || len(c.Transcript) == 0:
				t.Fatalf("%s: %s: needs industry, transcript and rationale", f, c.ID)
			}
			if _, ok := bot.FrameworkPreset(c.Framework); !ok {
				t.Fatalf("%s: %s: unknown framework %q", f, c.ID, c.Framework)
			}
			ids[c.ID] = true
			c.file = filepath.Base(f)
			all = append(all, c)
		}
	}
	return all
}

// TestEvaluation scores the labelled set. It fails unless at least 85% of
// the cases get their expected tier and no case is more than one tier off.
func TestEvaluation(t *testing.T) {
	cases := loadCases(t)
	var confusion [4][4]int
	correct := 0
	var misses []string
	type tally struct{ ok, n int }
	byFile, byFramework := map[string]*tally{}, map[string]*tally{}
	count := func(m map[string]*tally, k string, ok bool) {
		if m[k] == nil {
			m[k] = &tally{}
		}
		m[k].n++
		if ok {
			m[k].ok++
		}
	}
	for _, c := range cases {
		r := Score(c.qualification(), c.input())
		e, g := tierRank(c.Expected), tierRank(r.Tier)
		confusion[e][g]++
		count(byFile, c.file, e == g)
		count(byFramework, c.Framework, e == g)
		if e == g {
			correct++
			continue
		}
		line := fmt.Sprintf("%-45s expected %-11s got %-11s score %3d", c.ID, c.Expected, r.Tier, r.Score)
		if d := e - g; d > 1 || d < -1 {
			t.Errorf("more than one tier off: %s\n%s", line, r.Summary)
		}
		misses = append(misses, line+"\n    "+r.Summary)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "confusion matrix (rows expected, columns got), %d cases:\n", len(cases))
	fmt.Fprintf(&b, "%-13s", "")
	for _, x := range tierOrder {
		fmt.Fprintf(&b, "%12s", x)
	}
	b.WriteString("\n")
	for i, row := range confusion {
		fmt.Fprintf(&b, "%-13s", tierOrder[i])
		for _, n := range row {
			fmt.Fprintf(&b, "%12d", n)
		}
		b.WriteString("\n")
	}
	acc := float64(correct) / float64(len(cases))
	fmt.Fprintf(&b, "accuracy %d/%d = %.1f%%", correct, len(cases), 100*acc)
	for _, m := range []map[string]*tally{byFramework, byFile} {
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("\n ")
		for _, k := range keys {
			fmt.Fprintf(&b, " %s %d/%d", k, m[k].ok, m[k].n)
		}
	}
	t.Log(b.String())
	for _, m := range misses {
		t.Log(m)
	}
	if acc < 0.85 {
		t.Errorf("accuracy %.1f%% is below 85%%", 100*acc)
	}
}

// TestEvaluationSetBalance keeps the labelled set honest about coverage:
// every framework and every tier at least 12 cases.
func TestEvaluationSetBalance(t *testing.T) {
	cases := loadCases(t)
	byFramework, byTier, byIndustry := map[string]int{}, map[string]int{}, map[string]int{}
	for _, c := range cases {
		byFramework[c.Framework]++
		byTier[c.Expected]++
		byIndustry[c.Industry]++
	}
	t.Logf("%d cases; frameworks %v; tiers %v; industries %v", len(cases), byFramework, byTier, byIndustry)
	if len(cases) < 60 {
		t.Errorf("%d cases, want at least 60", len(cases))
	}
	for _, f := range bot.Frameworks {
		if byFramework[f.Key] < 12 {
			t.Errorf("framework %s has %d cases, want at least 12", f.Key, byFramework[f.Key])
		}
	}
	for _, tier := range tierOrder {
		if byTier[tier] < 12 {
			t.Errorf("tier %s has %d cases, want at least 12", tier, byTier[tier])
		}
	}
}
