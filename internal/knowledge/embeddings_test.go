package knowledge_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"concierge/internal/app"
	"concierge/internal/llm/llmtest"
	"concierge/internal/retrieval"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestPassagesAreEmbedded: with an embeddings server configured
// (CONCIERGE_EMBEDDINGS_*), every indexed passage is stored with its
// vector, embedded with its title and heading path; a question is
// embedded as it is searched and fused with the keyword ranking, so a
// synonym the page never uses finds it; a failing server delays a file
// (its job retries) rather than indexing it without vectors, on both
// engines.
func TestPassagesAreEmbedded(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		emb := llmtest.NewEmbeddings(t, []string{"car", "automobile", "vehicle", "tyres"}, []string{"cat", "kitten", "feline"})
		a := testkit.NewApp(t, e, testkit.WithEnv("CONCIERGE_EMBEDDINGS_BASE_URL", emb.BaseURL(),
			"CONCIERGE_EMBEDDINGS_API_KEY", emb.APIKey, "CONCIERGE_EMBEDDINGS_MODEL", emb.Model),
			testkit.WithOptions(func(o *app.Options) { o.Knowledge.EmbedRetryWait = 10 * time.Millisecond }))
		key, ws := a.Register(t, "dense@example.com")
		bot := newBot(t, a, key)

		ing := upload(t, a, key, bot, testkit.File{Name: "garage.md",
			Data: []byte("# Garage guide\n\n## Winter\n\nThe automobile needs new tyres before the first frost.\n")})
		if ing.Status != "completed" {
			t.Fatalf("ingestion: %+v", ing)
		}
		var inputs []string
		for _, r := range emb.Requests() {
			inputs = append(inputs, r...)
		}
		if len(inputs) != ing.Files[0].Passages || !strings.Contains(inputs[0], "Winter") ||
			!strings.Contains(inputs[0], "automobile needs new tyres") {
			t.Fatalf("embedded %d texts for %d passages: %q", len(inputs), ing.Files[0].Passages, inputs)
		}
		checkVectors := func(want int) {
			t.Helper()
			var rows []struct {
				Text      string `db:"text"`
				Embedding []byte `db:"embedding"`
			}
			if err := store.Select(ctx, a.DB.Reader(), &rows, `SELECT text, embedding FROM passages WHERE bot_id = ? ORDER BY id`, bot); err != nil {
				t.Fatal(err)
			}
			if len(rows) != want {
				t.Fatalf("%d passages, want %d", len(rows), want)
			}
			for _, r := range rows {
				v, err := retrieval.DecodeVector(r.Embedding)
				if err != nil || len(v) != emb.Dimensions() {
					t.Fatalf("passage %q: vector %v (%v)", r.Text, v, err)
				}
				if slices.Equal(v, emb.Vector("")) {
					t.Errorf("passage %q: the vector of an empty text", r.Text)
				}
			}
		}
		checkVectors(ing.Files[0].Passages)

		// "vehicle" is in no passage: the keyword ranking has nothing, the
		// dense one finds the automobile.
		before := len(emb.Requests())
		if got := search(t, a, ws, bot, "which vehicle?"); !strings.Contains(got, "automobile") {
			t.Fatalf("a synonym found %q", got)
		}
		if got := emb.Requests()[before:]; !cmp.Equal(got, [][]string{{"which vehicle?"}}) {
			t.Errorf("query embedding requests %q", got)
		}

		// The server fails four times: the file's first attempt gives up
		// after its three tries, the job retries, and the second attempt
		// stores the passages with their vectors.
		emb.FailNext(4)
		r := a.Upload(t, "/ingest", key, bot, testkit.File{Name: "cats.txt", Data: []byte("Brush the kitten weekly in spring.")})
		if r.Status != 202 {
			t.Fatalf("ingest: %d %s", r.Status, r.Body)
		}
		jobID := r.JSON(t)["job_id"].(string)
		for deadline := time.Now().Add(30 * time.Second); ; {
			// The retry is due on the service's (fake) clock.
			a.Clock.Advance(time.Second)
			r = a.Do(t, "GET", "/ingest/status/"+jobID, nil, "X-API-Key", key)
			if st := r.JSON(t)["status"]; st != "queued" && st != "running" {
				r.Decode(t, &ing)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("ingestion still unfinished: %s", r.Body)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if ing.Status != "completed" {
			t.Fatalf("ingestion after the server recovered: %+v", ing)
		}
		checkVectors(2)
		if got := search(t, a, ws, bot, "feline"); !strings.Contains(got, "kitten") {
			t.Fatalf("feline found %q", got)
		}
		if logs := a.Logs.String(); !strings.Contains(logs, "embedding passages failed") {
			t.Errorf("the failed tries were not logged")
		}
	})
}

