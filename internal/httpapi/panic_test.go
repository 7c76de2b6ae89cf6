package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"concierge/internal/ratelimit"
)

type panicIn struct{}
type panicOut struct{ Body struct{} }

// TestPanicIsABland500: a handler panic goes through the real middleware
// chain and answers 500 with nothing of the panic in the body.
func TestPanicIsABland500(t *testing.T) {
	s := New(Deps{Limiter: ratelimit.Off{}})
	register(s, route{id: "boom", method: http.MethodGet, path: "/test/boom"},
		func(ctx context.Context, _ *panicIn) (*panicOut, error) {
			panic("secret internal detail: dsn=postgres://user:pw@db")
		})
	s.router.Get("/test/raw-boom", func(http.ResponseWriter, *http.Request) { panic("raw secret") })
	for _, path := range []string{"/test/boom", "/test/raw-boom"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != 500 || strings.TrimSpace(string(body)) != `{"detail":"internal server error"}` {
			t.Errorf("%s: %d %s", path, rec.Code, body)
		}
		if strings.Contains(string(body), "secret") {
			t.Errorf("%s: body leaks the panic", path)
		}
	}
}

func TestSplitLocation(t *testing.T) {
	got := splitLocation("body.items[3].name")
	if len(got) != 4 || got[0] != "body" || got[1] != "items" || got[2] != 3 || got[3] != "name" {
		t.Fatalf("got %#v", got)
	}
}
