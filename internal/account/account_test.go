package account_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"concierge/internal/app"
	"concierge/internal/clock"
	"concierge/internal/mail/mailtest"
	"concierge/internal/outbox"
	"concierge/internal/ratelimit"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const pw = testkit.Password

func TestSignUpWalkThrough(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		email := "walk@example.com"
		r := a.Do(t, "POST", "/auth/register", map[string]any{"email": " Walk@Example.com ", "password": pw, "name": "Acme", "billing_country": "in"})
		if r.Status != 200 {
			t.Fatalf("register: %d %s", r.Status, r.Body)
		}
		var reg struct {
			APIKey    string `json:"api_key"`
			Workspace struct {
				ID             int64  `json:"id"`
				Email          string `json:"email"`
				JoinedAt       string `json:"joined_at"`
				BillingCountry string `json:"billing_country"`
			} `json:"workspace"`
			EmailVerified bool `json:"email_verified"`
		}
		r.Decode(t, &reg)
		if !strings.HasPrefix(reg.APIKey, "cnc_ws_") || len(reg.APIKey) < 40 || reg.Workspace.Email != email ||
			reg.EmailVerified || reg.Workspace.BillingCountry != "IN" {
			t.Fatalf("register response: %s", r.Body)
		}
		if _, err := time.Parse(time.RFC3339, reg.Workspace.JoinedAt); err != nil || !strings.HasSuffix(reg.Workspace.JoinedAt, "Z") {
			t.Errorf("joined_at %q is not RFC 3339 UTC", reg.Workspace.JoinedAt)
		}
		code := a.Mailbox.Code(t, email, 1)
		key := []string{"X-API-Key", reg.APIKey}
		a.Run(t,
			testkit.Scenario{Name: "duplicate sign-up is a conflict", Method: "POST", Path: "/auth/register",
				Body: map[string]any{"email": email, "password": pw}, Status: 409},
			testkit.Scenario{Name: "me before verification", Method: "GET", Path: "/auth/me", Headers: key, Status: 200,
				Contains: []string{`"email":"walk@example.com"`, `"email_verified":false`, `"bot_count":0`, `"role":"owner"`}},
		)
		// Events are recorded for active endpoints only: none can exist at
		// sign-up, so workspace.created has nobody to go to; one listens
		// from here on (its bot is the workspace's first).
		a.Listen(t, reg.Workspace.ID, 0)
		a.Run(t,
			testkit.Scenario{Name: "verify", Method: "POST", Path: "/auth/verify-email",
				Body: map[string]any{"email": email, "code": code}, Status: 200, Contains: []string{`"email_verified":true`}},
			testkit.Scenario{Name: "a code is single use", Method: "POST", Path: "/auth/verify-email",
				Body: map[string]any{"email": email, "code": code}, Status: 422},
			testkit.Scenario{Name: "me after verification", Method: "GET", Path: "/auth/me", Headers: key, Status: 200,
				Contains: []string{`"email_verified":true`}},
			testkit.Scenario{Name: "login returns the same permanent key", Method: "POST", Path: "/auth/login",
				Body: map[string]any{"email": "WALK@example.com", "password": pw}, Status: 200,
				Contains: []string{`"api_key":"` + reg.APIKey + `"`}},
			testkit.Scenario{Name: "wrong password", Method: "POST", Path: "/auth/login",
				Body: map[string]any{"email": email, "password": "wrong password"}, Status: 401, Absent: []string{"cnc_ws_"}},
			testkit.Scenario{Name: "unknown account", Method: "POST", Path: "/auth/login",
				Body: map[string]any{"email": "nobody@example.com", "password": pw}, Status: 401},
			testkit.Scenario{Name: "read the key", Method: "GET", Path: "/client/api-key", Headers: key, Status: 200,
				Contains: []string{reg.APIKey}},
			testkit.Scenario{Name: "onboarding", Method: "POST", Path: "/auth/onboarding/complete", Headers: key, Status: 200,
				Contains: []string{`"onboarding_completed":true`}},
		)
		first := a.Do(t, "POST", "/auth/onboarding/complete", nil, key...)
		a.Clock.Advance(time.Hour)
		second := a.Do(t, "POST", "/auth/onboarding/complete", nil, key...)
		if second.Status != 200 || string(first.Body) != string(second.Body) {
			t.Errorf("onboarding is not idempotent: %s then %s", first.Body, second.Body)
		}
		// Events were recorded in the outbox with their changes.
		evs, err := outbox.List(context.Background(), a.DB.Reader(), reg.Workspace.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, ev := range evs {
			types = append(types, ev.Type)
			if !strings.HasPrefix(ev.PublicID, "evt_") {
				t.Errorf("event id %q", ev.PublicID)
			}
		}
		if got := strings.Join(types, ","); got != "workspace.onboarding_completed,workspace.email_verified" {
			t.Errorf("events = %s", got)
		}
	})
}

