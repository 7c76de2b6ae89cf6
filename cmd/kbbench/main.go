// Command kbbench measures the knowledge base end to end, in process:
//
//	kbbench ingest   upload throughput in MB/s of text (parse, chunk, analyse, write, commit)
//	kbbench crawl    crawl of a local static site (default: the PostgreSQL 15 manual from
//	                 Debian's postgresql-doc-15) in pages/s, with the process's peak RSS
//	kbbench docqa    answers on real documentation sites: labelled visitor questions
//	                 asked through POST /chat after a crawl (docqa.go)
//
// Both run the real service (app.New) on a fresh SQLite database (or
// PostgreSQL with -engine postgres: a throwaway cluster, or -database-url).
// It is not part of go test.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"concierge/internal/app"
	"concierge/internal/config"
	"concierge/internal/knowledge"
	"concierge/internal/testkit"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kbbench ingest|crawl|docqa [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "ingest":
		err = ingest(os.Args[2:])
	case "crawl":
		err = crawlBench(os.Args[2:])
	case "docqa":
		err = docqaBench(os.Args[2:])
	default:
		err = fmt.Errorf("unknown benchmark %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kbbench:", err)
		os.Exit(1)
	}
}

// env is a running service with one workspace on the Pro plan and a bot.
type env struct {
	app     *app.App
	ws, bot int64
	botKey  string
	url     string // where the service listens, http://host:port
	engine  string
	stop    func()
}

func start(engine, databaseURL string, allowLoopback bool) (*env, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kbbench-")
	if err != nil {
		return nil, err
	}
	vars := map[string]string{"CONCIERGE_RATE_LIMITS": "off", "CONCIERGE_DATA_DIR": dir, "CONCIERGE_LOG_LEVEL": "warn",
		"CONCIERGE_ARGON2_MEMORY_KIB": "1024", "CONCIERGE_ARGON2_ITERATIONS": "1"}
	if allowLoopback {
		vars["CONCIERGE_OUTBOUND_ALLOW"] = "127.0.0.1/32"
	}
	// A configured embeddings endpoint is measured as configured: dense
	// retrieval fused with the keyword ranking.
	for _, k := range []string{"CONCIERGE_EMBEDDINGS_MODEL", "CONCIERGE_EMBEDDINGS_BASE_URL", "CONCIERGE_EMBEDDINGS_API_KEY",
		"CONCIERGE_EMBEDDINGS_TIMEOUT"} {
		if v := os.Getenv(k); v != "" {
			vars[k] = v
		}
	}
	var cleanup []func()
	cleanup = append(cleanup, func() { os.RemoveAll(dir) })
	if engine == "postgres" {
		if databaseURL == "" {
			c, err := testkit.StartPostgres()
			if err != nil {
				return nil, err
			}
			cleanup = append(cleanup, c.Stop)
			if databaseURL, err = c.CreateDatabase(ctx, "kbbench"); err != nil {
				return nil, err
			}
		}
		vars["DATABASE_URL"] = databaseURL
	}
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		return nil, err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := app.New(ctx, cfg, app.Options{Logger: log})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = a.Serve(sctx, ln); close(done) }()
	cleanup = append([]func(){func() { cancel(); <-done; a.Close() }}, cleanup...)
	reg, err := a.Accounts.Register(ctx, accountInput("bench@example.com"))
	if err != nil {
		return nil, err
	}
	ws := reg.Workspace.ID
	if err := a.Billing.SetPlan(ctx, ws, "pro"); err != nil {
		return nil, err
	}
	if _, err := a.Billing.Grant(ctx, ws, 10_000_000, "bench", "benchmark credits"); err != nil {
		return nil, err
	}
	v, err := a.Bots.Create(ctx, ws, map[string]json.RawMessage{"name": json.RawMessage(`"bench"`)})
	if err != nil {
		return nil, err
	}
	return &env{app: a, ws: ws, bot: v.ID, botKey: v.Key, url: "http://" + ln.Addr().String(), engine: engine, stop: func() {
		for _, f := range cleanup {
			f()
		}
	}}, nil
}

