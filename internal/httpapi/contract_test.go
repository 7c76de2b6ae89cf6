package httpapi_test

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestErrorContract(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, _ := a.Register(t, "owner@example.com")
		auth := []string{"X-API-Key", key}
		a.Run(t,
			testkit.Scenario{Name: "unknown route is a JSON 404", Method: "GET", Path: "/no/such/route",
				Status: 404, Contains: []string{`"detail":"Not Found"`}, Header: map[string]string{"Content-Type": "application/json"}},
			testkit.Scenario{Name: "wrong method is a JSON 405", Method: "DELETE", Path: "/auth/me",
				Status: 405, Contains: []string{`"detail":"Method Not Allowed"`},
				Header: map[string]string{"Content-Type": "application/json", "Allow": "GET"}},
			testkit.Scenario{Name: "missing key is 401", Method: "GET", Path: "/auth/me", Status: 401,
				Contains: []string{`"detail":"missing credentials`}},
			testkit.Scenario{Name: "invalid key is 401", Method: "GET", Path: "/auth/me", Status: 401,
				Headers: []string{"X-API-Key", "cnc_ws_not-a-real-key"}, Contains: []string{`"detail":"invalid credentials"`}},
			testkit.Scenario{Name: "garbage key is 401", Method: "GET", Path: "/client/api-key", Status: 401,
				Headers: []string{"X-API-Key", strings.Repeat("x", 5000)}},
			testkit.Scenario{Name: "key is checked before the body is validated", Method: "POST",
				Path: "/auth/onboarding/complete", Body: "{not json", Status: 401},
			testkit.Scenario{Name: "422 is a list of loc/msg/type", Method: "POST", Path: "/auth/register",
				Body: map[string]any{"email": 42, "password": "short"}, Status: 422,
				Check: func(t *testing.T, r *testkit.Response) {
					locs := testkit.ValidationLocs(t, r)
					if !slices.Contains(locs, "body.email") || !slices.Contains(locs, "body.password") {
						t.Errorf("locs = %v", locs)
					}
				}},
			testkit.Scenario{Name: "a missing field is type missing", Method: "POST", Path: "/auth/login",
				Body: map[string]any{"password": "whatever"}, Status: 422,
				Contains: []string{`"loc":["body","email"]`, `"type":"missing"`}},
			testkit.Scenario{Name: "a value is never echoed in a 422", Method: "POST", Path: "/auth/register",
				Body: map[string]any{"email": "x@example.com", "password": "s3cr"}, Status: 422, Absent: []string{"s3cr"}},
			testkit.Scenario{Name: "malformed JSON is 400 with a string detail", Method: "POST", Path: "/auth/login",
				Body: `{"email": "a@b.co", "password": "x"`, Status: 400, Contains: []string{`"detail":"malformed request body`}},
			testkit.Scenario{Name: "body over 1 MiB is 413", Method: "POST", Path: "/auth/login",
				Body: `{"email":"a@b.co","password":"` + strings.Repeat("a", 1<<20) + `"}`, Status: 413,
				Contains: []string{`"detail":"request body is too large"`}},
			testkit.Scenario{Name: "authenticated request works", Method: "GET", Path: "/auth/me", Headers: auth, Status: 200},
		)
	})
}

func TestRequestIDs(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite)
	r := a.Do(t, "GET", "/healthz", nil)
	if id := r.Header.Get("X-Request-Id"); len(id) < 16 {
		t.Errorf("generated request id %q", id)
	}
	r = a.Do(t, "GET", "/healthz", nil, "X-Request-Id", "edge-1234")
	if id := r.Header.Get("X-Request-Id"); id != "edge-1234" {
		t.Errorf("propagated request id %q", id)
	}
	r = a.Do(t, "GET", "/healthz", nil, "X-Request-Id", "bad id\twith junk")
	if id := r.Header.Get("X-Request-Id"); strings.Contains(id, " ") {
		t.Errorf("malformed request id was echoed: %q", id)
	}
	if !strings.Contains(a.Logs.String(), "request_id=") {
		t.Error("logs carry no request id")
	}
}

func TestHealthReadinessMetrics(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		a.Register(t, "m@example.com")
		a.Mailbox.WaitFor(t, "m@example.com", 1) // a job ran
		a.Run(t,
			testkit.Scenario{Name: "healthz", Method: "GET", Path: "/healthz", Status: 200, Contains: []string{`"ok"`}},
			testkit.Scenario{Name: "readyz", Method: "GET", Path: "/readyz", Status: 200, Contains: []string{`"ready"`}},
			testkit.Scenario{Name: "metrics", Method: "GET", Path: "/metrics", Status: 200, Contains: []string{
				`concierge_http_requests_total{method="POST",route="/auth/register",status="200"} 1`,
				`concierge_http_request_duration_seconds_bucket`,
			}},
		)
		// The job's outcome is recorded just after its mail is sent.
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(string(a.Do(t, "GET", "/metrics", nil).Body), `concierge_jobs_total{kind="account.send_code",outcome="succeeded"} 1`) {
			if time.Now().After(deadline) {
				t.Fatal("job metrics missing")
			}
			time.Sleep(10 * time.Millisecond)
		}
		a.DB.Close()
		r := a.Do(t, "GET", "/readyz", nil)
		if r.Status != 503 || r.Header.Get("Retry-After") == "" {
			t.Errorf("readyz with the database closed: %d %s", r.Status, r.Body)
		}
	})
}

