package chunk

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"concierge/internal/knowledge/extract"
)

func docOf(title string, sections ...extract.Section) *extract.Document {
	return &extract.Document{Title: title, Sections: sections}
}

// sentences makes n distinct sentences of roughly ten tokens each.
func sentences(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("Sentence number %d explains one small fact about refunds.", i)
	}
	return out
}

// checkInvariants holds for every split: exact token counts within the
// cap, passages cut at unit boundaries of their own section, in order.
func checkInvariants(t *testing.T, doc *extract.Document, ps []Passage, o Options) {
	t.Helper()
	o = o.withDefaults()
	sec, from := 0, 0
	for i, p := range ps {
		if p.Ordinal != i || p.Title != doc.Title {
			t.Errorf("passage %d: ordinal %d, title %q", i, p.Ordinal, p.Title)
		}
		if p.Text == "" || p.Text != strings.TrimSpace(p.Text) {
			t.Errorf("passage %d: text %q", i, p.Text)
		}
		if got := CountTokens(p.Text); p.Tokens != got || p.Tokens > o.MaxTokens {
			t.Errorf("passage %d: tokens %d, counted %d, max %d", i, p.Tokens, got, o.MaxTokens)
		}
		// Find the passage in its section, at or after the previous one.
		for sec < len(doc.Sections) {
			if at := strings.Index(doc.Sections[sec].Text[from:], p.Text); at >= 0 {
				from += at + 1
				break
			}
			sec, from = sec+1, 0
		}
		if sec == len(doc.Sections) {
			t.Fatalf("passage %d is not a piece of a section, in order: %q", i, p.Text)
		}
		if diff := cmp.Diff(doc.Sections[sec].HeadingPath, p.HeadingPath); diff != "" {
			t.Errorf("passage %d heading path (-want +got):\n%s", i, diff)
		}
	}
}

func TestSplitSizesAndOverlap(t *testing.T) {
	text := strings.Join(sentences(120), " ")
	doc := docOf("Refund policy", extract.Section{HeadingPath: []string{"Refunds"}, Text: text})
	tests := []struct {
		name string
		o    Options
	}{
		{"defaults", Options{}},
		{"small", Options{TargetTokens: 60, MaxTokens: 80, OverlapTokens: 12}},
		{"no overlap", Options{TargetTokens: 100, OverlapTokens: -1}},
		{"target above max", Options{TargetTokens: 900, MaxTokens: 200}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps := Split(doc, tc.o)
			checkInvariants(t, doc, ps, tc.o)
			o := tc.o.withDefaults()
			if len(ps) < 2 {
				t.Fatalf("%d passages", len(ps))
			}
			for i, p := range ps {
				if !strings.HasPrefix(p.Text, "Sentence number") || !strings.HasSuffix(p.Text, "refunds.") {
					t.Errorf("passage %d does not hold whole sentences: %q", i, p.Text)
				}
				if i < len(ps)-1 && p.Tokens > o.TargetTokens {
					t.Errorf("passage %d: %d tokens over target %d", i, p.Tokens, o.TargetTokens)
				}
				if i == 0 {
					continue
				}
				prev := ps[i-1].Text
				first := p.Text[:strings.Index(p.Text, "refunds.")+len("refunds.")]
				overlapped := strings.Contains(prev, first)
				if o.OverlapTokens == 0 && overlapped {
					t.Errorf("passage %d repeats %q with overlap off", i, first)
				}
				if o.OverlapTokens > 0 {
					// The repeated part is whole trailing sentences of the previous passage.
					shared := commonOverlap(prev, p.Text)
					if !overlapped || CountTokens(shared) > o.OverlapTokens*3/2 || !strings.HasSuffix(shared, "refunds.") {
						t.Errorf("passage %d: overlap %q (%d tokens)", i, shared, CountTokens(shared))
					}
				}
			}
		})
	}
}

// commonOverlap is the longest suffix of a that is a prefix of b.
func commonOverlap(a, b string) string {
	for k := min(len(a), len(b)); k > 0; k-- {
		if strings.HasSuffix(a, b[:k]) {
			return b[:k]
		}
	}
	return ""
}

func TestSplitNeverCrossesSections(t *testing.T) {
	doc := docOf("Handbook",
		extract.Section{Text: "Intro sentence one. Intro sentence two."},
		extract.Section{HeadingPath: []string{"Pricing"}, Text: "Starter costs 19 euros."},
		extract.Section{HeadingPath: []string{"Pricing", "Enterprise"}, Text: ""},
		extract.Section{HeadingPath: []string{"Pricing", "Enterprise"}, Text: "Call us.\n\nWe answer within a day."},
	)
	ps := Split(doc, Options{})
	want := []Passage{
		{Ordinal: 0, Title: "Handbook", Text: "Intro sentence one. Intro sentence two.", Tokens: 8},
		{Ordinal: 1, Title: "Handbook", HeadingPath: []string{"Pricing"}, Text: "Starter costs 19 euros.", Tokens: 7},
		{Ordinal: 2, Title: "Handbook", HeadingPath: []string{"Pricing", "Enterprise"}, Text: "Call us.\n\nWe answer within a day.", Tokens: 9},
	}
	if diff := cmp.Diff(want, ps); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	ps[1].HeadingPath[0] = "changed"
	if doc.Sections[1].HeadingPath[0] != "Pricing" {
		t.Error("passages share heading slices with the document")
	}
	if Split(nil, Options{}) != nil || len(Split(docOf("x"), Options{})) != 0 {
		t.Error("empty documents give passages")
	}
}

