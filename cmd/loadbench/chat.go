package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os/exec"
	"strings"
	"time"
)

// The chat scenario: POST /chat with X-Bot-Key and a rotating set of
// questions about a bot's knowledge base of about -passages passages,
// answered by the default (extractive) answerer. Every reply writes to the
// database (a session, the question, the reply, a ledger entry and the
// settle job of its credit reservation), so the run also checks that the
// credits spent equal the replies delivered.

const (
	chatQuestionCount = 1000
	chatUploadFiles   = 10 // files per POST /ingest (the service takes up to 20)
	chatCredits       = 100_000_000
)

// chatSetup is a concierge target ready for the chat load.
type chatSetup struct {
	apiKey, botKey string
	botID          int64
	documents      int
	passages       int
	ingestTook     time.Duration
	balance        int64 // credits after the probe, before the load
}

// chatRequestBodies are the JSON bodies of the questions.
func chatRequestBodies(passages int) [][]byte {
	qs := chatQuestions(passages, chatQuestionCount)
	out := make([][]byte, len(qs))
	for i, q := range qs {
		out[i], _ = json.Marshal(map[string]string{"message": q})
	}
	return out
}

// chatWorkload posts the questions in turn; worker w starts at its own
// offset so that concurrent requests ask different things.
func chatWorkload(url, botKey string, bodies [][]byte, conns int) workload {
	return workload{
		newRequest: func(ctx context.Context, w, n int) (*http.Request, error) {
			body := bodies[(w*len(bodies)/conns+n)%len(bodies)]
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
			if err != nil {
				return nil, err
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Bot-Key", botKey)
			return req, nil
		},
		check: func(body []byte) bool { return bytes.Contains(body, []byte(`"answered":true`)) },
	}
}

// setupChat registers an account, creates a bot, grants credits with the
// operator CLI, uploads the handbook and waits for it to be indexed, and
// asks one question (which also builds the bot's retrieval index).
func setupChat(ctx context.Context, o options, base string, env []string, dir string, logf func(string, ...any)) (*chatSetup, error) {
	key, email, err := register(ctx, base)
	if err != nil {
		return nil, err
	}
	cs := &chatSetup{apiKey: key}
	var bot struct {
		BotID  int64  `json:"bot_id"`
		BotKey string `json:"bot_key"`
	}
	if err := call(ctx, http.MethodPost, base+"/bots", "X-API-Key", key, []byte(`{"name":"Shop assistant"}`),
		http.StatusCreated, &bot); err != nil {
		return nil, fmt.Errorf("create bot: %w", err)
	}
	cs.botID, cs.botKey = bot.BotID, bot.BotKey

	// The CLI opens the same database as the server (same environment).
	gctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(gctx, o.bin, "credits", "grant", "--email", email, "--credits", fmt.Sprint(chatCredits),
		"--reason", "loadbench")
	cmd.Env, cmd.Dir = env, dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("concierge credits grant: %v\n%s", err, out)
	}

	files := handbookFiles(o.passages)
	var size int
	for _, f := range files {
		size += len(f.data)
	}
	logf("chat: uploading %d files (%.1f MB) of about %d passages, %d files per upload",
		len(files), float64(size)/(1<<20), o.passages, chatUploadFiles)
	t0 := time.Now()
	var jobIDs []string
	for i := 0; i < len(files); i += chatUploadFiles {
		id, err := ingest(ctx, base, key, cs.botID, files[i:min(i+chatUploadFiles, len(files))])
		if err != nil {
			return nil, err
		}
		jobIDs = append(jobIDs, id)
	}
	for _, id := range jobIDs {
		if err := waitIngestion(ctx, base, key, id, 10*time.Minute); err != nil {
			return nil, err
		}
	}
	cs.ingestTook = time.Since(t0)
	var state struct {
		Documents int `json:"documents"`
		Passages  int `json:"passages"`
	}
	if err := call(ctx, http.MethodGet, fmt.Sprintf("%s/documents/knowledge-state?bot_id=%d", base, cs.botID), "X-API-Key", key,
		nil, http.StatusOK, &state); err != nil {
		return nil, fmt.Errorf("knowledge state: %w", err)
	}
	cs.documents, cs.passages = state.Documents, state.Passages
	logf("chat: %d documents, %d passages indexed in %.1fs", state.Documents, state.Passages, cs.ingestTook.Seconds())

	var rep struct {
		Reply    string `json:"reply"`
		Answered bool   `json:"answered"`
		Credits  int64  `json:"credits_charged"`
	}
	q := chatRequestBodies(o.passages)[0]
	t0 = time.Now()
	if err := call(ctx, http.MethodPost, base+"/chat", "X-Bot-Key", cs.botKey, q, http.StatusOK, &rep); err != nil {
		return nil, fmt.Errorf("first chat: %w", err)
	}
	logf("chat: first question (builds the retrieval index) answered in %s: %s → answered=%v, %q",
		fmtDur(time.Since(t0)), q, rep.Answered, excerpt(rep.Reply, 100))
	// An answer costs the plan's chat_reply credit; an "I don't know" costs
	// nothing.
	if want := map[bool]int64{true: 1, false: 0}[rep.Answered]; rep.Credits != want {
		return nil, fmt.Errorf("first chat: credits_charged %d with answered=%v, want %d", rep.Credits, rep.Answered, want)
	}
	if cs.balance, err = balance(ctx, base, key); err != nil {
		return nil, err
	}
	return cs, nil
}