func TestMetricsToken(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite, testkit.WithEnv("CONCIERGE_METRICS_TOKEN", "s3cret-token"))
	a.Run(t,
		testkit.Scenario{Name: "no token", Method: "GET", Path: "/metrics", Status: 401},
		testkit.Scenario{Name: "token", Method: "GET", Path: "/metrics", Status: 200,
			Headers: []string{"Authorization", "Bearer s3cret-token"}},
	)
}

func TestRateLimitContract(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e, testkit.WithEnv("CONCIERGE_RATE_LIMIT_READ", "3/m"))
		key, _ := a.Register(t, "rl@example.com")
		otherKey, _ := a.Register(t, "rl2@example.com")
		for i := 0; i < 3; i++ {
			if r := a.Do(t, "GET", "/auth/me", nil, "X-API-Key", key); r.Status != 200 {
				t.Fatalf("request %d: %d", i+1, r.Status)
			}
		}
		// Bad keys are refused before counting: they cannot spend a tenant's budget.
		for i := 0; i < 5; i++ {
			a.Do(t, "GET", "/auth/me", nil, "X-API-Key", "cnc_ws_bogus")
		}
		r := a.Do(t, "GET", "/auth/me", nil, "X-API-Key", key)
		if r.Status != 429 {
			t.Fatalf("4th request: %d %s", r.Status, r.Body)
		}
		var body struct {
			Detail            string `json:"detail"`
			Error             string `json:"error"`
			RetryAfterSeconds int    `json:"retry_after_seconds"`
		}
		r.Decode(t, &body)
		ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if err != nil || ra < 1 || ra != body.RetryAfterSeconds || body.Error != "rate_limited" || body.Detail == "" {
			t.Fatalf("429 contract: Retry-After %q body %s", r.Header.Get("Retry-After"), r.Body)
		}
		for name := range r.Header {
			if l := strings.ToLower(name); strings.Contains(l, "ratelimit") {
				t.Errorf("429 publishes the ceiling in %s", name)
			}
		}
		if strings.Contains(string(r.Body), "3") && strings.Contains(string(r.Body), "per") {
			t.Errorf("429 body states the ceiling: %s", r.Body)
		}
		// Another workspace has its own bucket.
		if r := a.Do(t, "GET", "/auth/me", nil, "X-API-Key", otherKey); r.Status != 200 {
			t.Errorf("other workspace: %d", r.Status)
		}
		// Retrying before Retry-After fails; after it, succeeds (fake clock).
		a.Clock.Advance(time.Duration(ra-1) * time.Second)
		if r := a.Do(t, "GET", "/auth/me", nil, "X-API-Key", key); r.Status != 429 {
			t.Errorf("retry before Retry-After: %d", r.Status)
		}
		a.Clock.Advance(time.Second)
		if r := a.Do(t, "GET", "/auth/me", nil, "X-API-Key", key); r.Status != 200 {
			t.Errorf("retry after Retry-After: %d %s", r.Status, r.Body)
		}
	})
}

func TestRateLimitsOff(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite, testkit.WithEnv("CONCIERGE_RATE_LIMIT_READ", "1/m", "CONCIERGE_RATE_LIMITS", "off"))
	key, _ := a.Register(t, "off@example.com")
	for i := 0; i < 5; i++ {
		if r := a.Do(t, "GET", "/auth/me", nil, "X-API-Key", key); r.Status != 200 {
			t.Fatalf("request %d: %d", i+1, r.Status)
		}
	}
}

// TestRedisLimiterIsSharedByReplicas: two processes' worth of the service
// pointed at one Redis count against the same ceiling.
func TestRedisLimiterIsSharedByReplicas(t *testing.T) {
	url := testkit.StartRedis(t)
	env := testkit.WithEnv("REDIS_URL", url, "CONCIERGE_RATE_LIMIT_AUTH", "4/m")
	a := testkit.NewApp(t, testkit.SQLite, env)
	b := testkit.NewApp(t, testkit.SQLite, env)
	body := map[string]any{"email": "nobody@example.com"}
	statuses := []int{}
	for i := 0; i < 6; i++ {
		app := a
		if i%2 == 1 {
			app = b
		}
		statuses = append(statuses, app.Do(t, "POST", "/auth/resend-verification", body).Status)
	}
	want := []int{200, 200, 200, 200, 429, 429}
	if !slices.Equal(statuses, want) {
		t.Fatalf("statuses across two replicas = %v, want %v", statuses, want)
	}
}

