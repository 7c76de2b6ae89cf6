package llm_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"concierge/internal/llm"
	"concierge/internal/llm/llmtest"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		cfg     llm.Config
		wantErr string // "" means success
		want    string // Name() on success
	}{
		{"openai defaults", llm.Config{Provider: "openai", Model: "gpt-4o-mini"}, "", "openai/gpt-4o-mini"},
		{"provider case and spaces", llm.Config{Provider: " Anthropic ", APIKey: "k", Model: "claude-x"}, "", "anthropic/claude-x"},
		{"local server without key", llm.Config{Provider: "openai", BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3.1"}, "", "openai/llama3.1"},
		{"unknown provider", llm.Config{Provider: "gemini", Model: "m"}, "unknown provider", ""},
		{"empty provider", llm.Config{Model: "m"}, "unknown provider", ""},
		{"no model", llm.Config{Provider: "openai"}, "model name is required", ""},
		{"anthropic without key", llm.Config{Provider: "anthropic", Model: "m"}, "needs an API key", ""},
		{"relative URL", llm.Config{Provider: "openai", Model: "m", BaseURL: "api.openai.com/v1"}, "absolute http(s) URL", ""},
		{"ftp URL", llm.Config{Provider: "openai", Model: "m", BaseURL: "ftp://x/v1"}, "absolute http(s) URL", ""},
		{"credentials in URL", llm.Config{Provider: "openai", Model: "m", BaseURL: "https://u:p@x/v1"}, "must not carry credentials", ""},
		{"negative attempts", llm.Config{Provider: "openai", Model: "m", MaxAttempts: -1}, "must not be negative", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := llm.New(tc.cfg, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Name() != tc.want {
				t.Errorf("Name() = %q, want %q", m.Name(), tc.want)
			}
		})
	}
}

func TestConfigMasksKey(t *testing.T) {
	const key = "sk-live-supersecret-123456"
	cfg := llm.Config{Provider: "openai", APIKey: key, Model: "m"}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "llm", cfg)
	for _, s := range []string{cfg.String(), fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg), logged.String()} {
		if strings.Contains(s, key) {
			t.Errorf("key printed: %s", s)
		}
	}
}

// TestAnthropicBaseURL: both the host and the host with /v1 work, as
// operators copy either from Anthropic's documentation.
func TestAnthropicBaseURL(t *testing.T) {
	for _, suffix := range []string{"", "/", "/v1", "/v1/"} {
		srv := llmtest.NewAnthropic(t)
		cfg := srv.Config()
		cfg.BaseURL += suffix
		m, err := llm.New(cfg, srv.Client())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Stream(t.Context(), question, nil); err != nil {
			t.Errorf("base URL %q: %v", cfg.BaseURL, err)
		}
		if r := srv.Last(t); r.Path != "/v1/messages" {
			t.Errorf("base URL %q: path %q", cfg.BaseURL, r.Path)
		}
	}
}

// TestStreamOptionsRefused: a server that does not know stream_options
// (older llama.cpp, vLLM, Azure API versions) still answers, without
// usage, and is not asked again.
func TestStreamOptionsRefused(t *testing.T) {
	var (
		mu     sync.Mutex
		bodies []map[string]any
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		if _, ok := body["stream_options"]; ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error","param":null,"code":null}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n"+
			"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	m, err := llm.New(llm.Config{Provider: "openai", BaseURL: srv.URL + "/v1", Model: "local", Sleep: llmtest.NoSleep}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		c, err := m.Stream(t.Context(), question, nil)
		if err != nil || c.Text != "hi" {
			t.Fatalf("Stream = %q, %v", c.Text, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 3 {
		t.Fatalf("%d requests, want 3 (refused, retried without, then without from the start)", len(bodies))
	}
	if _, ok := bodies[2]["stream_options"]; ok {
		t.Error("stream_options sent again after the server refused it")
	}
}
