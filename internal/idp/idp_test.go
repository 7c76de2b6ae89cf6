package idp_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const (
	frontend = "http://frontend.test/signed-in"
	mobile   = "com.example.concierge:/signed-in"
	// redirectURL is the registered callback; the harness sends the
	// provider's redirect to the app's real address instead.
	redirectURL = "http://app.test/auth/idp/callback"
)

type harness struct {
	*testkit.TestApp
	f      *testkit.FakeOIDC
	client *http.Client
}

func newHarness(t *testing.T, e testkit.Engine, extra ...string) *harness {
	t.Helper()
	f := testkit.NewFakeOIDC(t)
	env := []string{
		"CONCIERGE_IDP_ISSUER", f.URL, "CONCIERGE_IDP_CLIENT_ID", f.ClientID,
		"CONCIERGE_IDP_CLIENT_SECRET", f.ClientSecret, "CONCIERGE_IDP_REDIRECT_URL", redirectURL,
		"CONCIERGE_FRONTEND_URL", frontend, "CONCIERGE_IDP_MOBILE_REDIRECT_URL", mobile,
		"CONCIERGE_IDP_AUDIENCES", "concierge-ios,concierge-android",
	}
	a := testkit.NewApp(t, e, testkit.WithEnv(append(env, extra...)...))
	f.Now = a.Clock.Now
	return &harness{TestApp: a, f: f, client: &http.Client{Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (h *harness) get(t *testing.T, rawURL, cookie string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cookie != "" {
		req.Header.Set("Cookie", "concierge_idp_state="+cookie)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// login starts the web flow; it answers the state cookie's value and the
// provider URL to follow.
func (h *harness) login(t *testing.T, query string) (cookie string, authorize string) {
	t.Helper()
	resp := h.get(t, h.URL+"/auth/idp/login?"+query, "")
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("login: status %d", resp.StatusCode)
	}
	for _, c := range resp.Cookies() {
		if c.Name == "concierge_idp_state" {
			cookie = c.Value
		}
	}
	if cookie == "" {
		t.Fatalf("login set no state cookie: %v", resp.Header)
	}
	return cookie, resp.Header.Get("Location")
}

// authorize follows the provider's consent screen (approved at once) and
// answers the callback URL on the app.
func (h *harness) authorize(t *testing.T, authorizeURL string) string {
	t.Helper()
	resp := h.get(t, authorizeURL, "")
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: status %d", resp.StatusCode)
	}
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || u.Scheme+"://"+u.Host+u.Path != redirectURL {
		t.Fatalf("provider redirected to %q", resp.Header.Get("Location"))
	}
	return h.URL + u.Path + "?" + u.RawQuery
}

// callback calls the callback and answers the landing URL and its
// fragment parameters.
func (h *harness) callback(t *testing.T, callbackURL, cookie string) (string, url.Values) {
	t.Helper()
	resp := h.get(t, callbackURL, cookie)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("callback: status %d", resp.StatusCode)
	}
	cleared := false
	for _, c := range resp.Cookies() {
		if c.Name == "concierge_idp_state" && c.MaxAge < 0 {
			cleared = true
		}
	}
	if !cleared {
		t.Errorf("callback did not clear the state cookie: %v", resp.Header.Values("Set-Cookie"))
	}
	loc := resp.Header.Get("Location")
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("landing %q: %v", loc, err)
	}
	frag, err := url.ParseQuery(u.EscapedFragment())
	if err != nil {
		t.Fatalf("landing fragment %q: %v", u.Fragment, err)
	}
	u.Fragment = ""
	return u.String(), frag
}

// signIn runs the whole web flow for the scripted user.
func (h *harness) signIn(t *testing.T, query string) url.Values {
	t.Helper()
	cookie, az := h.login(t, query)
	landing, frag := h.callback(t, h.authorize(t, az), cookie)
	if landing != frontend && landing != mobile {
		t.Fatalf("landed on %q", landing)
	}
	return frag
}

func (h *harness) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := store.Get(context.Background(), h.DB.Reader(), &n, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func (h *harness) me(t *testing.T, key string) map[string]any {
	t.Helper()
	r := h.Do(t, "GET", "/auth/me", nil, "X-API-Key", key)
	if r.Status != 200 {
		t.Fatalf("/auth/me with the key: %d %s", r.Status, r.Body)
	}
	return r.JSON(t)
}

func TestWebFlowLayers(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		h := newHarness(t, e)

		// Layer 3: a new, verified address creates a workspace.
		h.f.SetUser(map[string]any{"sub": "sub-new", "email": "New.User@Example.com", "email_verified": true, "name": "New User"})
		frag := h.signIn(t, "next=%2Fbots%3Ftab%3Dall&promo_code=SPRING&referral_code=ref-42&mode=register")
		key := frag.Get("api_key")
		if !strings.HasPrefix(key, "cnc_ws_") || frag.Get("created") != "true" || frag.Get("next") != "/bots?tab=all" || frag.Get("error") != "" {
			t.Fatalf("new workspace landing: %v", frag)
		}
		me := h.me(t, key)
		if me["email"] != "new.user@example.com" || me["email_verified"] != true || me["name"] != "New User" {
			t.Fatalf("profile: %v", me)
		}
		if r := h.Do(t, "GET", "/auth/me/entitlements", nil, "X-API-Key", key); r.Status != 200 {
			t.Fatalf("entitlements of the new workspace: %d %s", r.Status, r.Body)
		}
		if n := h.count(t, `SELECT COUNT(*) FROM workspace_identities WHERE subject = ? AND promo_code = ? AND referral_code = ?`,
			"sub-new", "SPRING", "ref-42"); n != 1 {
			t.Fatalf("identity with the codes: %d rows", n)
		}
		// A workspace made by its first sign-in has no webhook endpoint yet:
		// its events have nobody to go to and are not recorded.
		if n := h.count(t, `SELECT COUNT(*) FROM events`); n != 0 {
			t.Fatalf("%d events recorded with no endpoint to receive them", n)
		}
		// No password: sign-in with one fails like a wrong password.
		if r := h.Do(t, "POST", "/auth/login", map[string]any{"email": "new.user@example.com", "password": "anything at all"}); r.Status != 401 {
			t.Fatalf("password sign-in of a provider-created workspace: %d %s", r.Status, r.Body)
		}

		// ... until one is set through the reset flow (the only mail: no
		// verification code was sent, the provider vouched for the address).
		h.Do(t, "POST", "/auth/request-password-reset", map[string]any{"email": "new.user@example.com"})
		code := h.Mailbox.Code(t, "new.user@example.com", 1)
		if r := h.Do(t, "POST", "/auth/reset-password", map[string]any{"email": "new.user@example.com", "code": code,
			"new_password": "a password at last"}); r.Status != 200 {
			t.Fatalf("reset: %d %s", r.Status, r.Body)
		}
		if r := h.Do(t, "POST", "/auth/login", map[string]any{"email": "new.user@example.com", "password": "a password at last"}); r.Status != 200 ||
			r.JSON(t)["api_key"] != key {
			t.Fatalf("password sign-in after the reset: %d %s", r.Status, r.Body)
		}

		// Layer 1: the same subject comes back, even with another address.
		h.f.SetUser(map[string]any{"sub": "sub-new", "email": "renamed@example.com", "email_verified": false})
		frag = h.signIn(t, "")
		if frag.Get("api_key") != key || frag.Get("created") != "" || frag.Get("next") != "" {
			t.Fatalf("returning identity: %v", frag)
		}

		// Layer 2: a verified address equal to an existing workspace's
		// links the identity and marks the address verified.
		existing, wsID := h.Register(t, "owner@example.com")
		h.Listen(t, wsID, 0) // its events are recorded: an endpoint listens
		if h.me(t, existing)["email_verified"] != false {
			t.Fatal("registered workspace starts verified")
		}
		h.f.SetUser(map[string]any{"sub": "sub-owner", "email": "OWNER@example.com", "email_verified": true})
		frag = h.signIn(t, "")
		if frag.Get("api_key") != existing || frag.Get("created") != "" {
			t.Fatalf("linking landing: %v", frag)
		}
		if h.me(t, existing)["email_verified"] != true {
			t.Fatal("linking did not mark the address verified")
		}
		if n := h.count(t, `SELECT COUNT(*) FROM workspace_identities WHERE workspace_id = ? AND subject = 'sub-owner'`, wsID); n != 1 {
			t.Fatalf("linked identities: %d", n)
		}
		if n := h.count(t, `SELECT COUNT(*) FROM events WHERE type = 'workspace.identity_linked' AND workspace_id = ?`, wsID); n != 1 {
			t.Fatalf("identity_linked events of the existing workspace: %d", n)
		}

		// Unverified addresses never link and never create.
		victim, victimID := h.Register(t, "victim@example.com")
		workspaces := h.count(t, `SELECT COUNT(*) FROM workspaces`)
		identities := h.count(t, `SELECT COUNT(*) FROM workspace_identities`)
		for _, u := range []map[string]any{
			{"sub": "attacker", "email": "victim@example.com", "email_verified": false},
			{"sub": "attacker", "email": "victim@example.com", "email_verified": "false"},
			{"sub": "attacker", "email": "victim@example.com"},
			{"sub": "stranger", "email": "stranger@example.com", "email_verified": false},
		} {
			h.f.SetUser(u)
			frag = h.signIn(t, "")
			if frag.Get("error") != "email_unverified" || frag.Get("api_key") != "" {
				t.Fatalf("unverified %v: landing %v", u, frag)
			}
		}
		// No address at all: nothing to create from.
		h.f.SetUser(map[string]any{"sub": "no-mail", "email_verified": true})
		if frag = h.signIn(t, ""); frag.Get("error") != "email_missing" {
			t.Fatalf("no address: %v", frag)
		}
		if got := h.count(t, `SELECT COUNT(*) FROM workspaces`); got != workspaces {
			t.Fatalf("workspaces %d → %d", workspaces, got)
		}
		if got := h.count(t, `SELECT COUNT(*) FROM workspace_identities`); got != identities {
			t.Fatalf("identities %d → %d", identities, got)
		}
		if h.me(t, victim)["email_verified"] != false || h.count(t, `SELECT COUNT(*) FROM workspace_identities WHERE workspace_id = ?`, victimID) != 0 {
			t.Fatal("the victim's workspace was touched")
		}

		// client=mobile lands in the app.
		h.f.SetUser(map[string]any{"sub": "sub-new", "email": "new.user@example.com", "email_verified": true})
		cookie, az := h.login(t, "client=mobile&next=%2Fhome")
		landing, frag := h.callback(t, h.authorize(t, az), cookie)
		if landing != mobile || frag.Get("api_key") != key || frag.Get("next") != "/home" {
			t.Fatalf("mobile landing %q %v", landing, frag)
		}
	})
}

