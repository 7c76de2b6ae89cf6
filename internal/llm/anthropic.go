package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// AnthropicVersion is the Messages API version this client speaks.
const AnthropicVersion = "2023-06-01"

// Limits on what the provider may send us.
const (
	maxErrorBody = 64 << 10 // an error response's body
	maxSSELine   = 1 << 20  // one line of the event stream
)

// anthropicModel talks to Anthropic's Messages API over net/http. It is
// hand-written rather than built on anthropic-sdk-go: the SDK retries on
// its own, hides Retry-After, and brings 16 more modules (OpenTelemetry, a
// YAML release candidate, JSON-schema reflection) for one endpoint whose
// event stream takes a page to parse.
type anthropicModel struct {
	hc          *http.Client
	url         string
	key         string
	model       string
	maxTokens   int
	temperature *float64
	run         *runner
}

func newAnthropic(cfg Config, hc *http.Client, r *runner) *anthropicModel {
	base := strings.TrimRight(cfg.BaseURL, "/")
	base = strings.TrimSuffix(base, "/v1")
	return &anthropicModel{
		hc:          hc,
		url:         base + "/v1/messages",
		key:         cfg.APIKey,
		model:       cfg.Model,
		maxTokens:   cfg.MaxTokens,
		temperature: cfg.Temperature,
		run:         r,
	}
}

// Name is the protocol and the model, e.g. "anthropic/claude-sonnet-4-5".
func (m *anthropicModel) Name() string { return ProviderAnthropic + "/" + m.model }

type anthropicMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type anthropicRequest struct {
	Model       string             `json:"model"`
	MaxTokens   int                `json:"max_tokens"`
	System      string             `json:"system,omitempty"`
	Messages    []anthropicMessage `json:"messages"`
	Temperature float64            `json:"temperature"`
	Stream      bool               `json:"stream"`
}

// Stream implements Model.
func (m *anthropicModel) Stream(ctx context.Context, req Request, onDelta func(string) error) (Completion, error) {
	if err := checkRequest(req); err != nil {
		return Completion{}, err
	}
	ar := anthropicRequest{
		Model:       m.model,
		MaxTokens:   req.MaxTokens,
		System:      req.System,
		Messages:    make([]anthropicMessage, len(req.Messages)),
		Temperature: req.Temperature,
		Stream:      true,
	}
	if ar.MaxTokens == 0 {
		ar.MaxTokens = m.maxTokens
	}
	if m.temperature != nil {
		ar.Temperature = *m.temperature
	}
	for i, msg := range req.Messages {
		ar.Messages[i] = anthropicMessage(msg)
	}
	body, err := json.Marshal(ar)
	if err != nil {
		return Completion{}, &Error{Kind: KindRejected, Err: fmt.Errorf("anthropic: encode request: %w", err)}
	}
	if onDelta == nil {
		onDelta = func(string) error { return nil }
	}
	return m.run.run(ctx, onDelta, func(ctx context.Context, emit func(string) error) (Completion, error) {
		return m.attempt(ctx, body, emit)
	})
}

func (m *anthropicModel) attempt(ctx context.Context, body []byte, emit func(string) error) (Completion, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, bytes.NewReader(body))
	if err != nil {
		return Completion{}, &Error{Kind: KindRejected, Err: fmt.Errorf("anthropic: build request: %w", err)}
	}
	hreq.Header.Set("x-api-key", m.key)
	hreq.Header.Set("anthropic-version", AnthropicVersion)
	hreq.Header.Set("content-type", "application/json")
	hreq.Header.Set("accept", "text/event-stream")
	resp, err := m.hc.Do(hreq)
	if err != nil {
		return Completion{}, err // transport: the runner calls it unavailable
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		typ, msg := anthropicErrorBody(raw)
		if msg == "" {
			msg = fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		}
		desc := msg
		if typ != "" {
			desc = typ + ": " + msg
		}
		return Completion{}, &Error{
			Kind:       anthropicKind(resp.StatusCode, typ, msg),
			Status:     resp.StatusCode,
			RetryAfter: retryAfter(resp.Header, m.run.clock.Now()),
			Err:        fmt.Errorf("anthropic: %s", desc),
		}
	}
	return readAnthropicStream(resp.Body, emit)
}

// anthropicUsage counts tokens. Cached input is input too: it is what the
// request carried, and what a quota is charged against (at a discount).
type anthropicUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