func TestKeyRotation(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		old, _ := a.Register(t, "rot@example.com")
		r := a.Do(t, "POST", "/client/api-key/regenerate", nil, "X-API-Key", old)
		if r.Status != 200 {
			t.Fatalf("regenerate: %d %s", r.Status, r.Body)
		}
		fresh := r.JSON(t)["api_key"].(string)
		if fresh == old || !strings.HasPrefix(fresh, "cnc_ws_") {
			t.Fatalf("new key %q", fresh)
		}
		// The old key is dead on the very next request, from any goroutine.
		var ok atomic.Int32
		var wg sync.WaitGroup
		for g := 0; g < 20; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 10; i++ {
					if a.Do(t, "GET", "/auth/me", nil, "X-API-Key", old).Status != 401 {
						ok.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 0 {
			t.Fatalf("the rotated key succeeded %d times", ok.Load())
		}
		a.Run(t,
			testkit.Scenario{Name: "new key works", Method: "GET", Path: "/auth/me", Headers: []string{"X-API-Key", fresh}, Status: 200},
			testkit.Scenario{Name: "login returns the new key", Method: "POST", Path: "/auth/login",
				Body: map[string]any{"email": "rot@example.com", "password": pw}, Status: 200, Contains: []string{fresh}},
			testkit.Scenario{Name: "old key cannot rotate", Method: "POST", Path: "/client/api-key/regenerate",
				Headers: []string{"X-API-Key", old}, Status: 401},
		)
	})
}

func TestBurnedCodeCannotBeUsed(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		email := "burn@example.com"
		a.Register(t, email)
		code := a.Mailbox.Code(t, email, 1)
		wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1000000)
		for i := 0; i < 5; i++ {
			r := a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": wrong})
			if r.Status != 422 {
				t.Fatalf("wrong guess %d: %d", i+1, r.Status)
			}
		}
		r := a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": code})
		if r.Status != 422 {
			t.Fatalf("burned code accepted: %d %s", r.Status, r.Body)
		}
		// A fresh code works.
		a.Do(t, "POST", "/auth/resend-verification", map[string]any{"email": email})
		fresh := a.Mailbox.Code(t, email, 2)
		if r := a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": fresh}); r.Status != 200 {
			t.Fatalf("fresh code: %d %s", r.Status, r.Body)
		}
	})
}

func TestConcurrentGuessesRespectTheBudget(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		email := "race@example.com"
		a.Register(t, email)
		code := a.Mailbox.Code(t, email, 1)
		start := make(chan struct{})
		var wg sync.WaitGroup
		var accepted atomic.Int32
		for i := 0; i < 30; i++ {
			guess := fmt.Sprintf("%06d", (atoi(code)+1+i)%1000000)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": guess}).Status == 200 {
					accepted.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		var failed int
		if err := store.Get(context.Background(), a.DB.Reader(), &failed, `SELECT COUNT(*) FROM code_events WHERE kind = 'failed'`); err != nil {
			t.Fatal(err)
		}
		if failed > 5 || accepted.Load() != 0 {
			t.Fatalf("%d guesses evaluated (max 5), %d accepted", failed, accepted.Load())
		}
		// Refused: 422 (the code burned), or 429 when the 30 failures also
		// spent this address's budget.
		if r := a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": code}); r.Status != 422 && r.Status != 429 {
			t.Fatalf("the right code after the budget was spent: %d", r.Status)
		}
	})
}

func TestCodesExpire(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite)
	email := "late@example.com"
	a.Register(t, email)
	code := a.Mailbox.Code(t, email, 1)
	a.Clock.Advance(11 * time.Minute)
	if r := a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": code}); r.Status != 422 {
		t.Fatalf("expired code: %d", r.Status)
	}
}

