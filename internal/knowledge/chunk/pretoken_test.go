package chunk

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tokenSamples are texts that exercise every alternative of the
// pre-tokenizer and its backtracking corners.
var tokenSamples = []string{
	"", " ", "  ", "a", " a", "  a", "\n", "\r\n", " \n ", "\n\n\nx", "x  \n  y", "tab\there", "end.  ",
	"I'm sure it's what they'd've said, ISN'T IT? We'll see; you're 'quoted' 'sam' o'clock",
	"Prices: $1,234.56 or 1234567 units — 12½ × 3² = ¾…",
	"email me@example.com, visit https://example.com/a?b=c&d=e#f",
	"  leading spaces then words   then more\t\ttabs \u00a0nbsp\u2003emspace\u3000ideographic",
	"Ünïcödé naïve café Straße ΑΒΓ αβγ Кириллица",
	"東京は日本の首都です。価格は１２３円！",
	"हिन्दी में लिखा गया पाठ। संख्या १२३४",
	"مرحبا بالعالم ١٢٣",
	"emoji 😀👍🏽 and ZWJ 👨‍👩‍👧 family",
	"code: func(x int) { return x*2 } // comment\n\tif a != b {\n\t\treturn\n\t}\n",
	"### Heading\n\n- item one\n- item two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
	"...!!!???''\"\"((()))",
	"\u0085next line\u2028line sep\u2029para sep",
	"\u200bzero width\ufeffbom",
	"ﬁ ligature ǅ titlecase ⅫⅩ roman ² superscript",
	"'S 'T 'RE 'VE 'M 'LL 'D 'x '' ' s",
	"a\r\rb\r\n\r\nc",
	" \t\n \t",
	"x \u00a0 y",
}

func TestCountMatchesCodec(t *testing.T) {
	check := func(name, s string) {
		t.Helper()
		if got, want := CountTokens(s), codecCount(s); got != want && s != "" {
			t.Errorf("%s: %q: %d tokens, library says %d", name, truncateForLog(s), got, want)
		}
	}
	for i, s := range tokenSamples {
		check("sample "+string(rune('a'+i%26)), s)
	}
	// Random mixes of the samples' runes, which reach combinations
	// nobody writes on purpose.
	var alphabet []rune
	for _, s := range tokenSamples {
		alphabet = append(alphabet, []rune(s)...)
	}
	r := rand.New(rand.NewPCG(7, 11))
	for range 3000 {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		check("random", b.String())
	}
	// Real documents: the extractors' fixtures and the fuzz seeds.
	files, _ := filepath.Glob("../extract/testdata/fuzz/*/seed-*")
	more, _ := filepath.Glob("testdata/*")
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		check(f, string(data))
	}
}

func FuzzCountTokens(f *testing.F) {
	for _, s := range tokenSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := CountTokens(s), codecCount(s); got != want && s != "" {
			t.Fatalf("%q: %d tokens, library says %d", s, got, want)
		}
	})
}

func truncateForLog(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