func (u anthropicUsage) input() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// anthropicEvent is the union of the stream's event payloads; the "type"
// field says which parts are present.
type anthropicEvent struct {
	Type    string `json:"type"`
	Message *struct {
		Usage anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content_block"`
	Delta *struct {
		Type       string `json:"type"`
		Text       string `json:"text"`
		StopReason string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// readAnthropicStream reads server-sent events until message_stop. Event
// kinds it does not know (thinking, tool use, future ones) are skipped, as
// Anthropic's versioning policy asks of clients.
func readAnthropicStream(body io.Reader, emit func(string) error) (Completion, error) {
	var c Completion
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), maxSSELine)
	var data bytes.Buffer
	for {
		payload, err := nextSSEData(sc, &data)
		if err != nil {
			if err == io.EOF {
				return c, &Error{Kind: KindCut, Err: errors.New("anthropic: stream ended before message_stop")}
			}
			return c, &Error{Kind: KindCut, Err: fmt.Errorf("anthropic: stream broken: %w", err)}
		}
		var ev anthropicEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			return c, &Error{Kind: KindCut, Err: fmt.Errorf("anthropic: malformed event: %w", err)}
		}
		switch ev.Type {
		case "message_start":
			if ev.Message != nil {
				c.InputTokens = ev.Message.Usage.input()
				c.OutputTokens = ev.Message.Usage.OutputTokens
			}
		case "content_block_start":
			if ev.ContentBlock != nil && ev.ContentBlock.Type == "text" {
				if err := emit(ev.ContentBlock.Text); err != nil {
					return c, err
				}
			}
		case "content_block_delta":
			if ev.Delta != nil && ev.Delta.Type == "text_delta" {
				if err := emit(ev.Delta.Text); err != nil {
					return c, err
				}
			}
		case "message_delta":
			if ev.Delta != nil && ev.Delta.StopReason != "" {
				c.StopReason = anthropicStop(ev.Delta.StopReason)
			}
			if ev.Usage != nil {
				// Cumulative counts; input appears here only on some models.
				c.OutputTokens = max(c.OutputTokens, ev.Usage.OutputTokens)
				c.InputTokens = max(c.InputTokens, ev.Usage.input())
			}
		case "message_stop":
			return c, nil
		case "error":
			typ, msg := "", ""
			if ev.Error != nil {
				typ, msg = ev.Error.Type, ev.Error.Message
			}
			return c, &Error{Kind: anthropicKind(0, typ, msg), Err: fmt.Errorf("anthropic: error in stream: %s: %s", typ, excerpt(msg))}
		}
	}
}

// nextSSEData returns the data of the next event (its "event:" line is
// redundant with the JSON's "type"). Comments and other fields are
// skipped; several data lines are joined with newlines, as the SSE
// specification says.
func nextSSEData(sc *bufio.Scanner, data *bytes.Buffer) ([]byte, error) {
	data.Reset()
	seen := false
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if seen {
				return data.Bytes(), nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue // event:, id:, retry:, or a ":" comment
		}
		if seen {
			data.WriteByte('\n')
		}
		data.Write(bytes.TrimPrefix(value, []byte(" ")))
		seen = true
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// A final event without its blank line is incomplete: dropped, as the
	// specification says, so a cut stream cannot pass for a finished one.
	return nil, io.EOF
}

// anthropicErrorBody reads {"type":"error","error":{"type":..,"message":..}}.
func anthropicErrorBody(raw []byte) (typ, msg string) {
	var v struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return "", "" // a proxy's HTML page: not worth quoting
	}
	return v.Error.Type, excerpt(v.Error.Message)
}

// anthropicKind classifies an Anthropic error. A spent credit balance
// comes back as a 400 (or 403) invalid_request_error whose message says
// so; billing_error is its newer spelling. 529 (overloaded) and the
// in-stream overloaded_error are a busy provider, worth a retry.
func anthropicKind(status int, typ, msg string) Kind {
	switch {
	case typ == "billing_error" || status == http.StatusPaymentRequired,
		(status == http.StatusBadRequest || status == http.StatusForbidden || status == 0) &&
			strings.Contains(strings.ToLower(msg), "credit balance"):
		return KindQuota
	case typ == "rate_limit_error":
		return KindRateLimited
	case typ == "overloaded_error" || typ == "api_error" || typ == "timeout_error":
		return KindUnavailable
	case status == 0:
		return KindRejected // an in-stream invalid_request_error and the like
	}
	return statusKind(status)
}

func anthropicStop(r string) string {
	switch r {
	case "end_turn", "stop_sequence":
		return StopEnd
	case "max_tokens":
		return StopMaxTokens
	case "refusal":
		return StopRefused
	}
	return r
}
