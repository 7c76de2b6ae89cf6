package secret

import (
	"strings"
	"testing"
	"time"
)

func TestOrderedTokenSortsByTime(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	prev := ""
	seen := map[string]bool{}
	for i := range 2000 {
		tok := orderedToken("msg_", 12, t0.Add(time.Duration(i)*time.Millisecond))
		if !strings.HasPrefix(tok, "msg_") || len(tok) != len("msg_")+12+16 {
			t.Fatalf("token %q: want msg_, 12 hex digits and 16 base64url characters", tok)
		}
		if tok <= prev {
			t.Fatalf("token %q made later does not sort after %q", tok, prev)
		}
		if seen[tok] {
			t.Fatalf("duplicate token %q", tok)
		}
		seen[tok], prev = true, tok
	}
	// Within one millisecond the random part differs.
	a, b := orderedToken("cs_", 16, t0), orderedToken("cs_", 16, t0)
	if a == b || a[:3+12] != b[:3+12] {
		t.Fatalf("same-millisecond tokens %q and %q: want the same time part and different random parts", a, b)
	}
	if got := OrderedToken("evt_", 16); len(got) != len("evt_")+12+22 {
		t.Fatalf("OrderedToken length: %q", got)
	}
}
