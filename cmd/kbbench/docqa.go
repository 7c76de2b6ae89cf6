package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"concierge/internal/knowledge"
)

// docqa measures answers on real websites (issue 12): a bot crawls a
// documentation site served on loopback, through the service as a user
// would, and is asked a labelled set of visitor questions through POST
// /chat. Per set, engine and half it prints: the answering page among the
// reply's sources, rank-1 and top-3 page accuracy of retrieval, and how
// often the bot says "I don't know" to unanswerable and answerable
// questions.

type docqaSet struct {
	Site      string `json:"site"`
	Root      string `json:"root"`
	Questions []struct {
		ID         string   `json:"id"`
		Question   string   `json:"question"`
		Answerable bool     `json:"answerable"`
		Pages      []string `json:"pages"`
	} `json:"questions"`
}

// half is a question's fixed half: dev (tune on it) or test (report only),
// from a hash of its id, so the split never depends on the order or on who
// runs it.
func half(id string) string {
	if sum := sha256.Sum256([]byte(id)); sum[0]%2 == 0 {
		return "dev"
	}
	return "test"
}

type docqaTally struct {
	answerable, inSources, rank1, top3, idkAnswerable int
	unanswerable, idkUnanswerable                     int
}

func pct(n, d int) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(d))
}

func docqaBench(args []string) error {
	fs := flag.NewFlagSet("docqa", flag.ExitOnError)
	engines := fs.String("engines", "sqlite,postgres", "engines to measure")
	sets := fs.String("sets", "python,git,django", "question sets in -dir")
	dir := fs.String("dir", "internal/retrieval/testdata/docqa", "directory of the labelled sets")
	halves := fs.String("half", "dev", "which half to report: dev, test or dev,test (tune only on dev)")
	maxPages := fs.Int("max-pages", 2000, "crawl page cap")
	dbURL := fs.String("database-url", "", "PostgreSQL server to use instead of a throwaway cluster")
	verbose := fs.Bool("v", false, "print every miss")
	explain := fs.Bool("explain", false, "with -v: print the second stage's evidence for the top hits of every miss")
	evidence := fs.String("evidence", "", "append each question's best hit's evidence to this file (JSON lines), for calibrating")
	_ = fs.Parse(args)

	fmt.Println("| set | engine | half | answerable | answering page in sources | retrieval rank 1 | retrieval top 3 | answerable → I don't know | unanswerable → I don't know |")
	fmt.Println("|---|---|---|---:|---:|---:|---:|---:|---:|")
	for _, name := range strings.Split(*sets, ",") {
		raw, err := os.ReadFile(filepath.Join(*dir, name+".json"))
		if err != nil {
			return err
		}
		var set docqaSet
		if err := json.Unmarshal(raw, &set); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if _, err := os.Stat(set.Root); err != nil {
			return fmt.Errorf("%s: %w (install the Debian documentation package)", set.Root, err)
		}
		for _, engine := range strings.Split(*engines, ",") {
			if err := docqaRun(set, engine, *dbURL, *maxPages, strings.Split(*halves, ","), *verbose, *explain, *evidence); err != nil {
				return err
			}
		}
	}
	fmt.Printf("\nMachine: NumCPU=%d, %s, %s UTC. Command: kbbench docqa %s\n", runtime.NumCPU(), runtime.Version(),
		time.Now().UTC().Format("2006-01-02 15:04"), strings.Join(args, " "))
	return nil
}

