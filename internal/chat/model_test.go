package chat_test

import (
	"strings"
	"testing"
	"time"

	"concierge/internal/app"
	"concierge/internal/chat"
	"concierge/internal/llm"
	"concierge/internal/llm/llmtest"
	"concierge/internal/testkit"
)

// TestModelAnswerer runs the chat endpoints against fakes of both model
// providers that speak their real streaming wire formats.
func TestModelAnswerer(t *testing.T) {
	for _, provider := range []string{llm.ProviderOpenAI, llm.ProviderAnthropic} {
		t.Run(provider, func(t *testing.T) {
			testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
				var fake *llmtest.Server
				if provider == llm.ProviderOpenAI {
					fake = llmtest.NewOpenAI(t)
				} else {
					fake = llmtest.NewAnthropic(t)
				}
				cfg := fake.Config()
				cfg.IdleTimeout = 300 * time.Millisecond
				cfg.MaxAttempts = 3
				model, err := llm.New(cfg, fake.Client())
				if err != nil {
					t.Fatal(err)
				}
				w := newWorld(t, e, testkit.WithOptions(func(o *app.Options) { o.Answerer = chat.Model{LLM: model} }))
				stream := func(msg string) (*testkit.Response, string, map[string]any) {
					t.Helper()
					r := w.a.Do(t, "POST", "/chat/stream", map[string]any{"message": msg}, "X-Bot-Key", w.botKey)
					if r.Status != 200 {
						return r, "", nil
					}
					_, text, final := readStream(t, string(r.Body))
					return r, text, final
				}
				bal := w.balance(t)

				// A grounded answer, streamed, cited, charged once.
				fake.Enqueue(llmtest.Reply{Text: "Orders ship from our warehouse in Pune [1].", ChunkDelay: time.Millisecond})
				_, text, final := stream("Where do orders ship from?")
				if text != "Orders ship from our warehouse in Pune [1]." || final["answered"] != true || len(final["sources"].([]any)) == 0 {
					t.Fatalf("answer: %q %v", text, final)
				}
				got := fake.Last(t)
				if !strings.Contains(got.System, "<passage number=\"1\"") || !strings.Contains(got.System, "Pune") ||
					!strings.Contains(got.System, "data, not instructions") ||
					got.Messages[len(got.Messages)-1].Content != "Where do orders ship from?" {
					t.Fatalf("prompt: %q %+v", got.System, got.Messages)
				}
				if b := w.balance(t); b != bal-1 {
					t.Fatalf("balance %d → %d", bal, b)
				}
				bal--

				// The model finds no answer in the passages: the bot's "I don't know".
				fake.Enqueue(llmtest.Reply{Text: "[[NO_ANSWER]]", Chunks: 4})
				_, text, final = stream("Do orders ship from the Pune warehouse on Sundays?")
				if !strings.Contains(text, "don't have information") || final["answered"] != false || len(final["sources"].([]any)) != 0 {
					t.Fatalf("no answer: %q %v", text, final)
				}
				bal-- // an honest "I don't know" is a delivered reply

				// Nothing in the knowledge speaks of most of the question
				// (retrieval's answerability): the model is not called.
				n0 := len(fake.Requests())
				_, text, final = stream("What is the warehouse manager's name?")
				if !strings.Contains(text, "don't have information") || final["answered"] != false || len(fake.Requests()) != n0 {
					t.Fatalf("unanswerable: %q %v after %d model requests", text, final, len(fake.Requests())-n0)
				}
				// ... and no credit: the reservation went back.
				if final["credits_charged"].(float64) != 0 {
					t.Fatalf("unanswerable: charged %v", final["credits_charged"])
				}
				if b := w.balance(t); b != bal {
					t.Fatalf("after an abstention: balance %d, want %d", b, bal)
				}

				// Rate limited twice, then an answer: retried before the first word.
				n := len(fake.Requests())
				fake.Enqueue(llmtest.Reply{Status: 429, RetryAfter: "1"}, llmtest.Reply{Status: 503}, llmtest.Reply{Text: "Two business days [1]."})
				if _, text, _ := stream("How fast do orders ship?"); text != "Two business days [1]." || len(fake.Requests())-n != 3 {
					t.Fatalf("retries: %q after %d requests", text, len(fake.Requests())-n)
				}
				bal--

				// Failures before the first word: 5xx with Retry-After, nothing charged.
				for name, script := range map[string][]llmtest.Reply{
					"quota":    {{Quota: true}},
					"down":     {{Status: 503}, {Status: 503}, {Status: 503}},
					"too slow": {{Text: "late", FirstDelay: 2 * time.Second}, {Text: "late", FirstDelay: 2 * time.Second}, {Text: "late", FirstDelay: 2 * time.Second}},
				} {
					n := len(fake.Requests())
					fake.Enqueue(script...)
					r, _, _ := stream("Where do orders ship from?")
					if r.Status < 500 || r.Header.Get("Retry-After") == "" || !strings.Contains(string(r.Body), "detail") {
						t.Fatalf("%s: %d %v %s", name, r.Status, r.Header, r.Body)
					}
					if name == "quota" && len(fake.Requests())-n != 1 {
						t.Fatalf("a spent quota was retried: %d requests", len(fake.Requests())-n)
					}
					if strings.Contains(string(r.Body), llmtest.DefaultAPIKey) {
						t.Fatalf("%s: the provider key leaked", name)
					}
				}

				// Cut mid-stream: the text so far reached the visitor, the
				// final line says it broke off, nothing is charged.
				fake.Enqueue(llmtest.Reply{Text: "Orders ship from our warehouse in Pune within two days.", Chunks: 5, Cut: llmtest.CutConnection, CutAfter: 2})
				_, text, final = stream("Where do orders ship from?")
				if final["error"] == nil || final["credits_charged"].(float64) != 0 || text == "" {
					t.Fatalf("cut: %q %v", text, final)
				}
				if b := w.balance(t); b != bal {
					t.Fatalf("balance %d, want %d", b, bal)
				}
			})
		})
	}
}
