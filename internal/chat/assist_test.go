package chat_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"concierge/internal/testkit"
)

const faqPage = `# Frequently asked questions

## Pricing

The Starter plan costs 499 rupees a month and includes one chatbot.

## Is there a free trial?

Yes! Every new workspace gets a fourteen day free trial with all features. You'll love it!

## Integrations

We connect to Slack, HubSpot and Zapier out of the box.
`

func verify(t *testing.T, a *testkit.TestApp, email string) {
	t.Helper()
	code := a.Mailbox.Code(t, email, 1)
	if r := a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": code}); r.Status != 200 {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
}

func TestSeedQuestionsAndBrandTone(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		r := w.a.Upload(t, "/ingest", w.key, w.bot, testkit.File{Name: "faq.md", Data: []byte(faqPage)})
		waitJob(t, w.a, w.key, r.JSON(t)["job_id"].(string))
		path := fmt.Sprintf("/bots/%d/seed-questions", w.bot)

		r = w.a.Do(t, "POST", path, nil, "X-API-Key", w.key)
		if d, _ := r.JSON(t)["detail"].(map[string]any); r.Status != 403 || d["error"] != "email_not_verified" {
			t.Fatalf("unverified: %d %s", r.Status, r.Body)
		}
		verify(t, w.a, "owner@example.com")
		r = w.a.Do(t, "POST", path, nil, "X-API-Key", w.key)
		var got struct {
			Questions []string `json:"questions"`
		}
		r.Decode(t, &got)
		if r.Status != 200 || len(got.Questions) == 0 || len(got.Questions) > 3 {
			t.Fatalf("seed questions: %d %s", r.Status, r.Body)
		}
		t.Logf("seed questions: %q", got.Questions)
		// Every question is one the live bot answers.
		for _, q := range got.Questions {
			if _, rep := w.chat(t, q, ""); !rep.Answered {
				t.Errorf("seed question %q is not answered: %q", q, rep.Reply)
			}
		}
		// Cached: new knowledge changes nothing until force=true.
		r2 := w.a.Do(t, "POST", path, nil, "X-API-Key", w.key)
		if string(r2.Body) != string(r.Body) {
			t.Fatalf("not cached: %s vs %s", r2.Body, r.Body)
		}
		if r := w.a.Do(t, "POST", path+"?force=true", nil, "X-API-Key", w.key); r.Status != 200 {
			t.Fatalf("force: %d %s", r.Status, r.Body)
		}

		// A bot without knowledge: an empty list, not an error.
		empty, _ := createBot(t, w.a, w.key, "Empty")
		r = w.a.Do(t, "POST", fmt.Sprintf("/bots/%d/seed-questions", empty), nil, "X-API-Key", w.key)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"questions":[]`) {
			t.Fatalf("empty bot: %d %s", r.Status, r.Body)
		}

		// Brand tone: detected from the content, written, unlocked.
		r = w.a.Do(t, "POST", fmt.Sprintf("/bots/%d/brand-tone/detect", w.bot), nil, "X-API-Key", w.key)
		m := r.JSON(t)
		if r.Status != 200 || m["tone_preset"] == "" || m["brand_tone"] == "" || m["brand_tone_locked"] != false {
			t.Fatalf("detect: %d %s", r.Status, r.Body)
		}
		b := w.a.Do(t, "GET", fmt.Sprintf("/bots/%d", w.bot), nil, "X-API-Key", w.key).JSON(t)
		if !strings.Contains(fmt.Sprint(b), fmt.Sprint(m["brand_tone"])) {
			t.Fatalf("tone not saved on the bot: %v", b)
		}
		if r := w.a.Do(t, "POST", fmt.Sprintf("/bots/%d/brand-tone/detect", empty), nil, "X-API-Key", w.key); r.Status != 409 {
			t.Fatalf("detect without content: %d %s", r.Status, r.Body)
		}

		// Preview: one or two sentences, nothing saved.
		r = w.a.Do(t, "POST", fmt.Sprintf("/bots/%d/brand-tone/preview", w.bot), map[string]any{"tone_preset": "friendly"}, "X-API-Key", w.key)
		sample, _ := r.JSON(t)["sample"].(string)
		if r.Status != 200 || !strings.HasPrefix(sample, "Happy to help!") || strings.Count(sample, ".")+strings.Count(sample, "!") > 3 {
			t.Fatalf("preview: %d %s", r.Status, r.Body)
		}
		if r := w.a.Do(t, "POST", fmt.Sprintf("/bots/%d/brand-tone/preview", w.bot), map[string]any{"tone_preset": "nope"}, "X-API-Key", w.key); r.Status != 422 {
			t.Fatalf("unknown preset: %d", r.Status)
		}
		for _, p := range []string{"seed-questions", "brand-tone/detect", "brand-tone/preview"} {
			if r := w.a.Do(t, "POST", fmt.Sprintf("/bots/%d/%s", w.otherBotID, p), map[string]any{}, "X-API-Key", w.key); r.Status != 403 {
				t.Errorf("%s on another workspace's bot: %d", p, r.Status)
			}
		}
	})
}

// TestCrawlRefreshesUnlockedTone: after a crawl the detected tone follows
// the site, until the owner writes their own.
func TestCrawlRefreshesUnlockedTone(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Party Supplies!</title></head><body><main><h1>Welcome!</h1>
			<p>We love parties! Grab the brightest balloons in town! Order today and celebrate!</p>
			<p>Confetti, streamers and cakes! Everything ships fast! You'll be amazed!</p></main></body></html>`)
	}))
	defer site.Close()
	w := newWorld(t, testkit.SQLite, testkit.WithEnv("CONCIERGE_OUTBOUND_ALLOW", "127.0.0.1/32"))
	crawl := func() {
		t.Helper()
		if r := w.a.Do(t, "POST", "/crawl", map[string]any{"bot_id": w.bot, "url": site.URL + "/"}, "X-API-Key", w.key); r.Status != 202 {
			t.Fatalf("crawl: %d %s", r.Status, r.Body)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			st := w.a.Do(t, "GET", fmt.Sprintf("/crawl/progress?bot_id=%d", w.bot), nil, "X-API-Key", w.key).JSON(t)["status"]
			if st == "completed" {
				return
			}
			if st == "failed" || time.Now().After(deadline) {
				t.Fatalf("crawl %v", st)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	bot := func() map[string]any {
		return w.a.Do(t, "GET", fmt.Sprintf("/bots/%d", w.bot), nil, "X-API-Key", w.key).JSON(t)
	}
	crawl()
	if got := fmt.Sprint(bot()); !strings.Contains(got, "enthusiastic") {
		t.Fatalf("tone after crawl: %s", got)
	}
	// The owner writes their own tone: later crawls leave it alone.
	if r := w.a.Do(t, "PATCH", fmt.Sprintf("/bots/%d", w.bot), map[string]any{"tone": map[string]any{"brand_tone": "Calm and factual."}},
		"X-API-Key", w.key); r.Status != 200 {
		t.Fatalf("patch tone: %d %s", r.Status, r.Body)
	}
	crawl()
	if got := fmt.Sprint(bot()); !strings.Contains(got, "Calm and factual.") {
		t.Fatalf("locked tone changed by a crawl: %s", got)
	}
}
