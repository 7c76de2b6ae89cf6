package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"concierge/internal/llm"
)

type openAIRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	MaxTokens           int      `json:"max_tokens"`
	MaxCompletionTokens int      `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
	Stream              bool     `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// openAIError is OpenAI's error body.
func openAIError(message, typ string, code any) map[string]any {
	return map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": code}}
}

func (s *Server) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	rec := &Received{At: time.Now(), Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	s.record(rec)
	fail := func(status int, v any) {
		s.update(func() { rec.Status = status })
		writeJSON(w, status, v)
	}

	if r.URL.Path != "/v1/chat/completions" {
		fail(http.StatusNotFound, openAIError("Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error", nil))
		return
	}
	if r.Method != http.MethodPost {
		fail(http.StatusMethodNotAllowed, openAIError("Method not allowed", "invalid_request_error", nil))
		return
	}
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || key != s.APIKey {
		// The real API masks the middle of the key it quotes; the fake
		// quotes it whole so that a client leaking it into errors is caught.
		fail(http.StatusUnauthorized, openAIError("Incorrect API key provided: "+key+". You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key"))
		return
	}
	var req openAIRequest
	if err := json.Unmarshal(body, &req); err != nil {
		fail(http.StatusBadRequest, openAIError("We could not parse the JSON body of your request.", "invalid_request_error", nil))
		return
	}
	s.update(func() {
		rec.Model, rec.Stream, rec.Temperature = req.Model, req.Stream, req.Temperature
		rec.MaxTokens = max(req.MaxTokens, req.MaxCompletionTokens)
		rec.IncludeUsage = req.StreamOptions != nil && req.StreamOptions.IncludeUsage
		var system []string
		for _, m := range req.Messages {
			text := textParts(m.Content)
			switch m.Role {
			case "system", "developer":
				system = append(system, text)
			default:
				rec.Messages = append(rec.Messages, llm.Message{Role: m.Role, Content: text})
			}
		}
		rec.System = strings.Join(system, "\n\n")
	})
	if req.Model == "" {
		fail(http.StatusBadRequest, openAIError("you must provide a model parameter", "invalid_request_error", nil))
		return
	}
	if len(req.Messages) == 0 {
		fail(http.StatusBadRequest, openAIError("[] is too short - 'messages'", "invalid_request_error", nil))
		return
	}

	s.mu.Lock()
	snapshot := *rec
	s.mu.Unlock()
	rep := s.reply(snapshot)
	if rep.RetryAfter != "" && (rep.Status != 0 || rep.Quota) {
		w.Header().Set("Retry-After", rep.RetryAfter)
	}
	switch {
	case rep.Quota:
		fail(http.StatusTooManyRequests, openAIError("You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.", "insufficient_quota", "insufficient_quota"))
		return
	case rep.Status == http.StatusBadGateway:
		// What a load balancer in front of the API sends: HTML, not JSON.
		s.update(func() { rec.Status = rep.Status })
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(rep.Status)
		_, _ = io.WriteString(w, "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>\n")
		return
	case rep.Status != 0:
		fail(rep.Status, openAIStatusError(rep.Status))
		return
	}

	text := replyText(rep, rec)
	finish := rep.StopReason
	if finish == "" {
		finish = "stop"
	}
	pieces := Split(text, rep.Chunks)
	usage := map[string]any{
		"prompt_tokens":     inputTokens(rec),
		"completion_tokens": words(text),
		"total_tokens":      inputTokens(rec) + words(text),
	}
	created := rec.At.Unix()
	id := fmt.Sprintf("chatcmpl-fake%d", rec.Seq)

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
			"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{
				"index": 0, "message": map[string]any{"role": "assistant", "content": text, "refusal": nil},
				"logprobs": nil, "finish_reason": finish,
			}},
			"usage": usage, "system_fingerprint": "fp_fake",
		})
		return
	}

	includeUsage := rec.IncludeUsage && !rep.NoUsage
	chunk := func(delta map[string]any, finish any) []byte {
		c := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"system_fingerprint": "fp_fake",
			"choices":            []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		}
		if includeUsage {
			c["usage"] = nil
		}
		return sse(c)
	}
	s.update(func() { rec.Status = http.StatusOK })
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if !st.raw(chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)) {
		return
	}
	if !st.wait(rep.FirstDelay) {
		return
	}
	for i, p := range pieces {
		if rep.Cut != NoCut && i == rep.CutAfter {
			break
		}
		if i > 0 && !st.wait(rep.ChunkDelay) {
			return
		}
		if !st.text(chunk(map[string]any{"content": p}, nil), p) {
			return
		}
	}
	switch rep.Cut {
	case CutConnection:
		st.abort()
	case CutEvents:
		return
	case CutError:
		st.raw(sse(openAIError("The server had an error while processing your request. Sorry about that!", "server_error", nil)))
		return
	}
	if !st.raw(chunk(map[string]any{}, finish)) {
		return
	}
	if includeUsage {
		if !st.raw(sse(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"system_fingerprint": "fp_fake", "choices": []any{}, "usage": usage,
		})) {
			return
		}
	}
	st.raw([]byte("data: [DONE]\n\n"))
}

// sse frames one OpenAI event.
func sse(v any) []byte {
	return []byte("data: " + string(mustJSON(v)) + "\n\n")
}

// openAIStatusError is the body OpenAI sends with a failure status.
func openAIStatusError(status int) map[string]any {
	switch {
	case status == http.StatusTooManyRequests:
		return openAIError("Rate limit reached for fake-model in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.", "requests", "rate_limit_exceeded")
	case status == http.StatusServiceUnavailable:
		return openAIError("The engine is currently overloaded, please try again later.", "server_error", nil)
	case status >= 500:
		return openAIError("The server had an error while processing your request. Sorry about that!", "server_error", nil)
	case status == http.StatusNotFound:
		return openAIError("The model `fake-model` does not exist or you do not have access to it.", "invalid_request_error", "model_not_found")
	case status == http.StatusUnauthorized:
		return openAIError("Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
	}
	return openAIError(fmt.Sprintf("Invalid request (%d %s).", status, http.StatusText(status)), "invalid_request_error", nil)
}
