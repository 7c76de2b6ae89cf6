package knowledge_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"concierge/internal/jobs"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func newBot(t *testing.T, a *testkit.TestApp, key string) int64 {
	t.Helper()
	r := a.Do(t, "POST", "/bots", map[string]any{"name": "kb"}, "X-API-Key", key)
	if r.Status != 201 {
		t.Fatalf("bot: %d %s", r.Status, r.Body)
	}
	return int64(r.JSON(t)["bot_id"].(float64))
}

type ingestion struct {
	JobID          string `json:"job_id"`
	Status         string `json:"status"`
	CreditsCharged int64  `json:"credits_charged"`
	Files          []struct {
		Name     string  `json:"name"`
		Status   string  `json:"status"`
		Passages int     `json:"passages"`
		Credits  int64   `json:"credits"`
		Error    *string `json:"error"`
	} `json:"files"`
}

// waitIngestion polls the status endpoint until the job is terminal.
func waitIngestion(t *testing.T, a *testkit.TestApp, key, jobID string) ingestion {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var ing ingestion
		r := a.Do(t, "GET", "/ingest/status/"+jobID, nil, "X-API-Key", key)
		if r.Status != 200 {
			t.Fatalf("status: %d %s", r.Status, r.Body)
		}
		r.Decode(t, &ing)
		switch ing.Status {
		case "completed", "failed", "partial":
			return ing
		}
		if time.Now().After(deadline) {
			t.Fatalf("ingestion still %s: %s", ing.Status, r.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func upload(t *testing.T, a *testkit.TestApp, key string, bot int64, files ...testkit.File) ingestion {
	t.Helper()
	r := a.Upload(t, "/ingest", key, bot, files...)
	if r.Status != 202 {
		t.Fatalf("ingest: %d %s", r.Status, r.Body)
	}
	var ing ingestion
	r.Decode(t, &ing)
	if !strings.HasPrefix(ing.JobID, "ing_") || len(ing.JobID) < 24 {
		t.Fatalf("job id %q", ing.JobID)
	}
	return waitIngestion(t, a, key, ing.JobID)
}

// docx builds a minimal Word document with a heading and paragraphs.
func docx(t *testing.T, heading string, paras ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	add := func(name, body string) {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	add("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`)
	var body strings.Builder
	body.WriteString(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`)
	fmt.Fprintf(&body, `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>%s</w:t></w:r></w:p>`, heading)
	for _, p := range paras {
		fmt.Fprintf(&body, `<w:p><w:r><w:t>%s</w:t></w:r></w:p>`, p)
	}
	body.WriteString(`</w:body></w:document>`)
	add("word/document.xml", body.String())
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func balance(t *testing.T, a *testkit.TestApp, key string) int64 {
	t.Helper()
	return int64(a.Do(t, "GET", "/credits/balance", nil, "X-API-Key", key).JSON(t)["balance"].(float64))
}

func search(t *testing.T, a *testkit.TestApp, ws, bot int64, q string) string {
	t.Helper()
	hits, err := a.Retrieval.Search(context.Background(), ws, bot, q, 5)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, h := range hits {
		b.WriteString(h.Text + "\n")
	}
	return b.String()
}

func TestUploadEveryFormat(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, ws := a.Register(t, "kb@example.com")
		bot := newBot(t, a, key)
		before := balance(t, a, key)
		files := []testkit.File{
			{Name: "pricing.md", Data: []byte("# Pricing\n\n## Enterprise\n\nThe enterprise plan includes single sign-on and a dedicated zebracorn success manager.\n")},
			{Name: "notes.txt", Data: []byte("Our office in Pune opens at nine.\n\nParking is free for visitors.")},
			{Name: "hours.csv", Data: []byte("day,open,close\nMonday,9,17\nSaturday,10,14\n")},
			{Name: "about.html", Data: []byte("<html><head><title>About us</title></head><body><nav>menu</nav><main><h1>About us</h1><p>We build quokkatronic widgets for bakeries since 1999, shipped worldwide from Lisbon.</p></main></body></html>")},
			{Name: "handbook.docx", Data: docx(t, "Returns", "Returns are accepted within thirty days of purchase with the original flamingobox receipt.")},
		}
		ing := upload(t, a, key, bot, files...)
		if ing.Status != "completed" || len(ing.Files) != len(files) {
			t.Fatalf("ingestion: %+v", ing)
		}
		var charged int64
		for _, f := range ing.Files {
			if f.Status != "completed" || f.Passages == 0 || f.Credits <= 0 {
				t.Errorf("file %s: %+v", f.Name, f)
			}
			charged += f.Credits
		}
		if after := balance(t, a, key); before-after != charged || ing.CreditsCharged != charged {
			t.Errorf("balance %d → %d, charged %d (job says %d)", before, after, charged, ing.CreditsCharged)
		}
		for q, want := range map[string]string{"zebracorn manager": "zebracorn", "quokkatronic widgets": "quokkatronic",
			"flamingobox receipt": "flamingobox", "parking visitors": "Parking", "Saturday opening": "Saturday"} {
			if got := search(t, a, ws, bot, q); !strings.Contains(got, want) {
				t.Errorf("search %q: %q", q, got)
			}
		}
		a.Run(t,
			testkit.Scenario{Name: "documents", Method: "GET", Path: fmt.Sprintf("/documents?bot_id=%d", bot),
				Headers: []string{"X-API-Key", key}, Status: 200, Contains: []string{`"total":5`, `"document_name":"handbook.docx"`}},
			testkit.Scenario{Name: "knowledge state", Method: "GET", Path: fmt.Sprintf("/documents/knowledge-state?bot_id=%d", bot),
				Headers: []string{"X-API-Key", key}, Status: 200, Contains: []string{`"trained":true`, `"documents":5`}},
		)
		// Same name, same bytes: nothing happens, nothing is charged.
		again := upload(t, a, key, bot, files[0])
		if again.Files[0].Credits != 0 || again.Status != "completed" {
			t.Errorf("identical re-upload: %+v", again)
		}
		// Same name, new content: replaced in place.
		upload(t, a, key, bot, testkit.File{Name: "pricing.md", Data: []byte("# Pricing\n\nThe enterprise plan now comes with a narwhalesque onboarding.")})
		if got := search(t, a, ws, bot, "zebracorn"); strings.Contains(got, "zebracorn") {
			t.Errorf("the replaced version is still retrievable: %q", got)
		}
		if got := search(t, a, ws, bot, "narwhalesque onboarding"); !strings.Contains(got, "narwhalesque") {
			t.Errorf("the new version is not retrievable: %q", got)
		}
		var docs int
		_ = store.Get(context.Background(), a.DB.Reader(), &docs, `SELECT COUNT(*) FROM documents WHERE bot_id = ?`, bot)
		if docs != 5 {
			t.Errorf("%d document rows after replacing one, want 5", docs)
		}
		a.Run(t,
			testkit.Scenario{Name: "delete a document", Method: "DELETE", Path: fmt.Sprintf("/documents/about.html?bot_id=%d", bot),
				Headers: []string{"X-API-Key", key}, Status: 200},
			testkit.Scenario{Name: "deleted", Method: "DELETE", Path: fmt.Sprintf("/documents/about.html?bot_id=%d", bot),
				Headers: []string{"X-API-Key", key}, Status: 404},
		)
		if got := search(t, a, ws, bot, "quokkatronic"); strings.Contains(got, "quokkatronic") {
			t.Errorf("a deleted document is retrievable: %q", got)
		}
	})
}

func TestUploadRefusals(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, ws := a.Register(t, "refuse@example.com")
		bot := newBot(t, a, key)
		other, _ := a.Register(t, "other@example.com")
		before := balance(t, a, key)
		huge := bytes.Repeat([]byte("word "), 5<<20) // 25 MiB of text: over every plan's limit but Pro's
		r := a.Upload(t, "/ingest", key, bot, testkit.File{Name: "huge.txt", Data: huge})
		if r.Status != 413 {
			t.Errorf("over the plan's upload limit: %d %s", r.Status, r.Body)
		}
		for name, data := range map[string][]byte{
			"empty.txt":  {},
			"binary.txt": {0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x13, 0x37},
			"fake.pdf":   []byte("<html><script>alert(1)</script></html>"),
			"tool.exe":   []byte("MZ\x90\x00\x03\x00\x00\x00"),
		} {
			if r := a.Upload(t, "/ingest", key, bot, testkit.File{Name: name, Data: data}); r.Status != 422 {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
		// A DOCX with 20,000 entries and one that inflates enormously:
		// refused up front or failed by the job, never charged.
		var many bytes.Buffer
		mz := zip.NewWriter(&many)
		for i := 0; i < 20000; i++ {
			w, _ := mz.Create(fmt.Sprintf("word/media/x%d.xml", i))
			w.Write([]byte("<x/>"))
		}
		w, _ := mz.Create("word/document.xml")
		w.Write([]byte(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>hi</w:t></w:r></w:p></w:body></w:document>`))
		mz.Close()
		var bomb bytes.Buffer
		bz := zip.NewWriter(&bomb)
		bw, _ := bz.Create("word/document.xml")
		zeros := make([]byte, 1<<20)
		for i := 0; i < 300; i++ { // 300 MiB inflated, a few hundred KiB compressed
			bw.Write(zeros)
		}
		bz.Close()
		for name, data := range map[string][]byte{"many.docx": many.Bytes(), "bomb.docx": bomb.Bytes()} {
			r := a.Upload(t, "/ingest", key, bot, testkit.File{Name: name, Data: data})
			switch r.Status {
			case 422:
			case 202:
				var ing ingestion
				r.Decode(t, &ing)
				if done := waitIngestion(t, a, key, ing.JobID); done.Status != "failed" || done.Files[0].Error == nil {
					t.Errorf("%s: %+v", name, done)
				}
			default:
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
		ok := testkit.File{Name: "ok.txt", Data: []byte("fine text")}
		if r := a.Upload(t, "/ingest", key, 0, ok); r.Status != 422 {
			t.Errorf("no bot_id: %d", r.Status)
		}
		if r := a.Upload(t, "/ingest", key, bot); r.Status != 422 {
			t.Errorf("no files: %d", r.Status)
		}
		if r := a.Upload(t, "/ingest", other, bot, ok); r.Status != 403 {
			t.Errorf("another workspace's bot: %d", r.Status)
		}
		if r := a.Upload(t, "/ingest", key, 987654, ok); r.Status != 404 {
			t.Errorf("missing bot: %d", r.Status)
		}
		p := a.Upload(t, "/ingest/preview-cost", key, bot, ok, testkit.File{Name: "junk.bin", Data: []byte{0, 0, 0, 1, 2}})
		if p.Status != 200 || !strings.Contains(string(p.Body), `"error":`) || !strings.Contains(string(p.Body), `"total_credits":1`) {
			t.Errorf("preview: %d %s", p.Status, p.Body)
		}
		if after := balance(t, a, key); after != before {
			t.Errorf("refusals and previews cost credits: %d → %d", before, after)
		}
		ing := upload(t, a, key, bot, ok)
		a.Run(t,
			testkit.Scenario{Name: "another workspace cannot read the job", Method: "GET", Path: "/ingest/status/" + ing.JobID,
				Headers: []string{"X-API-Key", other}, Status: 404},
			testkit.Scenario{Name: "an unknown job", Method: "GET", Path: "/ingest/status/ing_nope", Headers: []string{"X-API-Key", key}, Status: 404},
			testkit.Scenario{Name: "another workspace's documents", Method: "GET", Path: fmt.Sprintf("/documents?bot_id=%d", bot),
				Headers: []string{"X-API-Key", other}, Status: 403},
			testkit.Scenario{Name: "another workspace's state", Method: "GET", Path: fmt.Sprintf("/documents/knowledge-state?bot_id=%d", bot),
				Headers: []string{"X-API-Key", other}, Status: 403},
			testkit.Scenario{Name: "another workspace cannot delete", Method: "DELETE", Path: "/documents/ok.txt",
				Headers: []string{"X-API-Key", other}, Status: 404},
			testkit.Scenario{Name: "another workspace's crawl progress", Method: "GET", Path: fmt.Sprintf("/crawl/progress?bot_id=%d", bot),
				Headers: []string{"X-API-Key", other}, Status: 403},
		)
		_ = ws
	})
}

func TestOutOfCreditsChargesNothing(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite)
	key, ws := a.Register(t, "poor@example.com")
	bot := newBot(t, a, key)
	// Spend the trial's credits.
	bal := balance(t, a, key)
	if _, err := a.Billing.Debit(context.Background(), ws, bal, "spend-all", "test"); err != nil {
		t.Fatal(err)
	}
	ing := upload(t, a, key, bot, testkit.File{Name: "a.txt", Data: []byte("some knowledge")})
	if ing.Status != "failed" || ing.Files[0].Error == nil || !strings.Contains(*ing.Files[0].Error, "credits") {
		t.Fatalf("out of credits: %+v", ing)
	}
	if balance(t, a, key) != 0 {
		t.Fatal("credits went below zero")
	}
	if got := search(t, a, ws, bot, "knowledge"); got != "" {
		t.Fatalf("an unpaid document is retrievable: %q", got)
	}
}

// TestDirtyTextIsCleaned: NUL bytes and invalid UTF-8 inside uploaded files
// and crawled pages are dropped by the extractors, never a failed document
// (PostgreSQL refuses both in text columns), on both engines. (DOCX is XML,
// where neither can appear: such a file is malformed and refused as such.)
func TestDirtyTextIsCleaned(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		s := newSite(t)
		// A few stray control bytes are text; many are binary data (extract.Detect).
		s.set("/", "Home \xff page", "The lobster \x00 tank is open on \xfe\xff Sundays.")
		a := testkit.NewApp(t, e, testkit.WithEnv("CONCIERGE_OUTBOUND_ALLOW", "127.0.0.1/32"))
		key, ws := a.Register(t, "dirty@example.com")
		bot := newBot(t, a, key)
		ing := upload(t, a, key, bot,
			testkit.File{Name: "notes.txt", Data: []byte("Gift cards \x00 never \xff expire at the kiosk.")},
			testkit.File{Name: "faq.md", Data: []byte("# Ret\x00urns\n\n## Poli\xffcy\n\nRefunds \x00 take ten \xc3 days.\n")},
			testkit.File{Name: "page.html", Data: []byte("<html><head><title>Ab\x00out</title></head><body><main><h1>Abo\xffut</h1><p>We ferment\x00 kombucha in barrels.</p></main></body></html>")},
			testkit.File{Name: "list.csv", Data: []byte("item,price\nmug\x00,12\nte\xffa,4\n")},
		)
		if ing.Status != "completed" {
			t.Fatalf("ingestion with dirty text: %+v", ing)
		}
		if r := a.Do(t, "POST", "/crawl", map[string]any{"bot_id": bot, "url": s.srv.URL + "/"}, "X-API-Key", key); r.Status != 202 {
			t.Fatalf("crawl: %d %s", r.Status, r.Body)
		}
		if p := waitCrawl(t, a, key, bot, finished); p.Status != "completed" || p.PagesIndexed != 1 {
			t.Fatalf("crawl of a dirty page: %+v", p)
		}
		for q, want := range map[string]string{"gift cards expire": "expire", "refunds days": "Refunds",
			"ferment kombucha": "kombucha", "lobster tank sundays": "Sundays"} {
			got := search(t, a, ws, bot, q)
			if !strings.Contains(got, want) {
				t.Errorf("search %q: %q", q, got)
			}
			if strings.ContainsRune(got, 0) || !utf8.ValidString(got) {
				t.Errorf("search %q returned dirty text %q", q, got)
			}
		}
	})
}

// An ingestion job run again after every file was done (its process died
// between the last file and finishing the ingestion) only finishes it.
// Found by the soak: it read the first of no files and panicked, taking
// the whole process down on every replica that claimed the job.
func TestIngestionRunAgainAfterItsLastFile(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, ws := a.Register(t, "kb-again@example.com")
		bot := newBot(t, a, key)
		ing := upload(t, a, key, bot, testkit.File{Name: "hours.md", Data: []byte("# Hours\n\nWe open at nine on weekdays.")})
		if ing.Status != "completed" {
			t.Fatalf("ingestion: %+v", ing)
		}
		ctx := context.Background()
		var id int64
		if err := store.Get(ctx, a.DB.Reader(), &id, `SELECT id FROM ingestions WHERE bot_id = ?`, bot); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Exec(ctx, a.DB.Writer(), `UPDATE ingestions SET status = 'running', finished_at = NULL WHERE id = ?`, id); err != nil {
			t.Fatal(err)
		}
		job, err := a.Queue.Enqueue(ctx, jobs.NewJob{Kind: "knowledge.ingest", WorkspaceID: ws, BotID: bot,
			Payload: map[string]int64{"ingestion_id": id}})
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			var status, ingStatus string
			_ = store.Get(ctx, a.DB.Reader(), &status, `SELECT status FROM jobs WHERE id = ?`, job)
			_ = store.Get(ctx, a.DB.Reader(), &ingStatus, `SELECT status FROM ingestions WHERE id = ?`, id)
			if status == "succeeded" && ingStatus == "completed" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s, ingestion %s", status, ingStatus)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
