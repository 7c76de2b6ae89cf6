package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"time"

	"concierge/internal/retrieval"
	"concierge/internal/store"
)

type scifactResult struct {
	engine            string
	ws, bot           int64
	ndcg10, recall100 float64
	ingest, cold      time.Duration
	p50, p99          time.Duration
	rankings          [][]retrieval.Hit // per test query, for the engine comparison
}

// discard silences the Service: the tables are the output.
var discard = slog.New(slog.DiscardHandler)

// runSciFact loads the corpus into one bot (each abstract one document with
// one passage: Analyze(title, nil, text)) and scores the test queries.
func runSciFact(ctx context.Context, db *store.DB, engine string, sf *sciFact, logf func(string, ...any)) (scifactResult, error) {
	r := scifactResult{engine: engine}
	var err error
	if r.ws, r.bot, err = newBot(ctx, db, "scifact"); err != nil {
		return r, err
	}
	docs := make([]seedDoc, len(sf.docs))
	for i, d := range sf.docs {
		docs[i] = seedDoc{name: d.ID, passages: []seedPassage{{title: d.Title, text: d.Text}}}
	}
	start := time.Now()
	analyzeAll(docs)
	if _, err := insertDocs(ctx, db, r.ws, r.bot, docs); err != nil {
		return r, err
	}
	r.ingest = time.Since(start)
	logf("%s: scifact loaded in %v", engine, r.ingest.Round(time.Millisecond))

	svc := retrieval.New(db, retrieval.Options{Logger: discard})
	start = time.Now()
	if _, err := svc.Search(ctx, r.ws, r.bot, "warm up the index", 1); err != nil {
		return r, err
	}
	r.cold = time.Since(start)
	var lat []time.Duration
	r.ndcg10, r.recall100, r.rankings, lat, err = evaluate(ctx, svc, r.ws, r.bot, sf)
	if err != nil {
		return r, err
	}
	r.p50, r.p99 = percentile(lat, 50), percentile(lat, 99)
	logf("%s: scifact nDCG@10 %.4f Recall@100 %.4f", engine, r.ndcg10, r.recall100)
	return r, nil
}

// evaluate runs the judged test queries with k = 100 and scores them the
// BEIR way (pytrec_eval): nDCG@10 with the judged grade as gain and a log2
// discount, the ideal DCG from the judged documents; Recall@100 the share of
// judged-relevant documents in the top 100. Queries are the claim texts as
// given; qrels are used for scoring only.
func evaluate(ctx context.Context, svc *retrieval.Service, ws, bot int64, sf *sciFact) (ndcg, recall float64, rankings [][]retrieval.Hit, lat []time.Duration, err error) {
	text := map[string]string{}
	for _, q := range sf.queries {
		text[q.ID] = q.Text
	}
	for _, qid := range sf.testIDs {
		start := time.Now()
		hits, err := svc.Search(ctx, ws, bot, text[qid], 100)
		if err != nil {
			return 0, 0, nil, nil, err
		}
		lat = append(lat, time.Since(start))
		rankings = append(rankings, hits)
		rel := sf.qrels[qid]
		var dcg float64
		found, relevant := 0, 0
		for i, h := range hits {
			if g := rel[h.DocumentName]; g > 0 {
				if i < 10 {
					dcg += float64(g) / math.Log2(float64(i+2))
				}
				found++
			}
		}
		var grades []int
		for _, g := range rel {
			if g > 0 {
				grades = append(grades, g)
				relevant++
			}
		}
		slices.Sort(grades)
		slices.Reverse(grades)
		var idcg float64
		for i, g := range grades[:min(10, len(grades))] {
			idcg += float64(g) / math.Log2(float64(i+2))
		}
		if idcg > 0 {
			ndcg += dcg / idcg
		}
		if relevant > 0 {
			recall += float64(found) / float64(relevant)
		}
	}
	n := float64(len(sf.testIDs))
	return ndcg / n, recall / n, rankings, lat, nil
}

// sweep prints the quality over a grid of ranking parameters, to show how
// flat (or not) the chosen point's neighbourhood is.
func sweep(ctx context.Context, db *store.DB, sf *sciFact, w io.Writer, logf func(string, ...any)) error {
	var ws, bot int64
	if err := store.Get(ctx, db.Reader(), &bot, `SELECT id FROM bots WHERE name = 'scifact' ORDER BY id DESC LIMIT 1`); err != nil {
		return err
	}
	if err := store.Get(ctx, db.Reader(), &ws, `SELECT workspace_id FROM bots WHERE id = ?`, bot); err != nil {
		return err
	}
	bs := []float64{0.4, 0.6, 0.75, 0.9, 1.0}
	fmt.Fprintln(w, "SciFact sweep: nDCG@10 / Recall@100 (title boost, k1 by b)")
	fmt.Fprintln(w)
	fmt.Fprint(w, "| title boost | k1 |")
	for _, b := range bs {
		fmt.Fprintf(w, " b=%.2f |", b)
	}
	fmt.Fprint(w, "\n|---|---|")
	for range bs {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, tb := range []float64{1, 2, 3} {
		for _, k1 := range []float64{0.9, 1.2, 1.5} {
			fmt.Fprintf(w, "| %.0f | %.1f |", tb, k1)
			for _, b := range bs {
				svc := retrieval.New(db, retrieval.Options{K1: k1, B: b, TitleBoost: tb, Logger: discard})
				n, r, _, _, err := evaluate(ctx, svc, ws, bot, sf)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, " %.4f / %.4f |", n, r)
			}
			fmt.Fprintln(w)
			logf("sweep: title boost %.0f k1 %.1f done", tb, k1)
		}
	}
	fmt.Fprintln(w)
	return nil
}

func printSciFact(w io.Writer, rs []scifactResult) {
	fmt.Fprintln(w, "SciFact (BEIR test split, 300 queries, 5,183 abstracts, one passage each)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| engine | nDCG@10 | Recall@100 | load + analyse | first search (index build) | query p50 | query p99 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %.4f | %.4f | %s | %s | %s | %s |\n", r.engine, r.ndcg10, r.recall100,
			r.ingest.Round(time.Millisecond), ms(r.cold), ms(r.p50), ms(r.p99))
	}
	fmt.Fprintln(w)
	if len(rs) == 2 {
		fmt.Fprintf(w, "Rankings of %s and %s: %s\n\n", rs[0].engine, rs[1].engine, compareRankings(rs[0].rankings, rs[1].rankings))
	}
}

// compareRankings reports whether two engines returned the same passages
// in the same order with scores equal to 1e-9, for every query.
func compareRankings(a, b [][]retrieval.Hit) string {
	if len(a) != len(b) {
		return "different number of queries"
	}
	maxDiff := 0.0
	for q := range a {
		if len(a[q]) != len(b[q]) {
			return fmt.Sprintf("DIFFERENT (query %d: %d vs %d hits)", q, len(a[q]), len(b[q]))
		}
		for i := range a[q] {
			if a[q][i].PassageID != b[q][i].PassageID {
				return fmt.Sprintf("DIFFERENT (query %d rank %d)", q, i+1)
			}
			maxDiff = max(maxDiff, math.Abs(a[q][i].Score-b[q][i].Score))
		}
	}
	if maxDiff > 1e-9 {
		return fmt.Sprintf("same order, scores differ by up to %g", maxDiff)
	}
	return fmt.Sprintf("identical (same passage ids in the same order for all queries, max score difference %g)", maxDiff)
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