func TestSentenceBoundaries(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Dr. Rao arrived at 9 a.m. sharp. He said e.g. this works. Version 1.2 is out! Is it? Yes.",
			[]string{"Dr. Rao arrived at 9 a.m. sharp.", "He said e.g. this works.", "Version 1.2 is out!", "Is it?", "Yes."}},
		{`She said "Stop." Then left... Really?! (Yes.) Next`,
			[]string{`She said "Stop."`, "Then left...", "Really?!", "(Yes.)", "Next"}},
		{"A list:\n- one\n- two\n\nNew paragraph without stop", []string{"A list:\n- one\n- two", "New paragraph without stop"}},
		{"退款将在十四天内退回。企业合同按年签订！是吗？「好。」然后", []string{"退款将在十四天内退回。", "企业合同按年签订！", "是吗？", "「好。」", "然后"}},
		{"यह पहला वाक्य है। यह दूसरा वाक्य है॥ अंत", []string{"यह पहला वाक्य है।", "यह दूसरा वाक्य है॥", "अंत"}},
		{"هل هذا صحيح؟ نعم.", []string{"هل هذا صحيح؟", "نعم."}},
		{"See approx. ten days. Visit www.example.com now.", []string{"See approx. ten days.", "Visit www.example.com now."}},
	}
	for _, tc := range tests {
		spans, _ := sentenceSpans(tc.text)
		var got []string
		for _, s := range spans {
			got = append(got, tc.text[s[0]:s[1]])
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.text, diff)
		}
	}
}

func TestSplitLongSentenceOnWords(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("word ", 1500)) + "."
	doc := docOf("t", extract.Section{Text: "Short one. " + long + " Short two."})
	ps := Split(doc, Options{})
	checkInvariants(t, doc, ps, Options{})
	var words int
	for _, p := range ps {
		words += strings.Count(p.Text, "word")
	}
	if words < 1500 || len(ps) < 4 {
		t.Errorf("%d passages hold %d words", len(ps), words)
	}
	for _, p := range ps {
		if strings.Contains(p.Text, "wor ") || strings.HasPrefix(p.Text, "ord") {
			t.Errorf("a word was cut: %q", p.Text[:20])
		}
	}
}

func TestSplitCJKAndHindi(t *testing.T) {
	zh := strings.Repeat("退款将在十四天内退回原支付方式。企业合同按年签订，并包含单点登录！", 60)
	hi := strings.Repeat("रिफंड चौदह दिनों के भीतर मूल भुगतान विधि में वापस किया जाता है। ", 60)
	ja := strings.Repeat("返金は十四日以内に行われます", 200) // no punctuation at all
	for name, text := range map[string]string{"chinese": zh, "hindi": strings.TrimSpace(hi), "japanese-unpunctuated": ja} {
		t.Run(name, func(t *testing.T) {
			doc := docOf("多语言", extract.Section{Text: text})
			ps := Split(doc, Options{})
			checkInvariants(t, doc, ps, Options{})
			if len(ps) < 3 {
				t.Fatalf("%d passages", len(ps))
			}
			for i, p := range ps[:len(ps)-1] {
				last, _ := lastRune(p.Text)
				if name != "japanese-unpunctuated" && last != '。' && last != '！' && last != '।' {
					t.Errorf("passage %d ends mid-sentence: …%q", i, p.Text[len(p.Text)-12:])
				}
				if p.Tokens < DefaultTargetTokens/2 {
					t.Errorf("passage %d: only %d tokens", i, p.Tokens)
				}
			}
		})
	}
}

func lastRune(s string) (rune, int) {
	r := []rune(s)
	return r[len(r)-1], len(r)
}

func TestSplitDeterministicAndConcurrent(t *testing.T) {
	doc := docOf("d", extract.Section{Text: strings.Join(sentences(300), " ")}, extract.Section{HeadingPath: []string{"B"}, Text: strings.Repeat("日本語の文です。", 400)})
	want := Split(doc, Options{})
	var wg sync.WaitGroup
	results := make([][]Passage, 8)
	for i := range results {
		wg.Go(func() { results[i] = Split(doc, Options{}) })
	}
	wg.Wait()
	for i, got := range results {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("run %d differs:\n%s", i, diff)
		}
	}
}

// The expected counts are the examples of OpenAI's tiktoken cookbook for
// cl100k_base, an independent reference for the vocabulary.
func TestCountTokens(t *testing.T) {
	for s, want := range map[string]int{"": 0, "hello world": 2, "tiktoken is great!": 6,
		"antidisestablishmentarianism": 6, "2 + 2 = 4": 7, "お誕生日おめでとう": 9} {
		if got := CountTokens(s); got != want {
			t.Errorf("CountTokens(%q) = %d, want %d", s, got, want)
		}
	}
}
