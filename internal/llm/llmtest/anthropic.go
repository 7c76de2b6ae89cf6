package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"concierge/internal/llm"
)

type anthropicRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Temperature *float64 `json:"temperature"`
	Stream      bool     `json:"stream"`
}

// anthropicError is Anthropic's error body, in a response or an error event.
func anthropicError(typ, message string) map[string]any {
	return map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": typ, "message": message},
		"request_id": "req_fake",
	}
}

func (s *Server) serveAnthropic(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	rec := &Received{At: time.Now(), Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	s.record(rec)
	w.Header().Set("request-id", "req_fake")
	fail := func(status int, v any) {
		s.update(func() { rec.Status = status })
		writeJSON(w, status, v)
	}

	if r.URL.Path != "/v1/messages" {
		fail(http.StatusNotFound, anthropicError("not_found_error", "Not found"))
		return
	}
	if r.Method != http.MethodPost {
		fail(http.StatusMethodNotAllowed, anthropicError("invalid_request_error", "Method not allowed"))
		return
	}
	if key := r.Header.Get("x-api-key"); key != s.APIKey {
		// The real API does not quote the key; the fake does, so that a
		// client leaking it into errors is caught.
		fail(http.StatusUnauthorized, anthropicError("authentication_error", "invalid x-api-key: "+key))
		return
	}
	if r.Header.Get("anthropic-version") == "" {
		fail(http.StatusBadRequest, anthropicError("invalid_request_error", "anthropic-version: header is required"))
		return
	}
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		fail(http.StatusBadRequest, anthropicError("invalid_request_error", "There was an issue with the request body: invalid JSON"))
		return
	}
	s.update(func() {
		rec.Model, rec.Stream, rec.Temperature, rec.MaxTokens = req.Model, req.Stream, req.Temperature, req.MaxTokens
		rec.System = textParts(req.System)
		for _, m := range req.Messages {
			rec.Messages = append(rec.Messages, llm.Message{Role: m.Role, Content: textParts(m.Content)})
		}
	})
	switch {
	case req.Model == "":
		fail(http.StatusBadRequest, anthropicError("invalid_request_error", "model: Field required"))
		return
	case req.MaxTokens <= 0:
		fail(http.StatusBadRequest, anthropicError("invalid_request_error", "max_tokens: Field required"))
		return
	case len(req.Messages) == 0:
		fail(http.StatusBadRequest, anthropicError("invalid_request_error", "messages: at least one message is required"))
		return
	}

	s.mu.Lock()
	snapshot := *rec
	s.mu.Unlock()
	rep := s.reply(snapshot)
	if rep.RetryAfter != "" && (rep.Status != 0 || rep.Quota) {
		w.Header().Set("retry-after", rep.RetryAfter)
	}
	switch {
	case rep.Quota:
		fail(http.StatusBadRequest, anthropicError("invalid_request_error", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."))
		return
	case rep.Status != 0:
		fail(rep.Status, anthropicStatusError(rep.Status))
		return
	}

	text := replyText(rep, rec)
	stop := rep.StopReason
	if stop == "" {
		stop = "end_turn"
	}
	pieces := Split(text, rep.Chunks)
	in, out := inputTokens(rec), words(text)
	if rep.NoUsage {
		in, out = 0, 0
	}
	id := fmt.Sprintf("msg_fake%d", rec.Seq)

	st := s.newStream(w, r, rec)
	if !req.Stream {
		if !st.wait(rep.FirstDelay) {
			return
		}
		if rep.Cut != NoCut {
			st.abort()
		}
		s.update(func() {
			rec.Status = http.StatusOK
			rec.Reply = text
			rec.ChunkTimes = append(rec.ChunkTimes, time.Now())
		})
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content":     []any{map[string]any{"type": "text", "text": text}},
			"stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": in, "output_tokens": out},
		})
		return
	}

	event := func(typ string, v map[string]any) []byte {
		v["type"] = typ
		return []byte("event: " + typ + "\ndata: " + string(mustJSON(v)) + "\n\n")
	}
	s.update(func() { rec.Status = http.StatusOK })
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if !st.raw(event("message_start", map[string]any{"message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "output_tokens": min(out, 1)},
	}})) {
		return
	}
	if !st.wait(rep.FirstDelay) {
		return
	}
	if !st.raw(event("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})) ||
		!st.raw(event("ping", map[string]any{})) {
		return
	}
	for i, p := range pieces {
		if rep.Cut != NoCut && i == rep.CutAfter {
			break
		}
		if i > 0 && !st.wait(rep.ChunkDelay) {
			return
		}
		if !st.text(event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": p}}), p) {
			return
		}
	}
	switch rep.Cut {
	case CutConnection:
		st.abort()
	case CutEvents:
		return
	case CutError:
		st.raw(event("error", map[string]any{"error": map[string]any{"type": "overloaded_error", "message": "Overloaded"}}))
		return
	}
	_ = st.raw(event("content_block_stop", map[string]any{"index": 0})) &&
		st.raw(event("message_delta", map[string]any{
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": out},
		})) &&
		st.raw(event("message_stop", map[string]any{}))
}

// anthropicStatusError is the body Anthropic sends with a failure status.
func anthropicStatusError(status int) map[string]any {
	switch status {
	case http.StatusBadRequest:
		return anthropicError("invalid_request_error", "Invalid request.")
	case http.StatusUnauthorized:
		return anthropicError("authentication_error", "invalid x-api-key")
	case http.StatusForbidden:
		return anthropicError("permission_error", "Your API key does not have permission to use the specified resource.")
	case http.StatusNotFound:
		return anthropicError("not_found_error", "model: fake-model")
	case http.StatusRequestEntityTooLarge:
		return anthropicError("request_too_large", "Request exceeds the maximum allowed number of bytes.")
	case http.StatusTooManyRequests:
		return anthropicError("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit.")
	case 529:
		return anthropicError("overloaded_error", "Overloaded")
	case http.StatusGatewayTimeout:
		return anthropicError("timeout_error", "Request timed out.")
	}
	if status >= 500 {
		return anthropicError("api_error", "Internal server error")
	}
	return anthropicError("invalid_request_error", http.StatusText(status))
}