func TestLoginRedirectAndCookie(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		h := newHarness(t, e)
		resp := h.get(t, h.URL+"/auth/idp/login?next=%2Fbots", "")
		if resp.StatusCode != http.StatusFound {
			t.Fatalf("status %d", resp.StatusCode)
		}
		var c *http.Cookie
		for _, x := range resp.Cookies() {
			if x.Name == "concierge_idp_state" {
				c = x
			}
		}
		raw := strings.Join(resp.Header.Values("Set-Cookie"), "\n")
		if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.MaxAge <= 0 || c.MaxAge > 600 || c.Path != "/auth/idp/" {
			t.Fatalf("state cookie: %s", raw)
		}
		if c.Secure {
			t.Fatalf("cookie Secure although the callback is http: %s", raw)
		}
		az, err := url.Parse(resp.Header.Get("Location"))
		if err != nil || !strings.HasPrefix(resp.Header.Get("Location"), h.f.URL+"/authorize?") {
			t.Fatalf("Location %q", resp.Header.Get("Location"))
		}
		q := az.Query()
		if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 || q.Get("nonce") == "" ||
			len(q.Get("state")) < 32 || q.Get("client_id") != h.f.ClientID || q.Get("redirect_uri") != redirectURL ||
			!strings.Contains(q.Get("scope"), "openid") || q.Get("response_type") != "code" {
			t.Fatalf("authorization request: %v", q)
		}
		// The cookie is sealed: neither the state nor the nonce shows.
		if strings.Contains(c.Value, q.Get("state")) || strings.Contains(c.Value, q.Get("nonce")) {
			t.Fatal("state cookie is readable")
		}
		if resp.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("Cache-Control %q", resp.Header.Get("Cache-Control"))
		}

		// The PKCE verifier is required: the provider refuses an exchange
		// of this code without the verifier only the server knows.
		cb := h.authorize(t, resp.Header.Get("Location"))
		cu, _ := url.Parse(cb)
		form := url.Values{"grant_type": {"authorization_code"}, "code": {cu.Query().Get("code")},
			"redirect_uri": {redirectURL}, "client_id": {h.f.ClientID}, "client_secret": {h.f.ClientSecret},
			"code_verifier": {"guessed-verifier-guessed-verifier-guessed-verifier"}}
		tr, err := http.PostForm(h.f.URL+"/token", form)
		if err != nil {
			t.Fatal(err)
		}
		tr.Body.Close()
		if tr.StatusCode != http.StatusBadRequest {
			t.Fatalf("exchange with a wrong verifier: %d", tr.StatusCode)
		}
	})
}

