package retrieval_test

import (
	"slices"
	"testing"
	"time"

	"concierge/internal/retrieval"
	"concierge/internal/testkit"
)

// TestVisibility: only ready documents are retrievable, and a change
// committed through the database (status flip or delete plus a
// knowledge_version bump) shows on the very next search of every replica,
// here two Services on one database that have both already cached the bot.
func TestVisibility(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		f := newFixture(t, e)
		ws := f.workspace()
		bot := f.bot(ws)
		base, _ := f.document(ws, bot, "base", "ready", passage{Text: "Opening hours are nine to five."})
		indexing, _ := f.document(ws, bot, "new", "indexing", passage{Text: "The marmalade recipe uses bitter oranges."})
		failed, _ := f.document(ws, bot, "broken", "failed", passage{Text: "Marmalade jars are recycled."})

		a := f.service(retrieval.Options{})
		b := f.service(retrieval.Options{})
		docs := func(s *retrieval.Service, q string) []int64 {
			t.Helper()
			var out []int64
			for _, h := range search(t, s, ws, bot, q, 10) {
				out = append(out, h.DocumentID)
			}
			slices.Sort(out)
			return slices.Compact(out)
		}
		for _, s := range []*retrieval.Service{a, b} {
			if got := docs(s, "marmalade oranges"); len(got) != 0 {
				t.Fatalf("indexing and failed documents are visible: %v", got)
			}
			if got := docs(s, "opening hours"); !slices.Equal(got, []int64{base}) {
				t.Fatalf("ready document: %v", got)
			}
		}

		f.setStatus(bot, indexing, "ready") // bumps knowledge_version
		for name, s := range map[string]*retrieval.Service{"a": a, "b": b} {
			if got := docs(s, "marmalade oranges"); !slices.Equal(got, []int64{indexing}) {
				t.Fatalf("replica %s after the flip: %v, want %d", name, got, indexing)
			}
		}

		// A ready document that turns failed (a re-index gone wrong) goes.
		f.setStatus(bot, indexing, "failed")
		for name, s := range map[string]*retrieval.Service{"a": a, "b": b} {
			if got := docs(s, "marmalade"); len(got) != 0 {
				t.Fatalf("replica %s: failed document still visible: %v", name, got)
			}
		}
		f.setStatus(bot, failed, "ready")
		f.deleteDocument(bot, base)
		for name, s := range map[string]*retrieval.Service{"a": a, "b": b} {
			if got := docs(s, "opening hours"); len(got) != 0 {
				t.Fatalf("replica %s: deleted document still visible: %v", name, got)
			}
			if got := docs(s, "marmalade jars"); !slices.Equal(got, []int64{failed}) {
				t.Fatalf("replica %s: %v, want %d", name, got, failed)
			}
		}

		// The writer in this process calls Invalidate after its commit; the
		// change shows even if it forgot the version bump.
		late, _ := f.document(ws, bot, "late", "indexing", passage{Text: "Parking is free on weekends."})
		f.exec(`UPDATE documents SET status = 'ready', updated_at = ? WHERE id = ?`, now(), late)
		a.Invalidate(bot)
		if got := docs(a, "parking weekends"); !slices.Equal(got, []int64{late}) {
			t.Fatalf("after Invalidate: %v, want %d", got, late)
		}
	})
}

