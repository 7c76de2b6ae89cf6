package retrieval

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"english stems and stop words", "The users were running quickly through their pricing plans",
			[]string{"user", "run", "quick", "price", "plan"}},
		{"possessive and contraction", "The bot's answers don't lie", []string{"bot", "answer", "lie"}},
		{"hyphen splits, decimals join", "COVID-19 rose 3.5% (e.g. in 2020)", []string{"covid", "19", "rose", "3.5", "e.g", "2020"}},
		{"full-width folds", "ＰＲＩＣＩＮＧ １２３", []string{"price", "123"}},
		{"decomposed accent is one word", "cafe\u0301 menu", []string{"café", "menu"}},
		{"stop words only", "the of and to be", nil},
		{"punctuation only", "?!… — ...", nil},
		{"chinese bigrams", "退款政策", []string{"退款", "款政", "政策"}},
		{"single han is a unigram", "A 猫", []string{"猫"}},
		{"japanese mixed kana and kanji", "返品について", []string{"返品", "品に", "につ", "つい", "いて"}},
		{"katakana with prolonged mark", "サーバー", []string{"サー", "ーバ", "バー"}},
		{"korean bigrams per word", "환불 정책은", []string{"환불", "정책", "책은"}},
		{"hindi keeps its marks", "हिन्दी में जानकारी", []string{"हिन्दी", "में", "जानकारी"}},
		{"thai clusters", "ไทย", []string{"ไท", "ทย"}},
		{"russian stems", "Как отменить подписку", []string{"отмен", "подписк"}},
		{"french detected", "Comment annuler mon abonnement ?", []string{"comment", "annul", "abon"}},
		{"german kept unstemmed", "Wie kann ich mein Abonnement kündigen und die Rechnungen sehen",
			[]string{"abonnement", "kündigen", "rechnungen", "sehen"}},
		{"emoji are terms, modifiers dropped", "great 👍🏽 👨‍👩‍👧", []string{"great", "👍", "👨", "👩", "👧"}},
		{"mixed scripts split", "iPhone手机 price", []string{"iphon", "手机", "price"}},
		{"identifiers are terms too, before their words", "set work_mem before pg_dump", []string{"set", "work_mem", "work",
			"mem", "pg_dump", "pg", "dump"}},
		{"a dunder name keeps its underscores", "what is __slots__ for?", []string{"__slots__", "slot"}},
		{"no identifier inside a word or without a letter", "naïve_x 1_2", []string{"naïv", "x", "1", "2"}},
		{"camel case: the whole word, then its words", "ThreadPoolExecutor raises KeyError", []string{"threadpoolexecutor",
			"thread", "pool", "executor", "rais", "keyerror", "key", "error"}},
		{"camel case: a run of capitals is a word", "HTTPServer and IPv4Address", []string{"httpserver", "http", "server",
			"ipv4address", "ipv4", "address"}},
		{"camel case: no split without two words", "mRNA iPhone NFkB", []string{"mrna", "iphon", "nfkb"}},
		{"long token truncated", strings.Repeat("x", 300), []string{strings.Repeat("x", maxTokenBytes)}},
		{"invalid utf-8 separates", "abc\xffdef", []string{"abc", "def"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Terms(tt.text)); diff != "" {
				t.Errorf("Terms(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestDetectLanguage(t *testing.T) {
	tests := []struct {
		text string
		want lang
	}{
		{"What is the refund policy for annual plans?", langEnglish},
		{"Quelle est la politique de remboursement pour les abonnements ?", langFrench},
		{"¿Cuál es la política de reembolso para los planes anuales?", langSpanish},
		{"Hur gör jag för att avsluta mitt abonnemang och få pengarna tillbaka", langSwedish},
		{"Wie kann ich mein Abonnement kündigen?", langGerman},
		{"pricing", langUnknown},
		{"de la", langUnknown}, // French or Spanish: not sure, so no guess
	}
	for _, tt := range tests {
		if got := detectLanguage(segment(tt.text)); got != tt.want {
			t.Errorf("detectLanguage(%q) = %s, want %s", tt.text, got, tt.want)
		}
	}
}

func TestAnalyzeFormat(t *testing.T) {
	got := Analyze("Pricing Plans", []string{"Billing", "Annual plans"}, "Our plans are billed yearly.")
	want := "v1 en\nt price plan\nh bill annual plan\nb plan bill year"
	if got != want {
		t.Fatalf("Analyze = %q, want %q", got, want)
	}
	if again := Analyze("Pricing Plans", []string{"Billing", "Annual plans"}, "Our plans are billed yearly."); again != got {
		t.Error("Analyze is not deterministic")
	}
	ft := parseTerms(got)
	wantFT := fieldTerms{lang: langEnglish, title: []string{"price", "plan"}, heading: []string{"bill", "annual", "plan"},
		body: []string{"plan", "bill", "year"}}
	if diff := cmp.Diff(wantFT, ft, cmp.AllowUnexported(fieldTerms{})); diff != "" {
		t.Errorf("parseTerms (-want +got):\n%s", diff)
	}
	if got := Analyze("", nil, "the"); got != "v1 en" {
		t.Errorf("stop words only: %q, want the header alone", got)
	}
	// A hand-written value without the header is read as body terms.
	if got := parseTerms("refund policy"); !cmp.Equal(got.body, []string{"refund", "policy"}) {
		t.Errorf("headerless terms: %+v", got)
	}
	// The French text stems as French even though its title alone is not
	// conclusive.
	if got := Analyze("Abonnement", nil, "Vous pouvez annuler votre abonnement à tout moment."); !strings.HasPrefix(got, "v1 fr\n") {
		t.Errorf("french passage: %q", got)
	}
}

func TestHeadingPath(t *testing.T) {
	for _, p := range [][]string{nil, {"Pricing"}, {"Docs", "API", "Errors"}} {
		if got := DecodeHeadingPath(EncodeHeadingPath(p)); !cmp.Equal(got, p) {
			t.Errorf("round trip %q: %q", p, got)
		}
	}
	if got := DecodeHeadingPath(`["a › b","c"]`); !cmp.Equal(got, []string{"a › b", "c"}) {
		t.Errorf("json path: %q", got)
	}
}

func TestQueryTermsUseBotLanguages(t *testing.T) {
	b := emptySnapshot(params{k1: 1.2, b: 0.75, titleBoost: 1, headingBoost: 1}).builder()
	b.addDoc(1, zeroTime)
	addTerms(b, 1, 1, Analyze("", nil, "Los envíos internacionales tardan diez días."), nil)
	b.addDoc(2, zeroTime)
	addTerms(b, 2, 2, Analyze("", nil, "International shipping takes ten days."), nil)
	s := b.finish(1)
	got := s.queryTerms("envío internacional")
	for _, w := range []string{"envi", "internacional"} { // the Spanish stems are among the pooled terms
		if !strings.Contains(" "+strings.Join(got, " ")+" ", " "+w+" ") {
			t.Errorf("queryTerms = %q, want %q among them", got, w)
		}
	}
	if got := s.queryTerms("what is the"); len(got) != 0 {
		t.Errorf("english stop words: %q", got)
	}
}

// FuzzTerms: never panics, terms are valid UTF-8 without whitespace (the
// terms column relies on it), and text with a letter, digit or pictograph
// has terms unless every word in it is a stop word.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"", "hello world", "the", "退款政策", "हिन्दी", "ภาษาไทย", "👍🏽", "a\u0301", "\xff\xfe",
		"e.g.", "...a...", "\u200d\u200c", "ｱｲｳ", "İstanbul", "ß", "\u0301abc", strings.Repeat("ab.", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		terms := Terms(text)
		for _, term := range terms {
			if term == "" || !utf8.ValidString(term) || strings.ContainsFunc(term, unicode.IsSpace) {
				t.Fatalf("Terms(%q): bad term %q", text, term)
			}
		}
		_ = Analyze(text, []string{text}, text)
		if len(terms) > 0 {
			return
		}
		toks := segment(text)
		l := detectLanguage(toks)
		if l == langUnknown {
			l = langEnglish
		}
		for _, tok := range toks {
			if tok.kind != kindWord || scriptOf(tok.text) == scriptOther {
				t.Fatalf("Terms(%q) is empty but token %q is not a stop word", text, tok.text)
			}
			if wordTerm(tok.text, l) != "" {
				t.Fatalf("Terms(%q) is empty but word %q is not a stop word", text, tok.text)
			}
		}
		meaningful := strings.ContainsFunc(text, func(r rune) bool {
			return (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.So, r)) &&
				!unicode.In(r, unicode.Latin, unicode.Cyrillic) && r != utf8.RuneError
		})
		if meaningful {
			t.Fatalf("Terms(%q) is empty for text with non-Latin letters, digits or symbols", text)
		}
	})
}