func TestSecureCookieOverHTTPS(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		h := newHarness(t, e, "CONCIERGE_IDP_REDIRECT_URL", "https://api.example.com/auth/idp/callback")
		resp := h.get(t, h.URL+"/auth/idp/login", "")
		found := false
		for _, c := range resp.Cookies() {
			if c.Name == "concierge_idp_state" {
				found = c.Secure && c.HttpOnly && c.SameSite == http.SameSiteLaxMode
			}
		}
		if resp.StatusCode != http.StatusFound || !found {
			t.Fatalf("status %d, cookies %v", resp.StatusCode, resp.Header.Values("Set-Cookie"))
		}
	})
}

func TestCallbackFailures(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		h := newHarness(t, e)
		h.f.SetUser(map[string]any{"sub": "sub-f", "email": "f@example.com", "email_verified": true})
		expect := func(t *testing.T, callbackURL, cookie, code string) url.Values {
			t.Helper()
			landing, frag := h.callback(t, callbackURL, cookie)
			if landing != frontend || frag.Get("error") != code || frag.Get("api_key") != "" {
				t.Fatalf("landing %q %v, want error=%s", landing, frag, code)
			}
			return frag
		}
		withQuery := func(cb string, edit func(url.Values)) string {
			u, _ := url.Parse(cb)
			q := u.Query()
			edit(q)
			u.RawQuery = q.Encode()
			return u.String()
		}

		t.Run("provider error", func(t *testing.T) {
			cookie, az := h.login(t, "")
			h.f.DenyNext("access_denied")
			frag := expect(t, h.authorize(t, az), cookie, "provider_error")
			if frag.Get("reason") != "access_denied" {
				t.Fatalf("reason: %v", frag)
			}
		})
		t.Run("missing cookie", func(t *testing.T) {
			_, az := h.login(t, "")
			expect(t, h.authorize(t, az), "", "missing_state")
		})
		t.Run("mismatched state", func(t *testing.T) {
			cookie, az := h.login(t, "")
			cb := withQuery(h.authorize(t, az), func(q url.Values) { q.Set("state", "attacker-state") })
			expect(t, cb, cookie, "state_mismatch")
		})
		t.Run("missing state", func(t *testing.T) {
			cookie, az := h.login(t, "")
			cb := withQuery(h.authorize(t, az), func(q url.Values) { q.Del("state") })
			expect(t, cb, cookie, "state_mismatch")
		})
		t.Run("another login's cookie", func(t *testing.T) {
			other, _ := h.login(t, "")
			_, az := h.login(t, "")
			expect(t, h.authorize(t, az), other, "state_mismatch")
		})
		t.Run("forged cookie", func(t *testing.T) {
			cookie, az := h.login(t, "")
			b := []byte(cookie)
			b[len(b)/2] ^= 1
			expect(t, h.authorize(t, az), string(b), "state_mismatch")
			expect(t, h.authorize(t, az), "v1."+base64.RawURLEncoding.EncodeToString([]byte(`{"s":"x"}`)), "state_mismatch")
		})
		t.Run("replayed state", func(t *testing.T) {
			cookie, az := h.login(t, "")
			cb := h.authorize(t, az)
			if _, frag := h.callback(t, cb, cookie); frag.Get("api_key") == "" {
				t.Fatalf("first use: %v", frag)
			}
			expect(t, cb, cookie, "state_replayed")
		})
		t.Run("expired state", func(t *testing.T) {
			cookie, az := h.login(t, "")
			cb := h.authorize(t, az)
			h.Clock.Advance(10*time.Minute + time.Second)
			expect(t, cb, cookie, "state_expired")
		})
		t.Run("no code", func(t *testing.T) {
			cookie, az := h.login(t, "")
			cb := withQuery(h.authorize(t, az), func(q url.Values) { q.Del("code") })
			expect(t, cb, cookie, "invalid_request")
		})
		t.Run("code refused by the provider", func(t *testing.T) {
			cookie, az := h.login(t, "")
			cb := withQuery(h.authorize(t, az), func(q url.Values) { q.Set("code", "not-a-code") })
			expect(t, cb, cookie, "exchange_failed")
		})
		for name, hook := range map[string]func(map[string]any){
			"wrong audience":  func(c map[string]any) { c["aud"] = "someone-else" },
			"mobile audience": func(c map[string]any) { c["aud"] = "concierge-ios" },
			"wrong issuer":    func(c map[string]any) { c["iss"] = "https://evil.example.com" },
			"expired token":   func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() },
			"wrong nonce":     func(c map[string]any) { c["nonce"] = "replayed-nonce" },
			"no nonce":        func(c map[string]any) { delete(c, "nonce") },
		} {
			t.Run(name, func(t *testing.T) {
				h.f.SetTokenHook(hook)
				defer h.f.SetTokenHook(nil)
				cookie, az := h.login(t, "")
				expect(t, h.authorize(t, az), cookie, "invalid_token")
			})
		}
		// Of all the above only "replayed state" signed in (once).
		if n := h.count(t, `SELECT COUNT(*) FROM workspaces`); n != 1 {
			t.Fatalf("workspaces: %d, want 1", n)
		}
		if n := h.count(t, `SELECT COUNT(*) FROM workspace_identities`); n != 1 {
			t.Fatalf("identities: %d, want 1", n)
		}
		// The error parameter is pattern-checked; code and state are bounded.
		for _, q := range []string{"error=%3Cscript%3E", "state=" + strings.Repeat("s", 513), "code=" + strings.Repeat("c", 513),
			"error=" + strings.Repeat("e", 65)} {
			if r := h.Do(t, "GET", "/auth/idp/callback?"+q, nil); r.Status != 422 {
				t.Fatalf("callback ?%.40s: %d %s", q, r.Status, r.Body)
			}
		}
	})
}

