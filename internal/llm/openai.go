package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"
)

// openAIModel talks to any OpenAI-compatible chat-completions server
// (OpenAI, Azure's v1 API, Ollama, vLLM, llama.cpp) through go-openai.
type openAIModel struct {
	client      *openai.Client
	model       string
	maxTokens   int
	temperature *float64
	run         *runner
	// noUsage is set once the server refused stream_options (older
	// llama.cpp, vLLM and Azure API versions answer 400): from then on the
	// reply streams without token counts instead of failing.
	noUsage atomic.Bool
}

func newOpenAI(cfg Config, hc *http.Client, r *runner) *openAIModel {
	oc := openai.DefaultConfig(cfg.APIKey) // an empty key sends no Authorization header
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = headerRecorder{hc}
	return &openAIModel{
		client:      openai.NewClientWithConfig(oc),
		model:       cfg.Model,
		maxTokens:   cfg.MaxTokens,
		temperature: cfg.Temperature,
		run:         r,
	}
}

// Name is the protocol and the model, e.g. "openai/gpt-4o-mini".
func (m *openAIModel) Name() string { return ProviderOpenAI + "/" + m.model }

// Stream implements Model.
func (m *openAIModel) Stream(ctx context.Context, req Request, onDelta func(string) error) (Completion, error) {
	if err := checkRequest(req); err != nil {
		return Completion{}, err
	}
	body, err := m.request(req)
	if err != nil {
		return Completion{}, &Error{Kind: KindRejected, Err: err}
	}
	if onDelta == nil {
		onDelta = func(string) error { return nil }
	}
	return m.run.run(ctx, onDelta, func(ctx context.Context, emit func(string) error) (Completion, error) {
		return m.attempt(ctx, body, emit)
	})
}

func (m *openAIModel) request(req Request) (openai.ChatCompletionRequest, error) {
	msgs := make([]openai.ChatCompletionMessage, 0, len(req.Messages)+1)
	if req.System != "" {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: req.System})
	}
	for _, msg := range req.Messages {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: msg.Role, Content: msg.Content})
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = m.maxTokens
	}
	temp := req.Temperature
	if m.temperature != nil {
		temp = *m.temperature
	}
	r := openai.ChatCompletionRequest{
		Model:         m.model,
		Messages:      msgs,
		Temperature:   float32(temp),
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	// max_tokens, not max_completion_tokens: Ollama, llama.cpp and older
	// vLLM know only the former, and OpenAI still honours it for
	// non-reasoning models.
	//lint:ignore SA1019 see above; reasoning models get MaxCompletionTokens below
	r.MaxTokens = maxTokens
	if temp == 0 {
		// go-openai omits a zero temperature, which servers read as their
		// default (1.0 at OpenAI); the smallest float32 is 0 in effect.
		r.Temperature = math.SmallestNonzeroFloat32
	}
	v := openai.NewReasoningValidator()
	if v.Validate(r) != nil {
		// A reasoning model (o-series, gpt-5 and later) refuses max_tokens
		// and sampling parameters: it takes max_completion_tokens and its
		// own fixed temperature.
		//lint:ignore SA1019 moving the value to the field these models take
		r.MaxCompletionTokens, r.MaxTokens = maxTokens, 0
		r.Temperature = 0
		if err := v.Validate(r); err != nil {
			return r, fmt.Errorf("openai request for %s: %w", m.model, err)
		}
	}
	return r, nil
}

func (m *openAIModel) attempt(ctx context.Context, r openai.ChatCompletionRequest, emit func(string) error) (Completion, error) {
	if m.noUsage.Load() {
		r.StreamOptions = nil
	}
	stream, err := m.open(ctx, r)
	if e, ok := AsError(err); ok && r.StreamOptions != nil && e.Status == http.StatusBadRequest &&
		strings.Contains(strings.ToLower(e.Err.Error()), "stream_options") {
		m.noUsage.Store(true)
		r.StreamOptions = nil
		stream, err = m.open(ctx, r)
	}
	if err != nil {
		return Completion{}, err
	}
	defer stream.Close()

	var (
		c        Completion
		finished bool
	)
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break // [DONE], or the body ended: finished tells which
		}
		if err != nil {
			if finished {
				// The reply is whole; only the usage chunk or [DONE] is
				// missing. Not worth failing the answer over.
				break
			}
			var apiErr *openai.APIError
			if errors.As(err, &apiErr) {
				// data: {"error": ...} in the middle of a 200 stream.
				return c, &Error{Kind: openAIKind(0, apiErr), Err: fmt.Errorf("openai: error in stream: %s", describeAPIError(apiErr))}
			}
			return c, &Error{Kind: KindCut, Err: fmt.Errorf("openai: stream broken: %w", err)}
		}
		if chunk.Usage != nil {
			c.InputTokens, c.OutputTokens = chunk.Usage.PromptTokens, chunk.Usage.CompletionTokens
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue // we ask for one choice; ignore a server that sends more
			}
			if err := emit(ch.Delta.Content); err != nil {
				return c, err
			}
			// A refusal arrives in its own field; without it the visitor
			// would get an empty reply.
			if err := emit(ch.Delta.Refusal); err != nil {
				return c, err
			}
			if ch.FinishReason != "" && ch.FinishReason != openai.FinishReasonNull {
				finished = true
				c.StopReason = openAIStop(ch.FinishReason)
			}
		}
	}
	if !finished {
		return c, &Error{Kind: KindCut, Err: errors.New("openai: stream ended without a finish reason")}
	}
	return c, nil
}

