package retrieval_test

import (
	"concierge/internal/retrieval"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"concierge/internal/testkit"
)

func TestSearchBasics(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		f := newFixture(t, e)
		ws := f.workspace()
		bot := f.bot(ws)
		doc, pids := f.document(ws, bot, "handbook.md", "ready",
			passage{Title: "Refunds", Heading: []string{"Billing", "Refunds"}, URL: "https://example.com/refunds",
				Text: "Refunds are issued within 14 days of a cancelled order."},
			passage{Title: "Shipping", Heading: []string{"Orders"}, Text: "We ship worldwide with tracked parcels."},
		)
		s := f.service(retrieval.Options{})
		hits := search(t, s, ws, bot, "How do I get my money refunded?", 5)
		if len(hits) != 1 {
			t.Fatalf("hits = %+v, want the refunds passage only", hits)
		}
		want := retrieval.Hit{PassageID: pids[0], DocumentID: doc, Score: hits[0].Score, Title: "Refunds",
			URL: "https://example.com/refunds", Text: "Refunds are issued within 14 days of a cancelled order.",
			HeadingPath: []string{"Billing", "Refunds"}, DocumentName: "handbook.md"}
		if !strings.HasPrefix(hits[0].Terms, "v1 en\n") {
			t.Errorf("hit terms %q, want the stored analysis", hits[0].Terms)
		}
		want.Terms = hits[0].Terms
		if diff := cmp.Diff(want, hits[0], cmpopts.IgnoreUnexported(retrieval.Hit{}), cmpopts.IgnoreFields(retrieval.Hit{}, "Evidence")); diff != "" {
			t.Errorf("hit (-want +got):\n%s", diff)
		}
		if hits[0].Score <= 0 {
			t.Errorf("score %v, want > 0", hits[0].Score)
		}
		for _, q := range []string{"", "   ", "the of and", "?!", "what is it"} {
			if got := search(t, s, ws, bot, q, 5); len(got) != 0 {
				t.Errorf("query %q: %d hits, want none", q, len(got))
			}
		}
		if got := search(t, s, ws, bot, "ship refunds", 0); got != nil {
			t.Errorf("k=0: %d hits, want none", len(got))
		}
		if got := search(t, s, ws, bot, "ship refunds", 1); len(got) != 1 {
			t.Errorf("k=1: %d hits, want 1", len(got))
		}
		// Another workspace's id with this bot's id selects nothing.
		other := f.workspace()
		if got := search(t, s, other, bot, "refunds", 5); len(got) != 0 {
			t.Errorf("foreign workspace: %d hits, want none", len(got))
		}
		if got := search(t, s, ws, bot+1000, "refunds", 5); len(got) != 0 {
			t.Errorf("missing bot: %d hits, want none", len(got))
		}
	})
}

func TestSearchFieldBoosts(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		f := newFixture(t, e)
		ws := f.workspace()
		bot := f.bot(ws)
		// Same words, same lengths: only the field a word sits in differs.
		_, p := f.document(ws, bot, "a", "ready",
			passage{Title: "Warranty", Text: "Claims are handled by the support team quickly."},
			passage{Title: "Support", Text: "Warranty claims are handled by the team quickly."},
			passage{Title: "Support", Heading: []string{"Warranty"}, Text: "Claims are handled by the team quickly."},
		)
		title, body, heading := p[0], p[1], p[2]
		s := f.service(retrieval.Options{})
		if got, want := ids(search(t, s, ws, bot, "warranty", 3)), []int64{title, heading, body}; !cmp.Equal(got, want) {
			t.Errorf("default boosts: %v, want title, heading, body %v", got, want)
		}
		flat := f.service(retrieval.Options{TitleBoost: 1, HeadingBoost: 1, FirstStageOnly: true})
		hits := search(t, flat, ws, bot, "warranty", 3)
		if len(hits) != 3 || hits[0].Score != hits[1].Score || hits[1].Score != hits[2].Score {
			t.Fatalf("no boosts: want three equal scores, got %+v", hits)
		}
		// Equal scores break ties by passage id.
		if got, want := ids(hits), []int64{title, body, heading}; !cmp.Equal(got, want) {
			t.Errorf("ties: %v, want passage id order %v", got, want)
		}
		off := f.service(retrieval.Options{TitleBoost: retrieval.NoBoost, HeadingBoost: retrieval.NoBoost})
		if got := ids(search(t, off, ws, bot, "warranty", 3)); !cmp.Equal(got, []int64{body}) {
			t.Errorf("fields weighted zero: %v, want the body match %d only", got, body)
		}
	})
}

