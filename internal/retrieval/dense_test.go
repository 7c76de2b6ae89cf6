package retrieval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"concierge/internal/retrieval"
	"concierge/internal/testkit"
)

// embeddingsServer is a fake OpenAI-compatible /v1/embeddings endpoint on
// loopback. Its vectors count concepts: every word of a concept adds one to
// that concept's dimension, so synonyms land close together while sharing
// no keyword.
type embeddingsServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests [][]string // inputs of each request
	fail     bool
}

var concepts = [][]string{
	{"car", "automobile", "vehicle", "tyres", "engine"},
	{"cat", "kitten", "feline"},
	{"door", "doors", "flap"},
	{"money", "refund", "price"},
}

func conceptVector(text string) []float32 {
	v := make([]float32, len(concepts)+1)
	v[len(concepts)] = 0.01 // never the zero vector
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
		for i, c := range concepts {
			if slices.Contains(c, w) {
				v[i]++
			}
		}
	}
	return v
}

func newEmbeddingsServer(t *testing.T) *embeddingsServer {
	es := &embeddingsServer{}
	es.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer test-key" {
			http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		var req struct {
			Input          []string `json:"input"`
			Model          string   `json:"model"`
			EncodingFormat string   `json:"encoding_format"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "concepts-1" {
			http.Error(w, `{"error":{"message":"bad body","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		es.mu.Lock()
		es.requests = append(es.requests, req.Input)
		fail := es.fail
		es.mu.Unlock()
		if fail {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error":{"message":"model overloaded","type":"server_error"}}`))
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		resp := struct {
			Object string         `json:"object"`
			Data   []item         `json:"data"`
			Model  string         `json:"model"`
			Usage  map[string]int `json:"usage"`
		}{Object: "list", Model: req.Model, Usage: map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)}}
		// Reversed, as a server may: the client must order by index.
		for i := len(req.Input) - 1; i >= 0; i-- {
			resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: conceptVector(req.Input[i])})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(es.Close)
	return es
}

func (es *embeddingsServer) embedder() retrieval.Embedder {
	return retrieval.NewOpenAIEmbedder(es.URL+"/v1", "test-key", "concepts-1", es.Client())
}

func (es *embeddingsServer) setFail(fail bool) {
	es.mu.Lock()
	defer es.mu.Unlock()
	es.fail = fail
}

func (es *embeddingsServer) calls() int {
	es.mu.Lock()
	defer es.mu.Unlock()
	return len(es.requests)
}

func TestOpenAIEmbedderBatches(t *testing.T) {
	es := newEmbeddingsServer(t)
	emb := es.embedder()
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
		if !cmp.Equal(v, conceptVector(texts[i])) {
			t.Fatalf("vector %d out of order: %v", i, v)
		}
	}
	var sizes []int
	es.mu.Lock()
	for _, r := range es.requests {
		sizes = append(sizes, len(r))
	}
	es.mu.Unlock()
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
	es.setFail(true)
	if _, err := emb.Embed(context.Background(), []string{"car"}); err == nil || !strings.Contains(err.Error(), "overloaded") {
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
		vecs, err := es.embedder().Embed(context.Background(), texts)
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
		hybrid := f.service(retrieval.Options{Embedder: es.embedder(), Logger: testkit.Logger(&logs)})

		// "cat": only the cat flap has the word; the kitten passage is about
		// cats too, and fusion brings it in right behind.
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
		if want := 1.0 / 61; hits[0].Score != want {
			t.Errorf("RRF score %v, want %v", hits[0].Score, want)
		}

		// The embeddings server fails: keyword ranking, a warning, no error.
		es.setFail(true)
		if got := ids(search(t, hybrid, ws, bot, "cat", 5)); !cmp.Equal(got, []int64{pid[2]}) {
			t.Fatalf("fallback: %v", got)
		}
		if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "query embedding failed") {
			t.Errorf("no warning logged: %s", logs.String())
		}
	})
}

// TestDenseWithoutVectors: a bot whose passages have no embeddings is
// searched by keywords alone, without calling the embeddings server.
func TestDenseWithoutVectors(t *testing.T) {
	es := newEmbeddingsServer(t)
	f := newFixture(t, testkit.SQLite)
	ws := f.workspace()
	bot := f.bot(ws)
	f.document(ws, bot, "a", "ready", passage{Text: "Cat flap installation."})
	s := f.service(retrieval.Options{Embedder: es.embedder()})
	if n := len(search(t, s, ws, bot, "cat", 5)); n != 1 {
		t.Fatalf("%d hits", n)
	}
	if n := es.calls(); n != 0 {
		t.Errorf("%d embedding calls for a bot without vectors", n)
	}
}