// nextCorpus are `next` values that must never become a redirect off the
// frontend's origin (G21).
var nextCorpus = []string{
	"//evil.com", "/\\evil.com", "/%2F%2Fevil.com", "/%2f%2fevil.com", "/%5Cevil.com", "/%252F%252Fevil.com",
	"https://evil.com", "http://evil.com/x", "javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,x",
	"\t//evil.com", "/\t/evil.com", "/x\r\nSet-Cookie: a=b", "/x\nLocation: https://evil.com", "/%0d%0aSet-Cookie:a=b",
	"/x%09y", " /bots", "evil.com", "./bots", "//", "/ /evil.com", "/\x00x", "/bots\\..\\x",
	"/" + strings.Repeat("a", 2048),
}

func TestNextCorpus(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		h := newHarness(t, e)
		for _, next := range nextCorpus {
			resp := h.get(t, h.URL+"/auth/idp/login?next="+url.QueryEscape(next), "")
			switch resp.StatusCode {
			case 422, 400:
			case 302:
				// Accepted only as a same-origin path; check where it lands.
				t.Errorf("next %q accepted", next)
			default:
				t.Errorf("next %q: status %d", next, resp.StatusCode)
			}
			for _, c := range resp.Cookies() {
				if c.Name == "concierge_idp_state" && c.MaxAge > 0 {
					t.Errorf("next %q: state cookie set", next)
				}
			}
		}
		if len(nextCorpus[len(nextCorpus)-1]) != 2049 {
			t.Fatal("corpus lost its 2,049-character value")
		}
		// Good paths pass through to the landing fragment unchanged.
		for _, next := range []string{"/bots", "/bots/12?tab=leads&x=%2F", "/a/b#frag", "/" + strings.Repeat("a", 2047)} {
			frag := h.signIn(t, "next="+url.QueryEscape(next))
			if frag.Get("next") != next || frag.Get("api_key") == "" {
				t.Fatalf("next %q: landing %v", next, frag)
			}
		}
	})
}