// TestEnginesRankIdentically indexes the same passages on both engines and
// compares the complete hit lists, scores to 1e-9.
func TestEnginesRankIdentically(t *testing.T) {
	texts := []string{
		"Our premium plan includes priority support and a dedicated account manager.",
		"The basic plan includes email support during business hours.",
		"Support tickets are answered within one business day on every plan.",
		"Premium customers can call support at any hour, every day of the year.",
		"Upgrading from basic to premium takes effect immediately and is prorated.",
		"Account managers review usage monthly and suggest the right plan.",
		"Plan plan plan: a passage that repeats one word many times over.",
		"Email support is included; phone support needs the premium plan.",
	}
	queries := []string{"premium support", "plan", "email support hours", "account manager", "upgrade prorated",
		"phone call", "business day"}
	results := map[testkit.Engine][][]retrieval.Hit{}
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		f := newFixture(t, e)
		ws := f.workspace()
		bot := f.bot(ws)
		for i, tx := range texts {
			f.document(ws, bot, string(rune('a'+i)), "ready", passage{Title: "Plans", Heading: []string{"Pricing"}, Text: tx})
		}
		s := f.service(retrieval.Options{})
		for _, q := range queries {
			results[e] = append(results[e], search(t, s, ws, bot, q, 10))
		}
	})
	a, b := results[testkit.SQLite], results[testkit.Postgres]
	if a == nil || b == nil {
		t.Skip("needs both engines")
	}
	opt := cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) <= 1e-9 })
	if diff := cmp.Diff(a, b, opt, cmpopts.IgnoreUnexported(retrieval.Hit{})); diff != "" {
		t.Errorf("sqlite vs postgres (-sqlite +postgres):\n%s", diff)
	}
	if len(a[1]) != len(texts) {
		t.Errorf("query plan: %d hits, want %d", len(a[1]), len(texts))
	}
}

// TestSearchScripts checks that a question in each script finds its passage
// through the whole path: Analyze at ingestion, the query analyser, BM25.
func TestSearchScripts(t *testing.T) {
	docs := []struct{ name, text, query string }{
		{"zh", "我们的退款政策：购买后三十天内可以全额退款。", "退款政策是什么？"},
		{"ja", "返品は商品到着後14日以内に受け付けております。", "返品はできますか"},
		{"ko", "환불 정책: 구매 후 30일 이내에 전액 환불됩니다.", "환불 정책"},
		{"hi", "हमारी वापसी नीति के अनुसार तीस दिनों के भीतर पूरा पैसा वापस मिलता है।", "वापसी नीति क्या है"},
		{"th", "นโยบายการคืนเงินภายในสามสิบวัน", "การคืนเงิน"},
		{"ru", "Подписку можно отменить в любой момент в настройках аккаунта.", "как отменить подписки"},
		{"fr", "Vous pouvez annuler votre abonnement à tout moment depuis votre compte.", "annulation de l'abonnement"},
		{"es", "Los envíos internacionales tardan entre cinco y diez días hábiles.", "envío internacional"},
		{"emoji", "Our 🍕 pizza menu changes every week.", "🍕"},
	}
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		f := newFixture(t, e)
		ws := f.workspace()
		bot := f.bot(ws)
		want := map[string]int64{}
		for _, d := range docs {
			doc, _ := f.document(ws, bot, d.name, "ready", passage{Text: d.text})
			want[d.name] = doc
		}
		s := f.service(retrieval.Options{})
		for _, d := range docs {
			hits := search(t, s, ws, bot, d.query, 3)
			if len(hits) == 0 || hits[0].DocumentID != want[d.name] {
				t.Errorf("%s: query %q: hits %+v, want document %s first", d.name, d.query, hits, d.name)
			}
		}
	})
}

func TestSearchContextCancelled(t *testing.T) {
	f := newFixture(t, testkit.SQLite)
	ws := f.workspace()
	bot := f.bot(ws)
	f.document(ws, bot, "a", "ready", passage{Text: "hello world"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.service(retrieval.Options{}).Search(ctx, ws, bot, "hello", 3); err == nil {
		t.Fatal("cancelled context: want an error")
	}
}
