package retrieval

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Embedder turns texts into dense vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dimensions is the length of the vectors, 0 while unknown.
	Dimensions() int
	// Model names the embedding model: vectors of different models are
	// not comparable, so each document records the model of its vectors.
	Model() string
}

const (
	// embedBatch bounds the inputs of one request: OpenAI accepts 2,048,
	// but self-hosted servers (llama.cpp, Ollama, TEI) often take far
	// fewer, and a smaller request fails and retries cheaper.
	embedBatch = 64
	// embedMaxBytes cuts an input that would exceed the models' usual
	// 8,192-token window (about 4 bytes a token in English).
	embedMaxBytes = 24 << 10
	// embedMaxTexts bounds one Embed call, so a caller cannot tie up the
	// embeddings server (and memory) with one huge request.
	embedMaxTexts = 10_000
)

type openAIEmbedder struct {
	client *openai.Client
	model  string
	dims   atomic.Int64
}

// NewOpenAIEmbedder returns an Embedder for any OpenAI-compatible
// /v1/embeddings server. baseURL is the API root including /v1 (for
// example https://api.openai.com/v1 or http://127.0.0.1:11434/v1); empty
// means OpenAI. httpClient nil is http.DefaultClient; give one with a
// timeout (NewEmbeddingsClient). Texts go out in batches of 64, one
// request at a time, each bound to ctx.
func NewOpenAIEmbedder(baseURL, apiKey, model string, httpClient *http.Client) Embedder {
	cfg := openai.DefaultConfig(apiKey)
	if baseURL != "" {
		cfg.BaseURL = strings.TrimRight(baseURL, "/")
	}
	if httpClient != nil {
		cfg.HTTPClient = httpClient
	}
	return &openAIEmbedder{client: openai.NewClientWithConfig(cfg), model: model}
}

// NewEmbeddingsClient is the HTTP client for the operator's embeddings
// server (CONCIERGE_EMBEDDINGS_BASE_URL, like the language model's: never a
// customer-supplied URL, so not the guarded client), each request within
// timeout.
func NewEmbeddingsClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout}
}

func (e *openAIEmbedder) Dimensions() int { return int(e.dims.Load()) }

func (e *openAIEmbedder) Model() string { return e.model }

func (e *openAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) > embedMaxTexts {
		return nil, fmt.Errorf("retrieval: embed: %d texts, at most %d per call", len(texts), embedMaxTexts)
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += embedBatch {
		batch := texts[start:min(start+embedBatch, len(texts))]
		input := make([]string, len(batch))
		for i, t := range batch {
			input[i] = truncate(strings.ToValidUTF8(t, "\uFFFD"), embedMaxBytes)
			if input[i] == "" {
				input[i] = " " // servers reject empty input
			}
		}
		res, err := e.client.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{
			Input: input, Model: openai.EmbeddingModel(e.model),
			EncodingFormat: openai.EmbeddingEncodingFormatFloat,
		})
		if err != nil {
			return nil, fmt.Errorf("retrieval: embed: %w", err)
		}
		vecs := make([][]float32, len(batch))
		for _, d := range res.Data {
			if d.Index < 0 || d.Index >= len(batch) || vecs[d.Index] != nil {
				return nil, fmt.Errorf("retrieval: embed: response index %d out of range or repeated", d.Index)
			}
			if len(d.Embedding) == 0 {
				return nil, fmt.Errorf("retrieval: embed: empty vector at index %d", d.Index)
			}
			vecs[d.Index] = d.Embedding
		}
		for i, v := range vecs {
			if v == nil {
				return nil, fmt.Errorf("retrieval: embed: no vector for input %d", start+i)
			}
			if i > 0 && len(v) != len(vecs[0]) {
				return nil, errors.New("retrieval: embed: vectors of different lengths in one response")
			}
		}
		e.dims.Store(int64(len(vecs[0])))
		out = append(out, vecs...)
	}
	return out, nil
}

// embedQuery embeds a search query as a unit vector, within EmbedTimeout.
func (s *Service) embedQuery(ctx context.Context, query string) ([]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.EmbedTimeout)
	defer cancel()
	vs, err := s.opts.Embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("retrieval: embed: %d vectors for one query", len(vs))
	}
	v := normalize(append([]float32(nil), vs[0]...))
	if v == nil {
		return nil, errors.New("retrieval: embed: zero or non-finite query vector")
	}
	return v, nil
}

// EncodeVector is the passages.embedding column format: little-endian
// IEEE-754 float32s, 4 bytes per dimension, no header (the length gives
// the dimensions).
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector reads EncodeVector's format.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("retrieval: vector of %d bytes is not a whole number of float32s", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// similarity records on each hit its cosine similarity to the question
// (qv, unit length), for the passages embedded by the same model.
func (s *snapshot) similarity(hits []Hit, cands []scored, qv []float32) {
	slot := make(map[int64]uint32, len(cands))
	for _, c := range cands {
		slot[c.id] = c.slot
	}
	for i := range hits {
		sl, ok := slot[hits[i].PassageID]
		if !ok {
			continue
		}
		hits[i].denseOnly = hits[i].Score == 0 // hybrid gives them no BM25 score
		if v := s.slots[sl].vec; len(v) == len(qv) {
			hits[i].cos, hits[i].hasCos = dot(qv, v), true
		}
	}
}
