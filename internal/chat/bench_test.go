package chat_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"concierge/internal/app"
	"concierge/internal/chat"
	"concierge/internal/llm"
	"concierge/internal/llm/llmtest"
	"concierge/internal/testkit"
)

// streamBenchReply is what the fake model answers, one word per chunk as
// a model streams tokens.
const streamBenchReply = "Orders ship from our warehouse in Pune within two business days [1]. Delivery inside India " +
	"takes three to five days, and international delivery takes ten to fourteen days [1]. You receive a tracking " +
	"link as soon as the parcel leaves the warehouse."

var streamBenchQuestions = []string{
	"How long does delivery inside India take?",
	"Where do orders ship from?",
	"How long do refunds take after a return?",
	"When does the support team answer chat?",
}

// BenchmarkStreamOverhead measures what POST /chat/stream adds between
// the model and the visitor: from the moment the fake OpenAI server writes
// the first text chunk of a reply (llmtest's ChunkTimes[0], taken just
// before the write) to the moment the client holds the first byte of
// reply text after the METADATA line. In between: the OpenAI client
// reading and decoding the SSE event, the retry runner, the Model
// answerer's sentinel check, the METADATA line, the escaper, the write and
// flush of the chunked response, loopback TCP and the client's read. Both
// times come from this process's clock (monotonic readings).
//
// Requests are sequential, over one keep-alive connection, on the real
// service in process (SQLite; the database is not on this path: it is
// written before the model is called and after the reply ends). Run it
// with a fixed count so the percentiles have enough samples:
//
//	go test -run '^$' -bench StreamOverhead -benchtime 500x ./internal/chat/
func BenchmarkStreamOverhead(b *testing.B) {
	fake := llmtest.NewOpenAI(b)
	fake.Handle(func(llmtest.Received) llmtest.Reply {
		return llmtest.Reply{Text: streamBenchReply, FirstDelay: 2 * time.Millisecond, ChunkDelay: time.Millisecond}
	})
	cfg := fake.Config()
	cfg.IdleTimeout = time.Minute
	model, err := llm.New(cfg, nil) // the production HTTP client, as serve builds it
	if err != nil {
		b.Fatal(err)
	}
	a := testkit.NewApp(b, testkit.SQLite, testkit.WithEnv("CONCIERGE_RATE_LIMITS", "off"),
		testkit.WithOptions(func(o *app.Options) { o.Answerer = chat.Model{LLM: model} }))
	key, ws := a.Register(b, "bench@example.com")
	if _, err := a.Billing.Grant(context.Background(), ws, 10_000_000, "bench", "benchmark credits"); err != nil {
		b.Fatal(err)
	}
	r := a.Do(b, "POST", "/bots", map[string]any{"name": "Shop helper"}, "X-API-Key", key)
	if r.Status != http.StatusCreated {
		b.Fatalf("bot: %d %s", r.Status, r.Body)
	}
	botID, botKey := int64(r.JSON(b)["bot_id"].(float64)), r.JSON(b)["bot_key"].(string)
	r = a.Upload(b, "/ingest", key, botID, testkit.File{Name: "handbook.md", Data: []byte(handbook)})
	if r.Status != http.StatusAccepted {
		b.Fatalf("ingest: %d %s", r.Status, r.Body)
	}
	waitIngested(b, a, key, r.JSON(b)["job_id"].(string))

	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	type sample struct {
		question    string
		sent, first time.Time
	}
	var samples []sample
	for b.Loop() {
		q := streamBenchQuestions[len(samples)%len(streamBenchQuestions)]
		body, _ := json.Marshal(map[string]string{"message": q})
		req, err := http.NewRequest(http.MethodPost, a.URL+"/chat/stream", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Bot-Key", botKey)
		s := sample{question: q, sent: time.Now()}
		s.first, err = firstTextByte(client, req)
		if err != nil {
			b.Fatalf("request %d: %v", len(samples), err)
		}
		samples = append(samples, s)
	}

	// One model request per chat request, in the same order (requests are
	// sequential and the fake never fails, so nothing is retried).
	recs := fake.Requests()
	if len(recs) != len(samples) {
		b.Fatalf("%d chat requests but %d model requests", len(samples), len(recs))
	}
	var overhead, firstText, beforeModel []time.Duration
	for i, s := range samples {
		rec := recs[i]
		if len(rec.Messages) == 0 || rec.Messages[len(rec.Messages)-1].Content != s.question || len(rec.ChunkTimes) == 0 {
			b.Fatalf("model request %d does not match chat request %d (%q)", rec.Seq, i, s.question)
		}
		overhead = append(overhead, s.first.Sub(rec.ChunkTimes[0]))
		firstText = append(firstText, s.first.Sub(s.sent))
		beforeModel = append(beforeModel, rec.At.Sub(s.sent))
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	oh, ft, bm := summarize(overhead), summarize(firstText), summarize(beforeModel)
	b.ReportMetric(ms(oh.p50), "overhead-p50-ms")
	b.ReportMetric(ms(oh.p99), "overhead-p99-ms")
	b.ReportMetric(ms(oh.max), "overhead-max-ms")
	b.ReportMetric(ms(ft.p50), "first-text-p50-ms")
	b.Logf("stream overhead, fake model's first chunk → client's first text byte, %d requests: "+
		"p50 %.3f ms, p99 %.3f ms, max %.3f ms, min %.3f ms | request sent → model request received: p50 %.2f ms, p99 %.2f ms | "+
		"request sent → first text byte: p50 %.2f ms, p99 %.2f ms (model's first-token delay %s)",
		len(samples), ms(oh.p50), ms(oh.p99), ms(oh.max), ms(oh.min), ms(bm.p50), ms(bm.p99), ms(ft.p50), ms(ft.p99),
		2*time.Millisecond)
}

// firstTextByte sends req and reads the stream: the METADATA line, then
// the first byte of reply text, whose arrival time it returns, then the
// rest, which must end with the FINAL_METADATA of an answered reply.
func firstTextByte(client *http.Client, req *http.Request) (time.Time, error) {
	resp, err := client.Do(req)
	if err != nil {
		return time.Time{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(resp.Body)
		return time.Time{}, fmt.Errorf("status %d: %s", resp.StatusCode, raw)
	}
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, chat.MetadataPrefix) {
		return time.Time{}, fmt.Errorf("no METADATA line: %q %v", line, err)
	}
	c, err := br.ReadByte()
	first := time.Now()
	if err != nil || c == '\n' {
		return time.Time{}, fmt.Errorf("no reply text after METADATA: %q %v", c, err)
	}
	rest, err := io.ReadAll(br)
	if err != nil {
		return time.Time{}, err
	}
	i := bytes.Index(rest, []byte("\n"+chat.FinalMetadataPrefix))
	if i < 0 || !bytes.Contains(rest[i:], []byte(`"answered":true`)) {
		return time.Time{}, fmt.Errorf("no FINAL_METADATA of an answered reply: %q", rest)
	}
	return first, nil
}

type durations struct{ min, p50, p99, max time.Duration }

// summarize gives nearest-rank percentiles of ds, which is not empty.
func summarize(ds []time.Duration) durations {
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(p int) time.Duration { return s[max((len(s)*p+99)/100, 1)-1] }
	return durations{min: s[0], p50: rank(50), p99: rank(99), max: s[len(s)-1]}
}

// waitIngested polls an ingestion job until it completed.
func waitIngested(b *testing.B, a *testkit.TestApp, key, jobID string) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := a.Do(b, "GET", "/ingest/status/"+jobID, nil, "X-API-Key", key).JSON(b)["status"]
		if st == "completed" {
			return
		}
		if st == "failed" || st == "partial" || time.Now().After(deadline) {
			b.Fatalf("ingestion %v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