// open starts the stream, turning an HTTP failure into an *Error with the
// status and Retry-After (go-openai's errors carry neither the headers nor,
// for non-JSON bodies, a usable message).
func (m *openAIModel) open(ctx context.Context, r openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error) {
	meta := &responseMeta{}
	stream, err := m.client.CreateChatCompletionStream(context.WithValue(ctx, responseMetaKey{}, meta), r)
	if err == nil {
		return stream, nil
	}
	var (
		apiErr *openai.APIError
		reqErr *openai.RequestError
	)
	switch {
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0:
		return nil, &Error{
			Kind:       openAIKind(apiErr.HTTPStatusCode, apiErr),
			Status:     apiErr.HTTPStatusCode,
			RetryAfter: retryAfter(meta.header, m.run.clock.Now()),
			Err:        fmt.Errorf("openai: %s", describeAPIError(apiErr)),
		}
	case errors.As(err, &reqErr):
		return nil, &Error{
			Kind:       statusKind(reqErr.HTTPStatusCode),
			Status:     reqErr.HTTPStatusCode,
			RetryAfter: retryAfter(meta.header, m.run.clock.Now()),
			Err:        fmt.Errorf("openai: %s", bodyMessage(reqErr.HTTPStatusCode, reqErr.Body)),
		}
	case errors.Is(err, openai.ErrChatCompletionInvalidModel):
		return nil, &Error{Kind: KindRejected, Err: fmt.Errorf("openai: %w", err)}
	}
	return nil, err // transport: the runner calls it unavailable
}

// openAIKind classifies an OpenAI error. A spent quota is a 429 too, told
// apart only by its code; retrying it just burns time.
func openAIKind(status int, e *openai.APIError) Kind {
	code := apiErrorCode(e)
	if code == "insufficient_quota" || e.Type == "insufficient_quota" {
		return KindQuota
	}
	if status == 0 { // in-stream error: no status, only the type
		switch {
		case code == "rate_limit_exceeded" || e.Type == "rate_limit_exceeded":
			return KindRateLimited
		case e.Type == "invalid_request_error":
			return KindRejected
		}
		return KindUnavailable
	}
	return statusKind(status)
}

// apiErrorCode is the error's code as text; "" for null, which go-openai
// decodes as the number 0.
func apiErrorCode(e *openai.APIError) string {
	switch c := e.Code.(type) {
	case string:
		return c
	case int:
		if c != 0 {
			return strconv.Itoa(c)
		}
	}
	return ""
}

func describeAPIError(e *openai.APIError) string {
	var parts []string
	if e.Type != "" {
		parts = append(parts, e.Type)
	}
	if code := apiErrorCode(e); code != "" && code != e.Type {
		parts = append(parts, code)
	}
	msg := excerpt(e.Message)
	if len(parts) == 0 {
		return msg
	}
	return strings.Join(parts, "/") + ": " + msg
}

// bodyMessage finds a message in an error body that is not OpenAI's
// {"error": {...}} shape: Ollama's {"error": "..."}, vLLM's
// {"message": "..."}, a proxy's {"detail": "..."}. A body that is not
// JSON (a load balancer's HTML page) is not quoted.
func bodyMessage(status int, body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return excerpt(s)
		}
		if v.Message != "" {
			return excerpt(v.Message)
		}
		if v.Detail != "" {
			return excerpt(v.Detail)
		}
	}
	return fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
}

func openAIStop(r openai.FinishReason) string {
	switch r {
	case openai.FinishReasonStop:
		return StopEnd
	case openai.FinishReasonLength:
		return StopMaxTokens
	case openai.FinishReasonContentFilter:
		return StopRefused
	}
	return string(r)
}

// responseMeta receives the headers of the response to one request:
// go-openai drops the headers of a failed response, and Retry-After lives
// there.
type responseMeta struct {
	header http.Header
}

type responseMetaKey struct{}

// headerRecorder is the http.Client go-openai sees; it copies the
// response's headers into the request context's responseMeta.
type headerRecorder struct{ c *http.Client }

func (s headerRecorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := s.c.Do(req)
	if err == nil {
		if meta, ok := req.Context().Value(responseMetaKey{}).(*responseMeta); ok {
			meta.header = resp.Header
		}
	}
	return resp, err
}