func TestIDTokenFlow(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		h := newHarness(t, e)
		post := func(body map[string]any) *testkit.Response {
			return h.Do(t, "POST", "/auth/idp/id-token", body)
		}
		h.f.SetUser(map[string]any{"sub": "m-1", "email": "mobile@example.com", "email_verified": true})
		r := post(map[string]any{"id_token": h.f.IDToken(func(c map[string]any) { c["aud"] = "concierge-ios"; c["nonce"] = "n-1" }), "nonce": "n-1"})
		if r.Status != 200 || r.JSON(t)["created"] != true {
			t.Fatalf("first sign-in: %d %s", r.Status, r.Body)
		}
		key := r.JSON(t)["api_key"].(string)
		if h.me(t, key)["email"] != "mobile@example.com" {
			t.Fatal("wrong workspace")
		}
		r = post(map[string]any{"id_token": h.f.IDToken(nil)}) // the web client id is accepted too
		if r.Status != 200 || r.JSON(t)["created"] != false || r.JSON(t)["api_key"] != key {
			t.Fatalf("second sign-in: %d %s", r.Status, r.Body)
		}

		// Layer 2 through the mobile flow.
		existing, _ := h.Register(t, "phone-owner@example.com")
		h.f.SetUser(map[string]any{"sub": "m-2", "email": "phone-owner@example.com", "email_verified": "true"})
		if r = post(map[string]any{"id_token": h.f.IDToken(nil)}); r.Status != 200 || r.JSON(t)["api_key"] != existing {
			t.Fatalf("linking: %d %s", r.Status, r.Body)
		}

		workspaces := h.count(t, `SELECT COUNT(*) FROM workspaces`)
		identities := h.count(t, `SELECT COUNT(*) FROM workspace_identities`)
		h.f.SetUser(map[string]any{"sub": "m-3", "email": "m3@example.com", "email_verified": true})
		bad := map[string]string{
			"wrong audience": h.f.IDToken(func(c map[string]any) { c["aud"] = "someone-else" }),
			"foreign authorized party": h.f.IDToken(func(c map[string]any) {
				c["aud"] = []string{"concierge-ios", "someone-else"}
				c["azp"] = "someone-else"
			}),
			"wrong issuer":       h.f.IDToken(func(c map[string]any) { c["iss"] = "https://accounts.evil.com" }),
			"expired":            h.f.IDToken(func(c map[string]any) { c["exp"] = h.Clock.Now().Add(-time.Minute).Unix() }),
			"no expiry":          h.f.IDToken(func(c map[string]any) { delete(c, "exp") }),
			"no subject":         h.f.IDToken(func(c map[string]any) { delete(c, "sub") }),
			"alg none":           h.f.IDTokenAlgNone(),
			"bad signature":      h.f.IDTokenBadSignature(),
			"unknown kid":        h.f.IDTokenUnknownKey(),
			"not a JWT":          "not.a.jwt",
			"unverified address": h.f.IDToken(func(c map[string]any) { c["email_verified"] = false }),
			"unverified existing": h.f.IDToken(func(c map[string]any) {
				c["email"] = "phone-owner@example.com"
				c["email_verified"] = false
			}),
		}
		for name, tok := range bad {
			if r := post(map[string]any{"id_token": tok}); r.Status != 401 {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
		if r := post(map[string]any{"id_token": h.f.IDToken(func(c map[string]any) { c["nonce"] = "a" }), "nonce": "b"}); r.Status != 401 {
			t.Errorf("nonce mismatch: %d %s", r.Status, r.Body)
		}
		if r := post(map[string]any{"id_token": ""}); r.Status != 422 {
			t.Errorf("empty token: %d", r.Status)
		}
		if got := h.count(t, `SELECT COUNT(*) FROM workspaces`); got != workspaces {
			t.Fatalf("workspaces %d → %d", workspaces, got)
		}
		if got := h.count(t, `SELECT COUNT(*) FROM workspace_identities`); got != identities {
			t.Fatalf("identities %d → %d", identities, got)
		}

		// Key rotation: a token by a new key verifies (the key set is
		// fetched again); once the old key leaves the set, its tokens fail.
		old := h.f.IDToken(nil)
		h.f.RotateKeys(true)
		if r := post(map[string]any{"id_token": h.f.IDToken(nil)}); r.Status != 200 {
			t.Fatalf("token by the rotated key: %d %s", r.Status, r.Body)
		}
		if r := post(map[string]any{"id_token": old}); r.Status != 401 {
			t.Fatalf("token by the retired key: %d %s", r.Status, r.Body)
		}
		// Discovery is read once; the key set only when a key id is new.
		if d, j, _ := h.f.Counts(); d != 1 || j > 8 {
			t.Fatalf("discovery fetched %d times, JWKS %d times", d, j)
		}
	})
}