func ingest(args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ExitOnError)
	engines := fs.String("engines", "sqlite,postgres", "engines to measure")
	mb := fs.Int("mb", 50, "megabytes of text to ingest")
	fileKB := fs.Int("file-kb", 500, "size of one file in KiB")
	dbURL := fs.String("database-url", "", "PostgreSQL server to use instead of a throwaway cluster")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the measured part to this file")
	_ = fs.Parse(args)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Println("| engine | files | MB | seconds | MB/s | passages |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, engine := range strings.Split(*engines, ",") {
		e, err := start(engine, *dbURL, false)
		if err != nil {
			return err
		}
		files := corpus(*mb<<20, *fileKB<<10)
		var total int
		for _, f := range files {
			total += len(f.Data)
		}
		ctx := context.Background()
		t0 := time.Now()
		var jobs []string
		for i := 0; i < len(files); i += 20 {
			ing, err := e.app.Knowledge.Ingest(ctx, e.ws, e.bot, files[i:min(i+20, len(files))])
			if err != nil {
				e.stop()
				return err
			}
			jobs = append(jobs, ing.PublicID)
		}
		for _, j := range jobs {
			for {
				st, err := e.app.Knowledge.Status(ctx, e.ws, j)
				if err != nil {
					e.stop()
					return err
				}
				if st.Status == knowledge.StatusCompleted || st.Status == knowledge.StatusFailed || st.Status == knowledge.StatusPartial {
					if st.Status != knowledge.StatusCompleted {
						e.stop()
						return fmt.Errorf("ingestion %s ended %s", j, st.Status)
					}
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		took := time.Since(t0)
		state, err := e.app.Knowledge.KnowledgeState(ctx, e.ws, e.bot)
		if err != nil {
			e.stop()
			return err
		}
		fmt.Printf("| %s | %d | %.1f | %.2f | %.2f | %d |\n", engine, len(files), float64(total)/(1<<20), took.Seconds(),
			float64(total)/(1<<20)/took.Seconds(), state.Passages)
		e.stop()
	}
	fmt.Printf("\nMachine: NumCPU=%d, %s, %s UTC. Command: kbbench ingest %s\n", runtime.NumCPU(), runtime.Version(),
		time.Now().UTC().Format("2006-01-02 15:04"), strings.Join(args, " "))
	return nil
}

// corpus makes plain-text files of English-like prose (a fixed vocabulary
// with a Zipf-ish distribution, sentences and paragraphs), deterministic.
func corpus(totalBytes, fileBytes int) []knowledge.Upload {
	words := strings.Fields(`the of and to in a is that for it as was with be by on not he this are or his from at which
		but have an they you were their one all we can her has there been if more when will would who so no pricing plan
		customer support account billing invoice order shipping return refund warranty product service team contact
		email phone hours office delivery payment card subscription trial feature integration security privacy data
		report dashboard analytics widget chatbot knowledge document page crawl upload answer question lead sales`)
	r := rand.New(rand.NewPCG(1, 2))
	var files []knowledge.Upload
	for n := 0; n*fileBytes < totalBytes; n++ {
		var b strings.Builder
		for b.Len() < fileBytes {
			fmt.Fprintf(&b, "## Section %d\n\n", b.Len()/4000)
			for s := 0; s < 6; s++ {
				l := 8 + r.IntN(14)
				for w := 0; w < l; w++ {
					idx := int(float64(len(words)) * r.Float64() * r.Float64())
					word := words[idx]
					if w == 0 {
						word = strings.ToUpper(word[:1]) + word[1:]
					}
					b.WriteString(word)
					if w < l-1 {
						b.WriteByte(' ')
					}
				}
				b.WriteString(". ")
			}
			b.WriteString("\n\n")
		}
		files = append(files, knowledge.Upload{Name: fmt.Sprintf("doc-%04d.md", n), Data: []byte(b.String())})
	}
	return files
}

func crawlBench(args []string) error {
	fs := flag.NewFlagSet("crawl", flag.ExitOnError)
	engines := fs.String("engines", "sqlite,postgres", "engines to measure")
	root := fs.String("dir", "/usr/share/doc/postgresql-doc-15/html", "static site to serve and crawl")
	maxPages := fs.Int("max-pages", 2000, "crawl page cap")
	dbURL := fs.String("database-url", "", "PostgreSQL server to use instead of a throwaway cluster")
	_ = fs.Parse(args)
	if _, err := os.Stat(*root); err != nil {
		return fmt.Errorf("%s: %w (apt-get install postgresql-doc-15)", *root, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	site := &http.Server{Handler: http.FileServer(http.Dir(*root)), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = site.Serve(ln) }()
	defer site.Close()
	url := "http://" + ln.Addr().String() + "/index.html"

	fmt.Println("| engine | pages indexed | failed | seconds | pages/s | peak RSS |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, engine := range strings.Split(*engines, ",") {
		e, err := start(engine, *dbURL, true)
		if err != nil {
			return err
		}
		ctx := context.Background()
		resetPeakRSS()
		t0 := time.Now()
		if _, err := e.app.Knowledge.StartCrawl(ctx, e.ws, e.bot, url, *maxPages); err != nil {
			e.stop()
			return err
		}
		var c *knowledge.Crawl
		for {
			c, err = e.app.Knowledge.Progress(ctx, e.ws, e.bot)
			if err != nil {
				e.stop()
				return err
			}
			if c.Status == knowledge.CrawlCompleted || c.Status == knowledge.CrawlFailed || c.Status == knowledge.CrawlCancelled {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		took := time.Since(t0)
		fmt.Printf("| %s | %d | %d | %.1f | %.1f | %d MiB |\n", engine, c.Indexed, c.Failed, took.Seconds(),
			float64(c.Indexed)/took.Seconds(), peakRSS()>>20)
		e.stop()
	}
	fmt.Printf("\nMachine: NumCPU=%d, %s, %s UTC. Site: %s. Command: kbbench crawl %s\n", runtime.NumCPU(), runtime.Version(),
		time.Now().UTC().Format("2006-01-02 15:04"), *root, strings.Join(args, " "))
	return nil
}