// balance is the workspace's credit balance.
func balance(ctx context.Context, base, key string) (int64, error) {
	var b struct {
		Balance int64 `json:"balance"`
	}
	if err := call(ctx, http.MethodGet, base+"/credits/balance", "X-API-Key", key, nil, http.StatusOK, &b); err != nil {
		return 0, fmt.Errorf("credits balance: %w", err)
	}
	return b.Balance, nil
}

// ingest uploads files to the bot (multipart POST /ingest) and returns the
// job id.
func ingest(ctx context.Context, base, key string, botID int64, files []upload) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if err := mw.WriteField("bot_id", fmt.Sprint(botID)); err != nil {
		return "", err
	}
	for _, f := range files {
		part, err := mw.CreateFormFile("files", f.name)
		if err != nil {
			return "", err
		}
		if _, err := part.Write(f.data); err != nil {
			return "", err
		}
	}
	if err := mw.Close(); err != nil {
		return "", err
	}
	var out struct {
		JobID string `json:"job_id"`
	}
	if err := callType(ctx, http.MethodPost, base+"/ingest", mw.FormDataContentType(), "X-API-Key", key, body.Bytes(),
		http.StatusAccepted, &out); err != nil {
		return "", fmt.Errorf("upload: %w", err)
	}
	return out.JobID, nil
}

// waitIngestion polls GET /ingest/status/{id} until the job completed.
func waitIngestion(ctx context.Context, base, key, id string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var st struct {
			Status string `json:"status"`
			Files  []struct {
				Name  string  `json:"name"`
				Error *string `json:"error"`
			} `json:"files"`
		}
		if err := call(ctx, http.MethodGet, base+"/ingest/status/"+id, "X-API-Key", key, nil, http.StatusOK, &st); err != nil {
			return fmt.Errorf("ingestion status: %w", err)
		}
		switch st.Status {
		case "completed":
			return nil
		case "failed", "partial":
			var errs []string
			for _, f := range st.Files {
				if f.Error != nil {
					errs = append(errs, f.Name+": "+*f.Error)
				}
			}
			return fmt.Errorf("ingestion %s ended %s: %s", id, st.Status, strings.Join(errs, "; "))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ingestion %s still %s after %s", id, st.Status, timeout)
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// call sends a request with a JSON body (or none) and one credential
// header, and decodes the JSON answer into out when the status is want.
func call(ctx context.Context, method, url, header, value string, body []byte, want int, out any) error {
	ctype := ""
	if body != nil {
		ctype = "application/json"
	}
	return callType(ctx, method, url, ctype, header, value, body, want, out)
}

func callType(ctx context.Context, method, url, ctype, header, value string, body []byte, want int, out any) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set(header, value)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %s: %s", method, req.URL.Path, resp.Status, excerpt(string(b), 500))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: %w", method, req.URL.Path, err)
		}
	}
	return nil
}

func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// chatStats are a concierge target's chat figures beside the load's.
type chatStats struct {
	documents, passages int
	ingestTook          time.Duration
	// creditsSpent is the balance before the load minus after it: one
	// credit per delivered reply, so it should equal result.all200.
	creditsSpent int64
}