// TestResetLockOutByAStranger is the outside probe's sequence: four times,
// request a reset for the victim and send five wrong codes. The victim's own
// fresh code must still work, from the same address too (the probe ran on
// loopback), on both engines.
func TestResetLockOutByAStranger(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		email := "victim@example.com"
		a.Register(t, email)
		a.Mailbox.Code(t, email, 1) // the verification mail
		sent := 1
		for round := 0; round < 4; round++ {
			a.Do(t, "POST", "/auth/request-password-reset", map[string]any{"email": email})
			sent++
			code := a.Mailbox.Code(t, email, sent)
			for i := 0; i < 5; i++ {
				r := a.Do(t, "POST", "/auth/reset-password", map[string]any{"email": email,
					"code": fmt.Sprintf("%06d", (atoi(code)+1+i)%1000000), "new_password": "stolen account 1"})
				if r.Status != 422 {
					t.Fatalf("round %d wrong guess %d: %d %s", round, i, r.Status, r.Body)
				}
			}
		}
		a.Do(t, "POST", "/auth/request-password-reset", map[string]any{"email": email})
		code := a.Mailbox.Code(t, email, sent+1)
		if r := a.Do(t, "POST", "/auth/reset-password", map[string]any{"email": email, "code": code,
			"new_password": "the owner's own 1"}); r.Status != 200 {
			t.Fatalf("the owner's fresh code after the lock-out sequence: %d %s", r.Status, r.Body)
		}
		if r := a.Do(t, "POST", "/auth/login", map[string]any{"email": email, "password": "the owner's own 1"}); r.Status != 200 {
			t.Fatalf("login with the new password: %d", r.Status)
		}
	})
}

// TestWrongGuessesPerAddress: one address guessing across accounts is
// refused (429 with Retry-After) once its budget is spent; another address
// is not affected, and the budget comes back with time.
func TestWrongGuessesPerAddress(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite, testkit.WithOptions(func(o *app.Options) {
		o.Accounts.AddressGuesses = ratelimit.PerHour(6)
	}), testkit.WithEnv("CONCIERGE_TRUSTED_PROXIES", "127.0.0.1/32"))
	var emails []string
	for i := 0; i < 3; i++ {
		email := fmt.Sprintf("spread%d@example.com", i)
		a.Register(t, email)
		emails = append(emails, email)
	}
	guess := func(email, from string) *testkit.Response {
		return a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": "000000"}, "X-Forwarded-For", from)
	}
	for i := 0; i < 6; i++ {
		if r := guess(emails[i%3], "198.51.100.7"); r.Status != 422 {
			t.Fatalf("guess %d: %d %s", i, r.Status, r.Body)
		}
	}
	r := guess(emails[0], "198.51.100.7")
	if r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("the 7th wrong guess from one address: %d %v", r.Status, r.Header)
	}
	// The owner, elsewhere, still verifies with the code in the mail.
	code := a.Mailbox.Code(t, emails[1], 1)
	if r := a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": emails[1], "code": code},
		"X-Forwarded-For", "203.0.113.9"); r.Status != 200 {
		t.Fatalf("the owner from another address: %d %s", r.Status, r.Body)
	}
	a.Clock.Advance(time.Hour)
	if r := guess(emails[2], "198.51.100.7"); r.Status != 422 {
		t.Fatalf("an hour later: %d %s", r.Status, r.Body)
	}
}