// TestVersionCheckInterval: with the default interval a replica reuses
// its reading of knowledge_version for up to DefaultVersionCheck, so
// another replica's commit shows within that bound, and this replica's own
// commits (Invalidate) at once.
func TestVersionCheckInterval(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		f := newFixture(t, e)
		ws := f.workspace()
		bot := f.bot(ws)
		f.document(ws, bot, "base", "ready", passage{Text: "Opening hours are nine to five."})
		clock := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		s := f.service(retrieval.Options{
			VersionCheck: retrieval.DefaultVersionCheck,
			Clock:        func() time.Time { return clock },
		})
		count := func(q string) int { t.Helper(); return len(search(t, s, ws, bot, q, 10)) }
		if count("opening hours") != 1 {
			t.Fatal("ready document not found")
		}
		added, _ := f.document(ws, bot, "new", "indexing", passage{Text: "The marmalade recipe uses bitter oranges."})
		f.setStatus(bot, added, "ready") // another replica's commit
		if count("marmalade") != 0 {
			t.Fatal("the version was read again inside the interval")
		}
		clock = clock.Add(retrieval.DefaultVersionCheck)
		if count("marmalade") != 1 {
			t.Fatal("another replica's commit not visible after the interval")
		}

		// A commit of this replica shows at once.
		late, _ := f.document(ws, bot, "late", "indexing", passage{Text: "Parking is free on weekends."})
		f.setStatus(bot, late, "ready")
		s.Invalidate(bot)
		if count("parking weekends") != 1 {
			t.Fatal("own commit not visible at once")
		}

		// A bot id presented with another workspace never rides on the
		// cached reading of this one.
		other := f.workspace()
		if n := len(search(t, s, other, bot, "opening hours", 10)); n != 0 {
			t.Fatalf("another workspace sees %d passages", n)
		}
	})
}

// TestReplaceDocument: the ingestion side replaces a document by making a
// new one ready and deleting the old in one transaction; the index swaps
// them without reloading the rest.
func TestReplaceDocument(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		f := newFixture(t, e)
		ws := f.workspace()
		bot := f.bot(ws)
		for i := range 30 {
			f.document(ws, bot, string(rune('a'+i)), "ready", passage{Text: "filler text about gardening and tomatoes"})
		}
		old, _ := f.document(ws, bot, "faq", "ready", passage{Text: "Returns are accepted within 14 days."})
		s := f.service(retrieval.Options{})
		if hits := search(t, s, ws, bot, "returns", 5); len(hits) != 1 || hits[0].DocumentID != old {
			t.Fatalf("before: %+v", hits)
		}
		newer, _ := f.document(ws, bot, "faq-v2", "indexing", passage{Text: "Returns are accepted within 30 days."})
		f.exec(`DELETE FROM documents WHERE id = ?`, old)
		f.setStatus(bot, newer, "ready")
		hits := search(t, s, ws, bot, "returns", 5)
		if len(hits) != 1 || hits[0].DocumentID != newer || hits[0].Text != "Returns are accepted within 30 days." {
			t.Fatalf("after: %+v", hits)
		}
		if n := len(search(t, s, ws, bot, "gardening tomatoes", 100)); n != 30 {
			t.Fatalf("unchanged documents: %d hits, want 30", n)
		}
	})
}

// TestCacheBound: with room for few passages, least recently searched bots
// are evicted and rebuilt on demand, with the same answers.
func TestCacheBound(t *testing.T) {
	f := newFixture(t, testkit.SQLite)
	type tb struct{ ws, bot int64 }
	var bots []tb
	for range 4 {
		ws := f.workspace()
		bot := f.bot(ws)
		for d := range 5 {
			f.document(ws, bot, string(rune('a'+d)), "ready", passage{Text: "lighthouse keeper logbook entry"})
		}
		bots = append(bots, tb{ws, bot})
	}
	s := f.service(retrieval.Options{MaxCachedPassages: 10})
	for round := range 3 {
		for _, b := range bots {
			if n := len(search(t, s, b.ws, b.bot, "lighthouse", 10)); n != 5 {
				t.Fatalf("round %d bot %d: %d hits, want 5", round, b.bot, n)
			}
			if c := s.CachedPassages(); c > 10 {
				t.Fatalf("cached passages %d over the bound of 10", c)
			}
		}
	}
	// A single bot larger than the bound is still served.
	small := f.service(retrieval.Options{MaxCachedPassages: 2})
	if n := len(search(t, small, bots[0].ws, bots[0].bot, "lighthouse", 10)); n != 5 {
		t.Fatalf("oversized bot: %d hits, want 5", n)
	}
}
