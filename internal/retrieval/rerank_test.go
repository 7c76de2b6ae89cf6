package retrieval

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// q builds query weights over an index of n passages where each term has
// the given document frequency (0: the knowledge base never uses it).
func testWeights(live int, terms []string, df map[string]int) queryWeights {
	s := emptySnapshot(params{})
	s.live = live
	for t, n := range df {
		l := make([]posting, n)
		s.base[t] = l
	}
	return s.weigh(terms)
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestWeighRarityFillersAndMissing(t *testing.T) {
	q := testWeights(10000, []string{"way", "rebas", "git", "heroku"}, map[string]int{"rebas": 20, "git": 5000})
	w := map[string]float64{}
	for i, term := range q.terms {
		w[term] = q.weights[i]
	}
	if w["way"] != 0 {
		t.Errorf("a filler weighs %v, want 0", w["way"])
	}
	if !(w["rebas"] > w["git"]) {
		t.Errorf("a rare term (%v) should outweigh a common one (%v)", w["rebas"], w["git"])
	}
	if !near(w["heroku"], idf(10000, 1)) {
		t.Errorf("a term the knowledge base lacks weighs %v, want that of a term used once %v", w["heroku"], idf(10000, 1))
	}
	if !near(q.missing, w["heroku"]) || !near(q.total, w["rebas"]+w["git"]+w["heroku"]) {
		t.Errorf("missing %v total %v", q.missing, q.total)
	}
	// A small knowledge base: the weights lean towards equal.
	small := testWeights(10, []string{"order", "ship", "fast"}, map[string]int{"order": 6, "ship": 3})
	lo, hi := math.Inf(1), 0.0
	for _, x := range small.weights {
		lo, hi = min(lo, x), max(hi, x)
	}
	if hi/lo > 1.05 {
		t.Errorf("ten passages: weights %v should be nearly equal", small.weights)
	}
}

func TestDroppedContractions(t *testing.T) {
	s := emptySnapshot(params{})
	s.queryLangs = []lang{langEnglish}
	got := s.queryTerms("whats the difference between merge and rebase, dont know")
	for _, term := range got {
		if term == "what" || term == "whats" || term == "dont" {
			t.Errorf("query terms %v keep a contraction", got)
		}
	}
}

func fields(title, heading, body string) fieldTerms {
	return fieldTerms{title: strings.Fields(title), heading: strings.Fields(heading), body: strings.Fields(body)}
}

func TestReadPassageSignals(t *testing.T) {
	q := testWeights(1000, []string{"clean", "untrack", "file"}, map[string]int{"clean": 10, "untrack": 10, "file": 10})
	cases := []struct {
		name                                     string
		ft                                       fieldTerms
		coverage, title, heading, proximity, phr float64
	}{
		{"all in the text, adjacent and in order", fields("", "", "remov clean untrack file now"), 1, 0, 0, 1, 1},
		{"all in the text, spread", fields("", "", "clean a b c d e f g h untrack i j file"), 1, 0, 0, 3.0 / 13, 0},
		{"title and heading", fields("git clean", "untrack file", "noth"), 1, 1.0 / 3, 2.0 / 3, 0, 0.5},
		{"one term", fields("", "", "file file file"), 1.0 / 3, 0, 0, 0, 0},
		{"none", fields("", "", "other word"), 0, 0, 0, 0, 0},
	}
	for _, c := range cases {
		ev, matched := read(q, c.ft)
		if !near(ev.Coverage, c.coverage) || !near(ev.Title, c.title) || !near(ev.Heading, c.heading) ||
			!near(ev.Proximity, c.proximity) || !near(ev.Phrase, c.phr) {
			t.Errorf("%s: %+v, want coverage %v title %v heading %v proximity %v phrase %v", c.name, ev, c.coverage,
				c.title, c.heading, c.proximity, c.phr)
		}
		n := 0
		for _, m := range matched {
			if m {
				n++
			}
		}
		if want := int(math.Round(c.coverage * 3)); n != want {
			t.Errorf("%s: %d terms matched, want %d", c.name, n, want)
		}
	}
}

func TestProximityShortestSpan(t *testing.T) {
	// a at 0 and 10, b at 3 and 11: the shortest span is 10..11.
	if got := proximity([][]int{{0, 10}, {3, 11}}); !near(got, 1) {
		t.Errorf("adjacent pair later in the text: %v, want 1", got)
	}
	if got := proximity([][]int{{0}, {5}, {9}}); !near(got, 3.0/10) {
		t.Errorf("three terms over ten positions: %v, want 0.3", got)
	}
	if got := proximity([][]int{{4}}); got != 0 {
		t.Errorf("one term: %v, want 0", got)
	}
}

func TestHubDetection(t *testing.T) {
	var index, prose []string
	for i := range 120 {
		index = append(index, fmt.Sprintf("entry%d", i)) // every term once: an index, a list of links
	}
	for i := range 120 {
		prose = append(prose, []string{"branch", "commit", "merg", "the", "rebas", "chang"}[i%6]+fmt.Sprint(i%20))
	}
	if !isHub(index) {
		t.Error("a list of distinct entries is not a hub")
	}
	if isHub(prose) {
		t.Error("prose that repeats its subject is a hub")
	}
	if isHub(index[:hubMinTerms-1]) {
		t.Error("a short passage is judged")
	}
	for title, want := range map[string]bool{
		"Django 1.11.15 release notes — Django documentation": true,
		"What’s New In Python 3.5":                            true,
		"CHANGELOG":                                           true,
		"venv — Creation of virtual environments":             false,
		"Release a new version (how to)":                      false,
	} {
		if got := changelogTitle(title); got != want {
			t.Errorf("changelogTitle(%q) = %v, want %v", title, got, want)
		}
	}
}

// The second stage puts the page about the question (title, several
// sections) above a hub that mentions every term once, and a passage with
// the words together above one with them scattered.
func TestRerankOrder(t *testing.T) {
	s := emptySnapshot(params{})
	s.live = 5000
	for _, term := range []string{"virtual", "env", "creat"} {
		s.base[term] = make([]posting, 30)
	}
	var hubBody []string
	for i := range 100 {
		hubBody = append(hubBody, fmt.Sprintf("item%d", i))
	}
	hubBody = append(hubBody, "virtual", "x", "env", "y", "creat")
	s.docs = map[int64]docEntry{1: {slots: []uint32{0}}, 2: {slots: []uint32{1, 2, 3}}}
	hit := func(id, doc int64, title, heading, body string, score float64) Hit {
		return Hit{PassageID: id, DocumentID: doc, Score: score, Title: title, Text: body,
			Terms: "v1 en\nt " + title + "\nh " + heading + "\nb " + body}
	}
	hits := []Hit{
		hit(10, 1, "what new", "pep", strings.Join(hubBody, " "), 12), // the first stage's favourite
		hit(20, 2, "venv creation virtual env", "creat virtual env", "creat virtual env with venv", 9),
		hit(21, 2, "venv creation virtual env", "api", "env builder virtual", 8),
		hit(22, 2, "venv creation virtual env", "how", "virtual env work", 7),
	}
	s.rerank(hits, [][]string{{"creat", "virtual", "env"}})
	if hits[0].PassageID != 20 {
		for _, h := range hits {
			t.Logf("%d %+v", h.PassageID, h.Evidence)
		}
		t.Fatalf("best hit %d, want the focused page's section 20", hits[0].PassageID)
	}
	if hits[len(hits)-1].PassageID != 10 || !hits[len(hits)-1].Evidence.Hub {
		t.Errorf("the hub should rank last and be marked: %+v", hits[len(hits)-1].Evidence)
	}
	if !hits[0].Evidence.Answers() || !hits[0].Evidence.Ranked {
		t.Errorf("evidence %+v should answer", hits[0].Evidence)
	}
	// A passage of a page the extractor judged a listing is a hub whatever
	// its own text looks like.
	listed := []Hit{hit(30, 2, "venv creation virtual env", "creat virtual env", "creat virtual env with venv", 9)}
	listed[0].cached = &cachedPassage{listing: true}
	s.rerank(listed, [][]string{{"creat", "virtual", "env"}})
	if !listed[0].Evidence.Hub || !listed[0].Evidence.Listing {
		t.Errorf("a passage of a listing page is not marked a hub and a listing: %+v", listed[0].Evidence)
	}
	// and it weighs less than the same passage of a page that explains.
	plain := []Hit{hit(30, 2, "venv creation virtual env", "creat virtual env", "creat virtual env with venv", 9)}
	s.rerank(plain, [][]string{{"creat", "virtual", "env"}})
	if d := plain[0].Evidence.Score - listed[0].Evidence.Score; d < listingPenalty-1e-9 {
		t.Errorf("a listing passage scores %v below the same passage elsewhere, want %v", d, listingPenalty)
	}
	if (Evidence{Page: 0.9}).Answers() {
		t.Error("evidence the second stage did not fill answers")
	}
	// A question with nothing left to weigh (frame and stop words only) is
	// read, and answered by no page, however the first stage ranked them.
	framed := []Hit{hit(40, 2, "venv creation virtual env", "creat virtual env", "creat virtual env with venv", 9)}
	s.rerank(framed, [][]string{{}})
	if !framed[0].Evidence.Ranked || framed[0].Evidence.Answers() {
		t.Errorf("a question without terms: evidence %+v, want read and not answering", framed[0].Evidence)
	}
}

// TestQuestionFrameCarriesNoWeight: "how long … take", "how much" and
// "how many" frame a question; only its subject is looked for.
func TestQuestionFrameCarriesNoWeight(t *testing.T) {
	s := emptySnapshot(params{})
	for q, want := range map[string][]string{
		"How long does shipping take?":        {"ship"},
		"how much is the pro plan":            {"pro", "plan"},
		"How many seats does a team get?":     {"seat", "team", "get"},
		"what does take a backup do":          {"take", "backup"},
		"What is the Cedar pillow good for?":  {"cedar", "pillow"},
		"is the long-term archive encrypted?": {"long", "term", "archiv", "encrypt"},
	} {
		if got := s.queryTerms(q); !slices.Equal(got, want) {
			t.Errorf("queryTerms(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestCamelCaseWordsMatchTheQuestion: a visitor writes the words of an
// identifier ("pool of threads", "foreign key"); the page names it in
// camel case (ThreadPoolExecutor, ForeignKey). The passage covers the
// question, in its heading and as a phrase, and so does the identifier
// typed as one word.
func TestCamelCaseWordsMatchTheQuestion(t *testing.T) {
	s := emptySnapshot(params{})
	s.live = 1000
	s.queryLangs = []lang{langEnglish}
	ft := parseTerms(Analyze("concurrent.futures", []string{"ThreadPoolExecutor"},
		"An Executor subclass that uses a pool of at most max_workers threads to execute calls asynchronously."))
	for _, question := range []string{"how do I use a thread pool", "ThreadPoolExecutor"} {
		q := s.weigh(s.queryTerms(question))
		ev, _ := read(q, ft)
		if !near(ev.Coverage, 1) || ev.Heading == 0 {
			t.Errorf("%q: coverage %v heading %v, want the whole question found, in the heading too", question, ev.Coverage, ev.Heading)
		}
	}
	q := s.weigh(s.queryTerms("what is a foreign key"))
	ev, _ := read(q, parseTerms(Analyze("Model field reference", []string{"ForeignKey"}, "A many-to-one relationship.")))
	if !near(ev.Phrase, 1) {
		t.Errorf("foreign key in ForeignKey: phrase %v, want 1", ev.Phrase)
	}
}
