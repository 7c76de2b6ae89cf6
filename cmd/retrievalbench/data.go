package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

type sfDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

type sfQuery struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

type sciFact struct {
	docs    []sfDoc
	queries []sfQuery                 // all claims, in file order
	qrels   map[string]map[string]int // test judgements: query id → corpus id → grade
	testIDs []string                  // judged query ids, sorted numerically
}

func loadSciFact(dir string) (*sciFact, error) {
	sf := &sciFact{qrels: map[string]map[string]int{}}
	if err := readJSONL(filepath.Join(dir, "corpus.jsonl"), func(b []byte) error {
		var d sfDoc
		if err := json.Unmarshal(b, &d); err != nil {
			return err
		}
		sf.docs = append(sf.docs, d)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readJSONL(filepath.Join(dir, "queries.jsonl"), func(b []byte) error {
		var q sfQuery
		if err := json.Unmarshal(b, &q); err != nil {
			return err
		}
		sf.queries = append(sf.queries, q)
		return nil
	}); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "qrels", "test.tsv"))
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if i == 0 {
			continue // header: query-id corpus-id score
		}
		f := strings.Split(strings.TrimSpace(line), "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("qrels line %d: %q", i+1, line)
		}
		grade, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("qrels line %d: %w", i+1, err)
		}
		if sf.qrels[f[0]] == nil {
			sf.qrels[f[0]] = map[string]int{}
			sf.testIDs = append(sf.testIDs, f[0])
		}
		sf.qrels[f[0]][f[1]] = grade
	}
	slices.SortFunc(sf.testIDs, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
	if len(sf.docs) == 0 || len(sf.qrels) == 0 {
		return nil, fmt.Errorf("%s: no corpus or no judgements", dir)
	}
	return sf, nil
}

func readJSONL(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s line %d: %w", path, n, err)
		}
	}
	return sc.Err()
}

// genDoc is one generated document of the latency bot.
type genDoc struct {
	name     string
	url      string
	passages []genPassage
}

type genPassage struct {
	title, text string
	heading     []string
}

// passagesPerDoc: a 20-chunk document is a mid-sized PDF or a long web page.
const passagesPerDoc = 20

// generate builds n passages of realistic text by recombining SciFact: each
// passage is 4 to 9 sentences drawn at random from the whole corpus (about
// the 150–250 words a chunker produces), under the title of a random
// abstract and a heading made of a random title's first words. The
// vocabulary and its Zipfian shape are real English scientific prose; the
// combinations are new, so no passage is a copy of an abstract. Seeded:
// every run and every engine gets the same passages.
func generate(sf *sciFact, n int) []genDoc {
	rng := rand.New(rand.NewPCG(2026, 11))
	var sentences []string
	for _, d := range sf.docs {
		for _, s := range strings.SplitAfter(d.Text, ". ") {
			if s = strings.TrimSpace(s); len(s) > 20 {
				sentences = append(sentences, s)
			}
		}
	}
	heading := func() []string {
		w := strings.Fields(sf.docs[rng.IntN(len(sf.docs))].Title)
		return []string{strings.Join(w[:min(len(w), 4)], " ")}
	}
	var docs []genDoc
	for made := 0; made < n; {
		d := genDoc{name: fmt.Sprintf("report-%05d.pdf", len(docs))}
		d.url = "https://example.org/reports/" + d.name
		title := sf.docs[rng.IntN(len(sf.docs))].Title
		for range min(passagesPerDoc, n-made) {
			var b strings.Builder
			for i := range 4 + rng.IntN(6) {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(sentences[rng.IntN(len(sentences))])
			}
			d.passages = append(d.passages, genPassage{title: title, text: b.String(), heading: heading()})
			made++
		}
		docs = append(docs, d)
	}
	return docs
}