func docqaRun(set docqaSet, engine, dbURL string, maxPages int, halves []string, verbose, explain bool, evidence string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	site := &http.Server{Handler: http.FileServer(http.Dir(set.Root)), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = site.Serve(ln) }()
	defer site.Close()
	base := "http://" + ln.Addr().String() + "/"

	e, err := start(engine, dbURL, true)
	if err != nil {
		return err
	}
	defer e.stop()
	ctx := context.Background()
	if _, err := e.app.Knowledge.StartCrawl(ctx, e.ws, e.bot, base+"index.html", maxPages); err != nil {
		return err
	}
	for {
		c, err := e.app.Knowledge.Progress(ctx, e.ws, e.bot)
		if err != nil {
			return err
		}
		if c.Status == knowledge.CrawlCompleted || c.Status == knowledge.CrawlFailed || c.Status == knowledge.CrawlCancelled {
			if c.Status != knowledge.CrawlCompleted {
				return fmt.Errorf("%s: crawl ended %s", set.Site, c.Status)
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	// page maps a URL of the site to the set's page path.
	page := func(u string) string {
		p, err := url.Parse(u)
		if err != nil {
			return ""
		}
		return normalisePage(strings.TrimPrefix(p.Path, "/"))
	}
	tallies := map[string]*docqaTally{}
	for _, h := range halves {
		tallies[h] = &docqaTally{}
	}
	client := &http.Client{Timeout: 60 * time.Second}
	for _, q := range set.Questions {
		t := tallies[half(q.ID)]
		if t == nil {
			continue
		}
		want := map[string]bool{}
		for _, p := range q.Pages {
			want[normalisePage(p)] = true
		}
		reply, err := askChat(client, e.url, e.botKey, q.Question)
		if err != nil {
			return err
		}
		var sources []string
		for _, s := range reply.Sources {
			sources = append(sources, page(s.URL))
		}
		if evidence != "" {
			hits, err := e.app.Retrieval.Search(ctx, e.ws, e.bot, q.Question, 1)
			if err != nil {
				return err
			}
			rec := map[string]any{"id": q.ID, "set": set.Site, "half": half(q.ID), "answerable": q.Answerable,
				"answered": reply.Answered}
			if len(hits) > 0 {
				rec["evidence"], rec["right_page"] = hits[0].Evidence, want[page(hits[0].URL)]
			}
			line, _ := json.Marshal(rec)
			f, err := os.OpenFile(evidence, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			_, werr := f.Write(append(line, '\n'))
			if err := errors.Join(werr, f.Close()); err != nil {
				return err
			}
		}
		show := func() {
			if !explain {
				return
			}
			hits, _ := e.app.Retrieval.Search(ctx, e.ws, e.bot, q.Question, 30)
			for i, h := range hits {
				if i >= 5 && !want[page(h.URL)] {
					continue
				}
				ev := h.Evidence
				mark := " "
				if want[page(h.URL)] {
					mark = "*"
				}
				fmt.Printf("    %s%2d %-40s [%.25s] %-30.30s cov %.2f title %.2f head %.2f foc %.2f/%d prox %.2f phr %.2f page %.2f hub %v miss %.2f bm25 %.1f → %.3f\n",
					mark, i+1, page(h.URL), h.Title, strings.Join(h.HeadingPath, " > "), ev.Coverage, ev.Title, ev.Heading, ev.Focus, ev.Passages, ev.Proximity,
					ev.Phrase, ev.Page, ev.Hub, ev.Missing, h.Score, ev.Score)
			}
		}
		if !q.Answerable {
			t.unanswerable++
			if !reply.Answered {
				t.idkUnanswerable++
			} else if verbose {
				fmt.Printf("  answered unanswerable %s %q from %v\n", q.ID, q.Question, sources)
				show()
			}
			continue
		}
		t.answerable++
		if !reply.Answered {
			t.idkAnswerable++
		}
		if slices.ContainsFunc(sources, func(p string) bool { return want[p] }) {
			t.inSources++
		} else if verbose {
			fmt.Printf("  miss %s %q: want %v, sources %v (answered %v)\n", q.ID, q.Question, q.Pages, sources, reply.Answered)
			show()
		}
		hits, err := e.app.Retrieval.Search(ctx, e.ws, e.bot, q.Question, 30)
		if err != nil {
			return err
		}
		var ranked []string // distinct pages in rank order
		for _, h := range hits {
			if p := page(h.URL); p != "" && !slices.Contains(ranked, p) {
				ranked = append(ranked, p)
			}
		}
		for i, p := range ranked {
			if want[p] {
				if i == 0 {
					t.rank1++
				}
				if i < 3 {
					t.top3++
				}
				break
			}
		}
	}
	for _, h := range halves {
		t := tallies[h]
		fmt.Printf("| %s | %s | %s | %d | %s | %s | %s | %s | %s (of %d) |\n", set.Site, engine, h, t.answerable,
			pct(t.inSources, t.answerable), pct(t.rank1, t.answerable), pct(t.top3, t.answerable),
			pct(t.idkAnswerable, t.answerable), pct(t.idkUnanswerable, t.unanswerable), t.unanswerable)
	}
	return nil
}

// normalisePage makes "a/index.html" and "a/" the same page.
func normalisePage(p string) string {
	return strings.TrimSuffix(strings.TrimSuffix(p, "index.html"), "/")
}

type chatReply struct {
	Answered bool `json:"answered"`
	Sources  []struct {
		URL string `json:"url"`
	} `json:"sources"`
}

// askChat sends one visitor question to POST /chat with the bot's key, as
// the widget does.
func askChat(c *http.Client, base, botKey, question string) (*chatReply, error) {
	body, _ := json.Marshal(map[string]string{"message": question})
	req, err := http.NewRequest(http.MethodPost, base+"/chat", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Bot-Key", botKey)
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("chat: %d %s", res.StatusCode, raw)
	}
	var r chatReply
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
