package llmtest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"concierge/internal/llm"
	"concierge/internal/llm/llmtest"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		text   string
		chunks int
		want   []string
	}{
		{"", 0, nil},
		{"one", 0, []string{"one"}},
		{"one two  three", 0, []string{"one", " two", "  three"}},
		{"abcdefg", 3, []string{"abc", "de", "fg"}},
		{"héllo", 2, []string{"hél", "lo"}},
		{"ab", 5, []string{"a", "b"}},
		{"ab", 1, []string{"ab"}},
	}
	for _, tc := range tests {
		got := llmtest.Split(tc.text, tc.chunks)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Split(%q, %d) (-want +got):\n%s", tc.text, tc.chunks, diff)
		}
	}
}

func TestEcho(t *testing.T) {
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "first"}, {Role: llm.RoleAssistant, Content: "x"},
		{Role: llm.RoleUser, Content: "a b c d e f g h i j k l m n"}}
	if got, want := llmtest.Echo(msgs), "You asked: a b c d e f g h i j k l …"; got != want {
		t.Errorf("Echo = %q, want %q", got, want)
	}
	if got := llmtest.Echo(nil); got == "" {
		t.Error("Echo of nothing is empty")
	}
}

// TestOpenAINonStream checks the fake's JSON answer with an independent
// parser of the format: go-openai's non-streaming call.
func TestOpenAINonStream(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	cfg := openai.DefaultConfig(srv.APIKey)
	cfg.BaseURL = srv.URL
	cfg.HTTPClient = srv.Client()
	resp, err := openai.NewClientWithConfig(cfg).CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessage{{Role: "system", Content: "be brief"}, {Role: "user", Content: "Opening hours?"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.Content; got != "You asked: Opening hours?" {
		t.Errorf("content = %q", got)
	}
	if resp.Choices[0].FinishReason != openai.FinishReasonStop || resp.Usage.CompletionTokens == 0 {
		t.Errorf("finish %q, usage %+v", resp.Choices[0].FinishReason, resp.Usage)
	}
	r := srv.Last(t)
	if r.System != "be brief" || r.Stream || r.Model != "gpt-test" {
		t.Errorf("recorded %+v", r)
	}
}

func TestAnthropicNonStream(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/v1/messages",
		strings.NewReader(`{"model":"claude-test","max_tokens":50,"system":[{"type":"text","text":"be brief"}],"messages":[{"role":"user","content":[{"type":"text","text":"Opening hours?"}]}]}`))
	req.Header.Set("x-api-key", srv.APIKey)
	req.Header.Set("anthropic-version", llm.AnthropicVersion)
	req.Header.Set("content-type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg struct {
		Type    string `json:"type"`
		Content []struct {
			Type, Text string
		} `json:"content"`
		StopReason string `json:"stop_reason"`
		Usage      struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || msg.Type != "message" || len(msg.Content) != 1 ||
		msg.Content[0].Text != "You asked: Opening hours?" || msg.StopReason != "end_turn" || msg.Usage.OutputTokens == 0 {
		t.Errorf("status %d, message %+v", resp.StatusCode, msg)
	}
	if r := srv.Last(t); r.System != "be brief" || r.Messages[0].Content != "Opening hours?" {
		t.Errorf("recorded system %q, messages %+v", r.System, r.Messages)
	}
}

func TestAuthChecked(t *testing.T) {
	tests := []struct {
		name    string
		start   func(testing.TB) *llmtest.Server
		path    string
		headers map[string]string
		status  int
		errType string
	}{
		{"openai no key", llmtest.NewOpenAI, "/chat/completions", nil, 401, "invalid_request_error"},
		{"openai wrong key", llmtest.NewOpenAI, "/chat/completions", map[string]string{"Authorization": "Bearer nope"}, 401, "invalid_request_error"},
		{"openai wrong path", llmtest.NewOpenAI, "/completions", nil, 404, "invalid_request_error"},
		{"anthropic no key", llmtest.NewAnthropic, "/v1/messages", map[string]string{"anthropic-version": llm.AnthropicVersion}, 401, "authentication_error"},
		{"anthropic no version", llmtest.NewAnthropic, "/v1/messages", map[string]string{"x-api-key": llmtest.DefaultAPIKey}, 400, "invalid_request_error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.start(t)
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+tc.path, strings.NewReader(`{}`))
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error struct {
					Type string `json:"type"`
				} `json:"error"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tc.status || body.Error.Type != tc.errType {
				t.Errorf("status %d type %q, want %d %q", resp.StatusCode, body.Error.Type, tc.status, tc.errType)
			}
			if got := srv.Last(t).Status; got != tc.status {
				t.Errorf("recorded status %d", got)
			}
		})
	}
}

// TestChunkTimes: the recorded times follow the scripted pacing, so a test
// can measure what a consumer adds on top of the model's own latency.
func TestChunkTimes(t *testing.T) {
	for _, start := range []func(testing.TB) *llmtest.Server{llmtest.NewOpenAI, llmtest.NewAnthropic} {
		srv := start(t)
		srv.Handle(func(r llmtest.Received) llmtest.Reply {
			return llmtest.Reply{Text: "abcd", Chunks: 4, FirstDelay: 40 * time.Millisecond, ChunkDelay: 20 * time.Millisecond}
		})
		m := srv.Model(t)
		var got []time.Time
		if _, err := m.Stream(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}},
			func(string) error { got = append(got, time.Now()); return nil }); err != nil {
			t.Fatal(err)
		}
		r := srv.Last(t)
		if len(r.ChunkTimes) != 4 || len(got) != 4 || r.Reply != "abcd" {
			t.Fatalf("%d chunk times, %d deltas, reply %q", len(r.ChunkTimes), len(got), r.Reply)
		}
		if first := r.ChunkTimes[0].Sub(r.At); first < 40*time.Millisecond {
			t.Errorf("first chunk %s after the request, want at least the 40ms FirstDelay", first)
		}
		for i := 1; i < 4; i++ {
			if gap := r.ChunkTimes[i].Sub(r.ChunkTimes[i-1]); gap < 20*time.Millisecond {
				t.Errorf("gap %d = %s, want at least the 20ms ChunkDelay", i, gap)
			}
			if got[i].Before(r.ChunkTimes[i]) {
				t.Errorf("delta %d received before it was written", i)
			}
		}
	}
}

func TestQueueThenHandle(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Enqueue(llmtest.Reply{Text: "queued"})
	srv.Handle(func(r llmtest.Received) llmtest.Reply {
		return llmtest.Reply{Text: "handled " + r.Messages[0].Content + " #" + string(rune('0'+r.Seq))}
	})
	m := srv.Model(t)
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}}
	var texts []string
	for range 2 {
		c, err := m.Stream(t.Context(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, c.Text)
	}
	if diff := cmp.Diff([]string{"queued", "handled q #2"}, texts); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
