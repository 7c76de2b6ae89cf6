// Command retrievalbench measures the retrieval engine on SQLite and on
// PostgreSQL and prints Markdown tables:
//
//   - ranking quality on BEIR SciFact (5,183 abstracts, 300 test claims):
//     nDCG@10 and Recall@100, and whether both engines rank identically;
//
//   - search latency on one bot of -passages passages (default 100,000)
//     recombined from SciFact sentences: the cold first search (index
//     build), warm p50/p99 over -queries claims, the cost of a small
//     ingest and of a delete into that bot, and the index's memory.
//
//     go run ./cmd/retrievalbench
//     go run ./cmd/retrievalbench -engines sqlite -passages 20000 -sweep
//
// SciFact is read from -data at run time and never copied anywhere (its
// licence is for benchmarking only). It is a tool, not a test: nothing here
// runs under go test.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"concierge/internal/store"
	"concierge/internal/testkit"
)

type options struct {
	engines     []string
	data        string
	passages    int
	queries     int
	databaseURL string
	sweep       bool
	skip        map[string]bool
	waitQuiet   time.Duration
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "retrievalbench:", err)
		}
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{skip: map[string]bool{}}
	fs := flag.NewFlagSet("retrievalbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	engines := fs.String("engines", "sqlite,postgres", "comma list of engines: sqlite, postgres")
	fs.StringVar(&o.data, "data", "/work/shared/data/scifact", "BEIR SciFact directory (corpus.jsonl, queries.jsonl, qrels/test.tsv)")
	fs.IntVar(&o.passages, "passages", 100_000, "passages of the latency bot")
	fs.IntVar(&o.queries, "queries", 1000, "timed queries of the latency run")
	fs.StringVar(&o.databaseURL, "database-url", "", "PostgreSQL server to use instead of a throwaway cluster")
	fs.BoolVar(&o.sweep, "sweep", false, "also print nDCG@10 and Recall@100 over a grid of k1, b and title boost (first engine)")
	fs.DurationVar(&o.waitQuiet, "wait-quiet", 0, "before each measured part, wait up to this long for the machine to be idle (shared machines)")
	skip := fs.String("skip", "", "comma list of parts to skip: scifact, latency")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	for _, e := range strings.Split(*engines, ",") {
		switch e = strings.TrimSpace(e); e {
		case "sqlite", "postgres":
			o.engines = append(o.engines, e)
		case "":
		default:
			return o, fmt.Errorf("-engines: unknown engine %q", e)
		}
	}
	if len(o.engines) == 0 {
		return o, errors.New("-engines: nothing to run")
	}
	for _, p := range strings.Split(*skip, ",") {
		if p = strings.TrimSpace(p); p != "" {
			o.skip[p] = true
		}
	}
	if o.passages < 1000 || o.queries < 1 {
		return o, errors.New("-passages must be at least 1000 and -queries at least 1")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "retrievalbench: "+format+"\n", a...)
	}
	sf, err := loadSciFact(o.data)
	if err != nil {
		return err
	}
	logf("scifact: %d abstracts, %d queries, %d judged test queries", len(sf.docs), len(sf.queries), len(sf.qrels))
	tmp, err := os.MkdirTemp("", "retrievalbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var cluster *testkit.Cluster
	defer func() {
		if cluster != nil {
			logf("postgres: stopping the throwaway cluster")
			cluster.Stop()
		}
	}()
	open := func(engine, name string) (*store.DB, error) {
		opts := store.Options{SQLitePath: filepath.Join(tmp, name+".db")}
		if engine == "postgres" {
			url, err := postgresDatabase(ctx, o.databaseURL, &cluster, fmt.Sprintf("rb_%s_%d_%d", name, os.Getpid(), time.Now().Unix()), logf)
			if err != nil {
				return nil, err
			}
			opts = store.Options{DatabaseURL: url}
		}
		db, err := store.Open(ctx, opts)
		if err != nil {
			return nil, err
		}
		if _, err := db.Migrate(ctx, nil); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	}

	fmt.Fprintf(stdout, "retrievalbench: %s, %d cores (GOMAXPROCS %d), %s/%s, %s\n\n",
		cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
	if !o.skip["scifact"] {
		var results []scifactResult
		for _, e := range o.engines {
			waitQuiet(ctx, o.waitQuiet, logf)
			db, err := open(e, "scifact")
			if err != nil {
				return fmt.Errorf("%s: %w", e, err)
			}
			r, err := runSciFact(ctx, db, e, sf, logf)
			if err == nil && o.sweep && e == o.engines[0] {
				err = sweep(ctx, db, sf, stdout, logf)
			}
			db.Close()
			if err != nil {
				return fmt.Errorf("%s: scifact: %w", e, err)
			}
			results = append(results, r)
		}
		printSciFact(stdout, results)
	}
	if !o.skip["latency"] {
		logf("latency: generating and analysing %d passages", o.passages)
		corpus := prepareLatency(generate(sf, o.passages+passagesPerDoc)) // one document held back
		var results []latencyResult
		for _, e := range o.engines {
			waitQuiet(ctx, o.waitQuiet, logf)
			db, err := open(e, "latency")
			if err != nil {
				return fmt.Errorf("%s: %w", e, err)
			}
			r, err := runLatency(ctx, db, e, corpus, sf, o.queries, logf, func() { waitQuiet(ctx, o.waitQuiet, logf) })
			db.Close()
			if err != nil {
				return fmt.Errorf("%s: latency: %w", e, err)
			}
			results = append(results, r)
		}
		printLatency(stdout, o, results)
	}
	return nil
}

// postgresDatabase creates a fresh database named name: on the server of
// serverURL when given (left in place afterwards, for inspection), else on
// a throwaway cluster started on first use.
func postgresDatabase(ctx context.Context, serverURL string, cluster **testkit.Cluster, name string, logf func(string, ...any)) (string, error) {
	if serverURL == "" {
		if *cluster == nil {
			logf("postgres: starting a throwaway cluster")
			c, err := testkit.StartPostgres()
			if err != nil {
				return "", fmt.Errorf("start PostgreSQL: %w", err)
			}
			*cluster = c
		}
		return (*cluster).CreateDatabase(ctx, name)
	}
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("-database-url: want a postgres:// URL")
	}
	db, err := sql.Open("pgx", serverURL)
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("create database: %w", err)
	}
	logf("postgres: created database %s on -database-url (not dropped)", name)
	fresh := *u
	fresh.Path = "/" + name
	return fresh.String(), nil
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