func TestNotConfigured(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		a.Run(t,
			testkit.Scenario{Name: "status", Method: "GET", Path: "/auth/idp/status", Status: 200, Contains: []string{`"enabled":false`}},
			testkit.Scenario{Name: "login", Method: "GET", Path: "/auth/idp/login", Status: 404, Contains: []string{"not configured"}},
			testkit.Scenario{Name: "callback", Method: "GET", Path: "/auth/idp/callback?code=x&state=y", Status: 404, Contains: []string{"not configured"}},
			testkit.Scenario{Name: "id-token", Method: "POST", Path: "/auth/idp/id-token", Body: map[string]any{"id_token": "x.y.z"},
				Status: 404, Contains: []string{"not configured"}},
		)
	})
}

func TestStatusAndUnreachableProvider(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e, testkit.WithEnv(
			"CONCIERGE_IDP_ISSUER", "http://127.0.0.1:1", "CONCIERGE_IDP_CLIENT_ID", "c", "CONCIERGE_IDP_CLIENT_SECRET", "s",
			"CONCIERGE_IDP_REDIRECT_URL", redirectURL, "CONCIERGE_FRONTEND_URL", frontend))
		a.Run(t,
			testkit.Scenario{Name: "status", Method: "GET", Path: "/auth/idp/status", Status: 200, Contains: []string{`"enabled":true`}},
			testkit.Scenario{Name: "login while the provider is down", Method: "GET", Path: "/auth/idp/login", Status: 503},
			testkit.Scenario{Name: "id-token while the provider is down", Method: "POST", Path: "/auth/idp/id-token",
				Body: map[string]any{"id_token": "x.y.z"}, Status: 503},
			testkit.Scenario{Name: "mobile client without a mobile URL", Method: "GET", Path: "/auth/idp/login?client=mobile", Status: 422},
		)
	})
}

