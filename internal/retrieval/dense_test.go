package retrieval_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"concierge/internal/llm/llmtest"
	"concierge/internal/retrieval"
	"concierge/internal/testkit"
)

// concepts are the fake embeddings server's dimensions: synonyms land
// close together while sharing no keyword.
var concepts = [][]string{
	{"car", "automobile", "vehicle", "tyres", "engine"},
	{"cat", "kitten", "feline"},
	{"door", "doors", "flap"},
	{"money", "refund", "price"},
}

func newEmbeddingsServer(t *testing.T) *llmtest.Embeddings {
	return llmtest.NewEmbeddings(t, concepts...)
}

func embedder(es *llmtest.Embeddings) retrieval.Embedder {
	return retrieval.NewOpenAIEmbedder(es.BaseURL(), es.APIKey, es.Model, es.Client())
}

func TestOpenAIEmbedderBatches(t *testing.T) {
	es := newEmbeddingsServer(t)
	emb := embedder(es)
	if emb.Dimensions() != 0 {
		t.Errorf("dimensions before any call: %d", emb.Dimensions())
	}
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = strings.Repeat("cat ", i%3) + strings.Repeat("car ", i%5)
	}
	vecs, err := emb.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if !cmp.Equal(v, es.Vector(texts[i])) {
			t.Fatalf("vector %d out of order: %v", i, v)
		}
	}
	var sizes []int
	for _, r := range es.Requests() {
		sizes = append(sizes, len(r))
	}
	if want := []int{64, 64, 22}; !cmp.Equal(sizes, want) {
		t.Errorf("batch sizes %v, want %v", sizes, want)
	}
	if emb.Dimensions() != len(concepts)+1 {
		t.Errorf("dimensions %d", emb.Dimensions())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := emb.Embed(ctx, []string{"car"}); err == nil {
		t.Error("cancelled context: want an error")
	}
	es.SetFail(true)
	if _, err := emb.Embed(context.Background(), []string{"car"}); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("server error: %v", err)
	}
}

func TestDenseFusion(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		es := newEmbeddingsServer(t)
		f := newFixture(t, e)
		ws := f.workspace()
		bot := f.bot(ws)
		texts := []string{
			"The automobile needs new tyres before winter.",    // car
			"Feline care: brush the kitten weekly.",            // cat, no keyword "cat"
			"Cat flap installation for wooden doors.",          // cat + door
			"Opening hours of the office are nine to five.",    // nothing
			"Refund requests are answered within two days.",    // money
			"Our engine oil offer: the price includes labour.", // car + money
		}
		vecs, err := embedder(es).Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		var pid []int64
		for i, tx := range texts {
			_, p := f.document(ws, bot, string(rune('a'+i)), "ready", passage{Text: tx, Vec: vecs[i]})
			pid = append(pid, p[0])
		}
		var logs bytes.Buffer
		keyword := f.service(retrieval.Options{})
		hybrid := f.service(retrieval.Options{Embedder: embedder(es), Logger: testkit.Logger(&logs)})

		// "cat": only the cat flap has the word; the kitten passage is about
		// cats too, and the embedding brings it in right behind.
		if got := ids(search(t, keyword, ws, bot, "cat", 5)); !cmp.Equal(got, []int64{pid[2]}) {
			t.Fatalf("keyword only: %v", got)
		}
		if got := ids(search(t, hybrid, ws, bot, "cat", 2)); !cmp.Equal(got, []int64{pid[2], pid[1]}) {
			t.Fatalf("hybrid: %v, want cat flap then kitten %v", got, []int64{pid[2], pid[1]})
		}
		// No keyword matches at all: the dense ranking alone answers.
		if got := search(t, keyword, ws, bot, "vehicle", 5); len(got) != 0 {
			t.Fatalf("keyword only, vehicle: %v", ids(got))
		}
		hits := search(t, hybrid, ws, bot, "vehicle", 2)
		if got := ids(hits); !cmp.Equal(got, []int64{pid[0], pid[5]}) {
			t.Fatalf("hybrid, vehicle: %v, want the car passages %v", got, []int64{pid[0], pid[5]})
		}
		if hits[0].Score != 0 || hits[0].Evidence.Dense <= hits[1].Evidence.Dense {
			t.Errorf("dense-only hits: BM25 score %v (want 0), similarity %v then %v (want falling)",
				hits[0].Score, hits[0].Evidence.Dense, hits[1].Evidence.Dense)
		}
		// A keyword candidate keeps its place and its BM25 score: the
		// embedding adds candidates and a signal, it never replaces the
		// keyword ranking.
		kw, hy := search(t, keyword, ws, bot, "cat flap", 1), search(t, hybrid, ws, bot, "cat flap", 1)
		if len(kw) != 1 || len(hy) != 1 || hy[0].PassageID != kw[0].PassageID || hy[0].Score != kw[0].Score {
			t.Fatalf("cat flap: keyword %v, hybrid %v", kw, hy)
		}

		// The embeddings server fails: keyword ranking, a warning, no error.
		es.SetFail(true)
		if got := ids(search(t, hybrid, ws, bot, "cat", 5)); !cmp.Equal(got, []int64{pid[2]}) {
			t.Fatalf("fallback: %v", got)
		}
		if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "query embedding failed") {
			t.Errorf("no warning logged: %s", logs.String())
		}
	})
}