// TestEmbeddingsBackfill: knowledge indexed before an embeddings model was
// configured (no vectors) or under another model is embedded again by the
// backfill job that every start queues, charging nothing, on both engines.
func TestEmbeddingsBackfill(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		emb := llmtest.NewEmbeddings(t, []string{"car", "automobile", "vehicle", "tyres"}, []string{"cat", "kitten", "feline"})
		a := testkit.NewApp(t, e, testkit.WithEnv("CONCIERGE_EMBEDDINGS_BASE_URL", emb.BaseURL(),
			"CONCIERGE_EMBEDDINGS_API_KEY", emb.APIKey, "CONCIERGE_EMBEDDINGS_MODEL", emb.Model))
		key, ws := a.Register(t, "backfill@example.com")
		bot := newBot(t, a, key)
		for _, f := range []testkit.File{
			{Name: "cars.txt", Data: []byte("The automobile needs new tyres before the first frost.")},
			{Name: "cats.txt", Data: []byte("Brush the kitten weekly in spring.")},
		} {
			if ing := upload(t, a, key, bot, f); ing.Status != "completed" {
				t.Fatalf("ingestion: %+v", ing)
			}
		}
		// As if cars.txt had been indexed with no model and cats.txt under
		// another one (its vectors now meaningless).
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := store.Exec(ctx, a.DB.Writer(), q, args...); err != nil {
				t.Fatal(err)
			}
		}
		exec(`UPDATE passages SET embedding = NULL WHERE document_id IN (SELECT id FROM documents WHERE name = 'cars.txt')`)
		exec(`UPDATE documents SET embedding_model = '' WHERE name = 'cars.txt'`)
		exec(`UPDATE passages SET embedding = ? WHERE document_id IN (SELECT id FROM documents WHERE name = 'cats.txt')`,
			retrieval.EncodeVector(make([]float32, emb.Dimensions())))
		exec(`UPDATE documents SET embedding_model = 'old-model' WHERE name = 'cats.txt'`)
		exec(`UPDATE bots SET knowledge_version = knowledge_version + 1 WHERE id = ?`, bot)
		if got := search(t, a, ws, bot, "vehicle"); got != "" {
			t.Fatalf("before the backfill a synonym found %q", got)
		}
		credits := balance(t, a, key)

		if err := a.Knowledge.EnsureScheduled(ctx); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			var left int
			if err := store.Get(ctx, a.DB.Reader(), &left, `SELECT COUNT(*) FROM documents WHERE bot_id = ? AND embedding_model <> ?`,
				bot, emb.Model); err != nil {
				t.Fatal(err)
			}
			if left == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d documents still not embedded with %s", left, emb.Model)
			}
		}
		// The index reloads the documents on its next version check.
		for q, want := range map[string]string{"vehicle": "automobile", "feline": "kitten"} {
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				got := search(t, a, ws, bot, q)
				if strings.Contains(got, want) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after the backfill %q found %q", q, got)
				}
			}
		}
		if got := balance(t, a, key); got != credits {
			t.Errorf("the backfill charged %d credits", credits-got)
		}
	})
}