func TestConcurrentFirstSignIns(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		h := newHarness(t, e)
		h.f.SetUser(map[string]any{"sub": "racer", "email": "racer@example.com", "email_verified": true})
		tok := h.f.IDToken(nil)
		const n = 8
		keys := make(chan string, n)
		for range n {
			go func() {
				r := h.Do(t, "POST", "/auth/idp/id-token", map[string]any{"id_token": tok})
				if r.Status != 200 {
					t.Errorf("concurrent sign-in: %d %s", r.Status, r.Body)
					keys <- ""
					return
				}
				keys <- r.JSON(t)["api_key"].(string)
			}()
		}
		first := <-keys
		for range n - 1 {
			if k := <-keys; k != first {
				t.Errorf("different keys: %q and %q", first, k)
			}
		}
		if c := h.count(t, `SELECT COUNT(*) FROM workspaces`); c != 1 {
			t.Fatalf("workspaces: %d", c)
		}
		if c := h.count(t, `SELECT COUNT(*) FROM events`); c != 0 {
			t.Fatalf("%d events recorded for a workspace no endpoint listens to", c)
		}
	})
}

func TestRateLimited(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		h := newHarness(t, e, "CONCIERGE_RATE_LIMIT_AUTH", "2/m")
		for i, want := range []int{200, 200, 429} {
			r := h.Do(t, "POST", "/auth/idp/id-token", map[string]any{"id_token": h.f.IDToken(nil)})
			if r.Status != want {
				t.Fatalf("request %d: %d %s", i+1, r.Status, r.Body)
			}
			if want == 429 && r.Header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		}
		if resp := h.get(t, h.URL+"/auth/idp/login", ""); resp.StatusCode != 200 && resp.StatusCode != 302 {
			t.Fatalf("login has its own bucket: %d", resp.StatusCode)
		}
	})
}
