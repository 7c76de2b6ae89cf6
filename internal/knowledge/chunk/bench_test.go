package chunk

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"concierge/internal/knowledge/extract"
)

var benchWords = strings.Fields(`the a refund plan invoice customer workspace chatbot message support
agent price annual monthly contract security single sign-on retrieval document passage answer team
widget website upload billing credit limit policy request response account owner admin member days
within after before every each month year email page section heading table list code example`)

// generatedMarkdown is about size bytes of markdown: headings three levels
// deep, paragraphs of varied sentences, lists and code blocks, from a
// fixed seed so runs compare.
func generatedMarkdown(size int) []byte {
	r := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	sentence := func() string {
		n := 6 + r.IntN(20)
		w := make([]string, n)
		for i := range w {
			w[i] = benchWords[r.IntN(len(benchWords))]
		}
		w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
		return strings.Join(w, " ") + []string{".", ".", ".", "?", "!"}[r.IntN(5)]
	}
	for h := 0; b.Len() < size; h++ {
		fmt.Fprintf(&b, "%s Heading %d\n\n", strings.Repeat("#", 1+h%3), h)
		for p := 0; p < 2+r.IntN(6); p++ {
			for s := 0; s < 1+r.IntN(8); s++ {
				b.WriteString(sentence())
				b.WriteByte(' ')
			}
			b.WriteString("\n\n")
		}
		if h%5 == 0 {
			b.WriteString("- " + sentence() + "\n- " + sentence() + "\n\n```\ncurl https://api.example.com/v1/items\n```\n\n")
		}
	}
	return []byte(b.String())
}

func BenchmarkExtractAndSplit(b *testing.B) {
	md := generatedMarkdown(5 << 20)
	lim := extract.Limits{MaxOutputRunes: 10_000_000, Timeout: 10 * 60e9}
	for _, tc := range []struct{ name, file string }{{"markdown", "bench.md"}, {"text", "bench.txt"}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(md)))
			passages := 0
			for b.Loop() {
				doc, err := extract.Extract(context.Background(), tc.file, md, lim)
				if err != nil {
					b.Fatal(err)
				}
				passages = len(Split(doc, Options{}))
			}
			b.ReportMetric(float64(passages), "passages")
		})
	}
}
