package llmtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Embeddings is a fake OpenAI-compatible POST /v1/embeddings server. Its
// vectors count concepts: every word of a concept adds one to that
// concept's dimension (and a small constant keeps the vector non-zero), so
// synonyms land close together while sharing no keyword. It answers in the
// real wire format, items in reverse order (as a server may: clients must
// order by index).
type Embeddings struct {
	*httptest.Server
	APIKey, Model string
	concepts      [][]string

	mu       sync.Mutex
	requests [][]string // inputs of each accepted request
	failNext int        // requests still to answer 500
	fail     bool       // answer every request 500
}

// DefaultEmbeddingModel is the model name a new embeddings fake accepts.
const DefaultEmbeddingModel = "fake-embedding"

// NewEmbeddings starts a fake on loopback whose dimensions are the given
// concepts (lower-case words), plus one.
func NewEmbeddings(t testing.TB, concepts ...[]string) *Embeddings {
	e := &Embeddings{APIKey: DefaultAPIKey, Model: DefaultEmbeddingModel, concepts: concepts}
	e.Server = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.Close)
	return e
}

// BaseURL is the API root to configure (the server's URL plus /v1).
func (e *Embeddings) BaseURL() string { return e.URL + "/v1" }

// Dimensions is the length of the fake's vectors.
func (e *Embeddings) Dimensions() int { return len(e.concepts) + 1 }

// Vector is the fake's embedding of text.
func (e *Embeddings) Vector(text string) []float32 {
	v := make([]float32, len(e.concepts)+1)
	v[len(e.concepts)] = 0.01
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
		for i, c := range e.concepts {
			if slices.Contains(c, w) {
				v[i]++
			}
		}
	}
	return v
}

// SetFail makes every request fail with a 500 until called with false.
func (e *Embeddings) SetFail(fail bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fail = fail
}

// FailNext makes the next n requests fail with a 500.
func (e *Embeddings) FailNext(n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failNext = n
}

// Requests returns the inputs of every request answered with vectors.
func (e *Embeddings) Requests() [][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.requests)
}

func (e *Embeddings) serve(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, typ, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": msg, "type": typ}})
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		fail(http.StatusNotFound, "invalid_request_error", "no such route")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+e.APIKey {
		fail(http.StatusUnauthorized, "invalid_request_error", "Incorrect API key provided")
		return
	}
	var req struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Input) == 0 {
		fail(http.StatusBadRequest, "invalid_request_error", "input must be a non-empty array of strings")
		return
	}
	if req.Model != e.Model {
		fail(http.StatusNotFound, "invalid_request_error", "The model does not exist")
		return
	}
	e.mu.Lock()
	failing := e.fail || e.failNext > 0
	if e.failNext > 0 {
		e.failNext--
	}
	if !failing {
		e.requests = append(e.requests, req.Input)
	}
	e.mu.Unlock()
	if failing {
		fail(http.StatusInternalServerError, "server_error", "The server had an error while processing your request")
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
	for i := len(req.Input) - 1; i >= 0; i-- {
		resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: e.Vector(req.Input[i])})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}