// TestConsecutiveFailureLock: 100 wrong guesses in a row on one account
// (over many codes and addresses) lock code verification, the last resort
// NIST 800-63B allows; signing in with the password lifts it.
func TestConsecutiveFailureLock(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite, testkit.WithEnv("CONCIERGE_TRUSTED_PROXIES", "127.0.0.1/32"))
	email := "locked@example.com"
	a.Register(t, email)
	code := a.Mailbox.Code(t, email, 1)
	sent := 1
	for wrong := 0; wrong < 100; wrong++ {
		if wrong > 0 && wrong%5 == 0 {
			a.Clock.Advance(13 * time.Minute) // within the hourly resend budget
			a.Do(t, "POST", "/auth/resend-verification", map[string]any{"email": email})
			sent++
			code = a.Mailbox.Code(t, email, sent)
		}
		from := fmt.Sprintf("198.51.100.%d", 1+wrong/5) // a new address per code
		r := a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email,
			"code": fmt.Sprintf("%06d", (atoi(code)+1+wrong%5)%1000000)}, "X-Forwarded-For", from)
		if r.Status != 422 {
			t.Fatalf("wrong guess %d: %d %s", wrong, r.Status, r.Body)
		}
	}
	a.Clock.Advance(13 * time.Minute)
	a.Do(t, "POST", "/auth/resend-verification", map[string]any{"email": email})
	code = a.Mailbox.Code(t, email, sent+1)
	if r := a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": code}); r.Status != 422 ||
		!strings.Contains(string(r.Body), "locked") {
		t.Fatalf("the right code after 100 consecutive failures: %d %s", r.Status, r.Body)
	}
	if r := a.Do(t, "POST", "/auth/login", map[string]any{"email": email, "password": testkit.Password}); r.Status != 200 {
		t.Fatalf("login: %d %s", r.Status, r.Body)
	}
	if r := a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": code}); r.Status != 200 {
		t.Fatalf("the same code after the owner signed in: %d %s", r.Status, r.Body)
	}
}

func TestResendAndResetRevealNothing(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		a.Register(t, "known@example.com")
		a.Mailbox.WaitFor(t, "known@example.com", 1)
		for _, path := range []string{"/auth/resend-verification", "/auth/request-password-reset"} {
			known := a.Do(t, "POST", path, map[string]any{"email": "known@example.com"})
			unknown := a.Do(t, "POST", path, map[string]any{"email": "unknown@example.com"})
			if known.Status != 200 || unknown.Status != 200 || string(known.Body) != string(unknown.Body) {
				t.Errorf("%s: known %d %s / unknown %d %s", path, known.Status, known.Body, unknown.Status, unknown.Body)
			}
		}
		a.Mailbox.WaitFor(t, "known@example.com", 3)
		time.Sleep(100 * time.Millisecond)
		if n := len(a.Mailbox.Messages("unknown@example.com")); n != 0 {
			t.Errorf("%d messages to an unknown address", n)
		}
	})
}

func TestResendBudgetPerHour(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite)
	email := "many@example.com"
	a.Register(t, email)
	a.Mailbox.WaitFor(t, email, 1)
	for i := 0; i < 8; i++ {
		a.Do(t, "POST", "/auth/resend-verification", map[string]any{"email": email})
		time.Sleep(40 * time.Millisecond) // let the job run so requests are not merged
	}
	time.Sleep(200 * time.Millisecond)
	if n := len(a.Mailbox.Messages(email)); n != 5 {
		t.Fatalf("%d codes sent in an hour, want 5", n)
	}
}

func TestPasswordReset(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		email := "reset@example.com"
		key, _ := a.Register(t, email)
		a.Mailbox.WaitFor(t, email, 1)
		a.Do(t, "POST", "/auth/request-password-reset", map[string]any{"email": email})
		code := a.Mailbox.Code(t, email, 2)
		if !strings.Contains(a.Mailbox.Messages(email)[1].Subject, "reset") {
			t.Fatalf("second mail is not the reset: %q", a.Mailbox.Messages(email)[1].Subject)
		}
		a.Run(t,
			testkit.Scenario{Name: "weak new password", Method: "POST", Path: "/auth/reset-password",
				Body: map[string]any{"email": email, "code": code, "new_password": "short"}, Status: 422,
				Contains: []string{`"loc":["body","new_password"]`}},
			testkit.Scenario{Name: "wrong code", Method: "POST", Path: "/auth/reset-password",
				Body: map[string]any{"email": email, "code": "000000", "new_password": "brand new password"}, Status: 422},
			testkit.Scenario{Name: "reset", Method: "POST", Path: "/auth/reset-password",
				Body: map[string]any{"email": email, "code": code, "new_password": "brand new password"}, Status: 200},
			testkit.Scenario{Name: "old password fails", Method: "POST", Path: "/auth/login",
				Body: map[string]any{"email": email, "password": pw}, Status: 401},
			testkit.Scenario{Name: "new password works", Method: "POST", Path: "/auth/login",
				Body: map[string]any{"email": email, "password": "brand new password"}, Status: 200, Contains: []string{key}},
			testkit.Scenario{Name: "the reset verified the address", Method: "GET", Path: "/auth/me",
				Headers: []string{"X-API-Key", key}, Status: 200, Contains: []string{`"email_verified":true`}},
			testkit.Scenario{Name: "the code was single use", Method: "POST", Path: "/auth/reset-password",
				Body: map[string]any{"email": email, "code": code, "new_password": "another password"}, Status: 422},
		)
	})
}