func TestOpenAPIDescription(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite)
	r := a.Do(t, "GET", "/openapi.json", nil)
	if r.Status != 200 {
		t.Fatalf("openapi: %d", r.Status)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			SecuritySchemes map[string]struct {
				Type string `json:"type"`
				In   string `json:"in"`
				Name string `json:"name"`
			} `json:"securitySchemes"`
		} `json:"components"`
	}
	r.Decode(t, &doc)
	if !strings.HasPrefix(doc.OpenAPI, "3.1") || doc.Info.Version != "1.0.0" {
		t.Errorf("openapi %q version %q", doc.OpenAPI, doc.Info.Version)
	}
	names := map[string]bool{}
	for _, s := range doc.Components.SecuritySchemes {
		if s.Type == "apiKey" && s.In == "header" {
			names[s.Name] = true
		}
	}
	for _, h := range []string{"X-API-Key", "X-Bot-Key", "X-Operator-Key"} {
		if !names[h] {
			t.Errorf("security scheme for %s missing", h)
		}
	}
	want := map[string][]string{
		"/auth/register": {"post"}, "/auth/verify-email": {"post"}, "/auth/resend-verification": {"post"},
		"/auth/login": {"post"}, "/auth/request-password-reset": {"post"}, "/auth/reset-password": {"post"},
		"/auth/me": {"get"}, "/auth/onboarding/complete": {"post"}, "/auth/detect-country": {"get"},
		"/client/api-key": {"get"}, "/client/api-key/regenerate": {"post"},
		"/auth/me/entitlements": {"get"}, "/auth/operator-login": {"post"}, "/auth/operator-change-password": {"post"},
		"/bots": {"get", "post"}, "/bots/{bot_id}": {"get", "patch", "delete"}, "/bots/settings/public": {"get"},
		"/bots/{bot_id}/framework-presets": {"get"}, "/bots/brand-tone-presets": {"get"},
		"/bots/{bot_id}/demo-share-click": {"post"}, "/bots/{bot_id}/recrawl": {"get", "patch"},
		"/bots/checkout": {"post"}, "/bots/checkout/verify": {"post"},
		"/credits/balance": {"get"}, "/credits/history": {"get"},
		"/subscriptions/current": {"get"}, "/subscriptions/usage": {"get"}, "/subscriptions/invoices": {"get"},
		"/operators": {"get", "post"}, "/operators/{operator_id}": {"get", "patch", "delete"},
		"/ingest/preview-cost": {"post"}, "/ingest": {"post"}, "/ingest/status/{job_id}": {"get"},
		"/documents": {"get"}, "/documents/knowledge-state": {"get"}, "/documents/{document_name}": {"delete"},
		"/crawl/discover": {"post"}, "/crawl": {"post"}, "/crawl/progress": {"get"}, "/crawl/cancel": {"post"},
	}
	for path, methods := range want {
		for _, m := range methods {
			op, ok := doc.Paths[path][m]
			if !ok {
				t.Errorf("%s %s missing from the description", m, path)
				continue
			}
			if (!strings.Contains(string(op), `"200"`) && !strings.Contains(string(op), `"201"`) && !strings.Contains(string(op), `"202"`)) ||
				!strings.Contains(string(op), "schema") {
				t.Errorf("%s %s has no response schema", m, path)
			}
		}
	}
	for _, hidden := range []string{"/healthz", "/readyz", "/metrics", "/payments/razorpay/webhook"} {
		if _, ok := doc.Paths[hidden]; ok {
			t.Errorf("internal route %s is published", hidden)
		}
	}
	if op := string(doc.Paths["/auth/register"]["post"]); !strings.Contains(op, "requestBody") {
		t.Errorf("register has no request schema")
	}
	var login struct {
		Responses map[string]struct {
			Headers map[string]json.RawMessage `json:"headers"`
		} `json:"responses"`
	}
	if err := json.Unmarshal(doc.Paths["/auth/login"]["post"], &login); err != nil {
		t.Fatal(err)
	}
	if _, ok := login.Responses["429"].Headers["Retry-After"]; !ok {
		t.Errorf("the 429 of /auth/login does not document Retry-After")
	}
}

// TestPublishedDescription checks what linters ask of the description and,
// with OPENAPI_OUT set, writes it there for .ci/run's Redocly lint.
func TestPublishedDescription(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite, testkit.WithEnv("CONCIERGE_PUBLIC_URL", "https://api.example.com"))
	raw := a.Do(t, "GET", "/openapi.json", nil).Body
	var doc struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Paths map[string]map[string]struct {
			Security *[]map[string][]string `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "https://api.example.com" {
		t.Errorf("servers: %+v", doc.Servers)
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.Security == nil {
				t.Errorf("%s %s declares no security (a public operation says security: [])", method, path)
			}
		}
	}
	if out := os.Getenv("OPENAPI_OUT"); out != "" {
		if err := os.WriteFile(out, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