// TestDenseOnlyLeavesKeywordReading: a passage only the embedding finds
// joins the candidates with no BM25 score and its similarity, and the
// keyword candidates of its page are read exactly as without an embedding
// (page coverage and focus unchanged).
func TestDenseOnlyLeavesKeywordReading(t *testing.T) {
	es := newEmbeddingsServer(t)
	f := newFixture(t, testkit.SQLite)
	ws := f.workspace()
	bot := f.bot(ws)
	texts := []string{"Cat flap installation for wooden doors.", "Feline care: brush the kitten weekly."}
	vecs, err := embedder(es).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	_, pid := f.document(ws, bot, "pets", "ready", passage{Text: texts[0], Vec: vecs[0]}, passage{Text: texts[1], Vec: vecs[1]})
	f.document(ws, bot, "hours", "ready", passage{Text: "Opening hours are nine to five.", Vec: es.Vector("Opening hours are nine to five.")})
	keyword := f.service(retrieval.Options{})
	hybrid := f.service(retrieval.Options{Embedder: embedder(es)})
	kw, hy := search(t, keyword, ws, bot, "cat", 5), search(t, hybrid, ws, bot, "cat", 5)
	if len(kw) != 1 || kw[0].PassageID != pid[0] {
		t.Fatalf("keyword: %v", ids(kw))
	}
	if len(hy) < 2 || hy[0].PassageID != pid[0] || hy[1].PassageID != pid[1] {
		t.Fatalf("hybrid: %v, want the cat flap then the kitten %v", ids(hy), pid)
	}
	a, b := kw[0].Evidence, hy[0].Evidence
	if a.Page != b.Page || a.Focus != b.Focus || a.Coverage != b.Coverage || hy[0].Score != kw[0].Score {
		t.Errorf("the keyword candidate's reading changed: keyword %+v, hybrid %+v", a, b)
	}
	if hy[1].Score != 0 || hy[1].Evidence.Dense <= 0 || hy[1].Evidence.Coverage != 0 {
		t.Errorf("kitten: BM25 %v, similarity %v, coverage %v", hy[1].Score, hy[1].Evidence.Dense, hy[1].Evidence.Coverage)
	}
}

// TestDenseWithoutVectors: a bot whose passages have no embeddings is
// searched by keywords alone, without calling the embeddings server.
func TestDenseWithoutVectors(t *testing.T) {
	es := newEmbeddingsServer(t)
	f := newFixture(t, testkit.SQLite)
	ws := f.workspace()
	bot := f.bot(ws)
	f.document(ws, bot, "a", "ready", passage{Text: "Cat flap installation."})
	s := f.service(retrieval.Options{Embedder: embedder(es)})
	if n := len(search(t, s, ws, bot, "cat", 5)); n != 1 {
		t.Fatalf("%d hits", n)
	}
	if n := len(es.Requests()); n != 0 {
		t.Errorf("%d embedding calls for a bot without vectors", n)
	}
}

// TestDenseOtherModel: vectors recorded under another embedding model are
// not compared with the configured model's (they live in another space):
// such a document is searched by keywords alone until the backfill embeds
// it again.
func TestDenseOtherModel(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		es := newEmbeddingsServer(t)
		f := newFixture(t, e)
		ws := f.workspace()
		bot := f.bot(ws)
		v := es.Vector("The automobile needs new tyres.")
		doc, _ := f.document(ws, bot, "a", "ready", passage{Text: "The automobile needs new tyres.", Vec: v})
		s := f.service(retrieval.Options{Embedder: embedder(es)})
		if n := len(search(t, s, ws, bot, "vehicle", 5)); n != 1 {
			t.Fatalf("same model: %d hits for a synonym", n)
		}
		f.exec(`UPDATE documents SET embedding_model = 'another-model', updated_at = ? WHERE id = ?`, now().Add(time.Second), doc)
		f.bump(bot)
		calls := len(es.Requests())
		if n := len(search(t, s, ws, bot, "vehicle", 5)); n != 0 {
			t.Fatalf("another model's vectors were compared: %d hits", n)
		}
		if got := search(t, s, ws, bot, "automobile", 5); len(got) != 1 {
			t.Fatalf("keywords: %d hits", len(got))
		}
		if n := len(es.Requests()) - calls; n != 0 {
			t.Errorf("%d query embeddings for a bot without usable vectors", n)
		}
	})
}