func TestLoginCeilingPerAddress(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e, testkit.WithEnv("CONCIERGE_RATE_LIMIT_AUTH", "10/m",
			"CONCIERGE_RATE_LIMIT_LOGIN_ACCOUNT", "1000/m"))
		a.Register(t, "ip@example.com")
		for i := 0; i < 10; i++ {
			email := fmt.Sprintf("target%d@example.com", i) // different accounts, one address
			if r := a.Do(t, "POST", "/auth/login", map[string]any{"email": email, "password": "nope nope"}); r.Status != 401 {
				t.Fatalf("attempt %d: %d", i+1, r.Status)
			}
		}
		r := a.Do(t, "POST", "/auth/login", map[string]any{"email": "ip@example.com", "password": pw})
		if r.Status != 429 || r.Header.Get("Retry-After") == "" {
			t.Fatalf("11th attempt from one address: %d %s", r.Status, r.Body)
		}
		// An untrusted X-Forwarded-For does not buy a new budget.
		r = a.Do(t, "POST", "/auth/login", map[string]any{"email": "ip@example.com", "password": pw}, "X-Forwarded-For", "203.0.113.9")
		if r.Status != 429 {
			t.Fatalf("spoofed X-Forwarded-For: %d", r.Status)
		}
	})
}

func TestLoginCeilingPerAccount(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e, testkit.WithEnv("CONCIERGE_RATE_LIMIT_AUTH", "10/m",
			"CONCIERGE_RATE_LIMIT_LOGIN_ACCOUNT", "10/15m", "CONCIERGE_TRUSTED_PROXIES", "127.0.0.1/32"))
		email := "acct@example.com"
		a.Register(t, email)
		statuses := map[int]int{}
		for i := 0; i < 50; i++ {
			ip := fmt.Sprintf("198.51.100.%d", i+1)
			r := a.Do(t, "POST", "/auth/login", map[string]any{"email": email, "password": "wrong password"}, "X-Forwarded-For", ip)
			statuses[r.Status]++
		}
		if statuses[401] != 10 || statuses[429] != 40 {
			t.Fatalf("50 addresses × 1 account: %v, want 10×401 then 429", statuses)
		}
		r := a.Do(t, "POST", "/auth/login", map[string]any{"email": email, "password": pw}, "X-Forwarded-For", "198.51.100.200")
		if r.Status != 429 {
			t.Fatalf("correct password after the account ceiling: %d %s", r.Status, r.Body)
		}
		a.Clock.Advance(2 * time.Minute)
		if r := a.Do(t, "POST", "/auth/login", map[string]any{"email": email, "password": pw}, "X-Forwarded-For", "198.51.100.201"); r.Status != 200 {
			t.Fatalf("after the ceiling refilled: %d %s", r.Status, r.Body)
		}
	})
}

func TestDetectCountry(t *testing.T) {
	plain := testkit.NewApp(t, testkit.SQLite)
	plain.Run(t, testkit.Scenario{Name: "untrusted edge headers are ignored", Method: "GET", Path: "/auth/detect-country",
		Headers: []string{"CF-IPCountry", "IN"}, Status: 200, Contains: []string{`{"country":null}`}})
	edge := testkit.NewApp(t, testkit.SQLite, testkit.WithEnv("CONCIERGE_TRUST_EDGE_HEADERS", "true"))
	edge.Run(t,
		testkit.Scenario{Name: "cloudflare", Method: "GET", Path: "/auth/detect-country", Headers: []string{"CF-IPCountry", "in"},
			Status: 200, Contains: []string{`{"country":"IN"}`}},
		testkit.Scenario{Name: "cloudfront", Method: "GET", Path: "/auth/detect-country",
			Headers: []string{"CloudFront-Viewer-Country", "US"}, Status: 200, Contains: []string{`"US"`}},
		testkit.Scenario{Name: "akamai", Method: "GET", Path: "/auth/detect-country",
			Headers: []string{"X-Akamai-Edgescape", "georegion=246,country_code=DE,city=BERLIN"}, Status: 200, Contains: []string{`"DE"`}},
		testkit.Scenario{Name: "tor placeholder", Method: "GET", Path: "/auth/detect-country", Headers: []string{"CF-IPCountry", "T1"},
			Status: 200, Contains: []string{`{"country":null}`}},
		testkit.Scenario{Name: "no signal", Method: "GET", Path: "/auth/detect-country", Status: 200, Contains: []string{`{"country":null}`}},
	)
}

