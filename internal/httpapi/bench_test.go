package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"concierge/internal/testkit"
)

// BenchmarkAuthMe drives GET /auth/me through the real router in process
// (no network), to profile what one authenticated request costs.
func BenchmarkAuthMe(b *testing.B) {
	for _, e := range []testkit.Engine{testkit.SQLite, testkit.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			a := testkit.NewApp(b, e, testkit.WithEnv("CONCIERGE_RATE_LIMITS", "off", "CONCIERGE_ACCESS_LOG", "false"))
			key, _ := a.Register(b, "bench@example.com")
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := httptest.NewRequest("GET", "/auth/me", nil)
					req.Header.Set("X-API-Key", key)
					rec := httptest.NewRecorder()
					a.HTTP.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("status %d", rec.Code)
					}
				}
			})
		})
	}
}