// TestNoSecretsAtRest: neither the database nor the logs hold a plaintext
// API key or a one-time code.
func TestNoSecretsAtRest(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		email := "secret@example.com"
		key1, _ := a.Register(t, email)
		code := a.Mailbox.Code(t, email, 1)
		a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": code})
		a.Do(t, "POST", "/auth/login", map[string]any{"email": email, "password": pw})
		key2 := a.Do(t, "POST", "/client/api-key/regenerate", nil, "X-API-Key", key1).JSON(t)["api_key"].(string)
		a.Do(t, "GET", "/client/api-key", nil, "X-API-Key", key2)
		a.Do(t, "POST", "/auth/request-password-reset", map[string]any{"email": email})
		code2 := a.Mailbox.Code(t, email, 2)

		dump := testkit.Dump(t, a.DB)
		logs := a.Logs.String()
		for name, s := range map[string]string{"key1": key1, "key2": key2, "key2 body": strings.TrimPrefix(key2, "cnc_ws_")} {
			if strings.Contains(dump, s) {
				t.Errorf("database holds %s in clear", name)
			}
			if strings.Contains(logs, s) {
				t.Errorf("logs hold %s", name)
			}
		}
		for _, c := range []string{code, code2} {
			if regexp.MustCompile(`\b` + c + `\b`).MatchString(logs) {
				t.Errorf("logs hold a one-time code")
			}
		}
		if !strings.Contains(dump, "$argon2id$v=19$") {
			t.Error("no argon2id hash found in the dump: the dump is not reading the tables")
		}
	})
}

func TestProductionPasswordHashParameters(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite, testkit.WithRealHashing())
	a.Register(t, "argon@example.com")
	var hash string
	if err := store.Get(context.Background(), a.DB.Reader(), &hash, `SELECT password_hash FROM workspaces`); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$`).FindStringSubmatch(hash)
	if m == nil || atoi(m[1]) < 19456 || atoi(m[2]) < 2 || atoi(m[3]) < 1 {
		t.Fatalf("stored hash %q is below m=19456,t=2,p=1", hash)
	}
	if r := a.Do(t, "POST", "/auth/login", map[string]any{"email": "argon@example.com", "password": pw}); r.Status != http.StatusOK {
		t.Fatalf("login: %d", r.Status)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestCodesGoOutOverSMTP: with CONCIERGE_SMTP_URL set, the verification code
// travels over a real SMTP exchange, and a relay that fails temporarily is
// retried until exactly one message is delivered.
func TestCodesGoOutOverSMTP(t *testing.T) {
	srv := mailtest.NewServer(t)
	srv.FailNext(451, "greylisted")
	a := testkit.NewApp(t, testkit.SQLite, testkit.WithEnv("CONCIERGE_SMTP_URL", srv.URL()),
		testkit.WithOptions(func(o *app.Options) { o.Mailer, o.Clock = nil, clock.Real{} }))
	email := "smtp@example.com"
	a.Register(t, email)
	msgs, err := srv.WaitForMessages(1, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile(`code is (\d{6})`).FindStringSubmatch(msgs[0].Text)
	if code == nil || msgs[0].To[0] != email {
		t.Fatalf("message: %+v", msgs[0])
	}
	if r := a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": email, "code": code[1]}); r.Status != 200 {
		t.Fatalf("verify with the SMTP-delivered code: %d %s", r.Status, r.Body)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(srv.Messages()); n != 1 {
		t.Fatalf("%d messages delivered, want 1", n)
	}
}
