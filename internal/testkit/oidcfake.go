package testkit

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// FakeOIDC is an OpenID Connect provider speaking the real wire protocol:
// discovery, a JWKS with rotating RS256 keys, an authorization endpoint
// that approves at once as the scripted user and redirects back with code
// and state, and a token endpoint that checks the client secret, the
// redirect URI and the PKCE verifier (S256) before answering an ID token
// signed with go-jose.
type FakeOIDC struct {
	URL          string // the issuer
	ClientID     string
	ClientSecret string
	// Now is the provider's clock (iat/exp); the app's fake clock in tests.
	Now func() time.Time

	srv *httptest.Server
	t   testing.TB

	mu    sync.Mutex
	keys  []fakeKey // published; the last one signs
	codes map[string]*fakeCode
	user  map[string]any
	// deny, when set, makes the next authorization answer error=deny.
	deny string
	// hook edits the claims of ID tokens issued by the token endpoint.
	hook func(map[string]any)
	// Counters of what the app asked for (see Counts).
	discoveries, jwksFetches, tokenCalls int
}

// Counts reports how often discovery, the JWKS and the token endpoint
// were requested.
func (f *FakeOIDC) Counts() (discoveries, jwksFetches, tokenCalls int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.discoveries, f.jwksFetches, f.tokenCalls
}

type fakeKey struct {
	kid  string
	priv *rsa.PrivateKey
}

type fakeCode struct {
	clientID, redirectURI, challenge, nonce string
	claims                                  map[string]any
	used                                    bool
}

// NewFakeOIDC starts the provider on loopback with one signing key, the
// client (client_id, client_secret) registered, and a default user with a
// verified address.
func NewFakeOIDC(t testing.TB) *FakeOIDC {
	t.Helper()
	f := &FakeOIDC{ClientID: "concierge-web", ClientSecret: "fake-client-secret", Now: time.Now, t: t,
		codes: map[string]*fakeCode{},
		user:  map[string]any{"sub": "user-1", "email": "user1@example.com", "email_verified": true, "name": "User One"}}
	f.RotateKeys(false)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", f.discovery)
	mux.HandleFunc("GET /jwks", f.jwks)
	mux.HandleFunc("GET /authorize", f.authorize)
	mux.HandleFunc("POST /token", f.token)
	f.srv = httptest.NewServer(mux)
	f.URL = f.srv.URL
	t.Cleanup(f.srv.Close)
	return f
}

// SetUser scripts who signs in next (claims: sub, email, email_verified,
// name, ...; they replace the previous user's).
func (f *FakeOIDC) SetUser(claims map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.user = maps.Clone(claims)
}

// DenyNext makes the next authorization redirect back with error=code.
func (f *FakeOIDC) DenyNext(code string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deny = code
}

// SetTokenHook edits the claims of every ID token the token endpoint
// issues (nil: none), for wrong aud/iss/exp scripts on the web flow.
func (f *FakeOIDC) SetTokenHook(h func(map[string]any)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hook = h
}

// RotateKeys adds a fresh signing key; with dropOld the previous keys leave
// the JWKS (tokens they signed stop verifying).
func (f *FakeOIDC) RotateKeys(dropOld bool) {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		f.t.Fatalf("fake oidc: key: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	k := fakeKey{kid: fmt.Sprintf("k%d-%d", len(f.keys)+1, time.Now().UnixNano()), priv: priv}
	if dropOld {
		f.keys = nil
	}
	f.keys = append(f.keys, k)
}

func (f *FakeOIDC) discovery(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.discoveries++
	f.mu.Unlock()
	writeJSONResp(w, http.StatusOK, map[string]any{
		"issuer":                                f.URL,
		"authorization_endpoint":                f.URL + "/authorize",
		"token_endpoint":                        f.URL + "/token",
		"jwks_uri":                              f.URL + "/jwks",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"scopes_supported":                      []string{"openid", "email", "profile"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
	})
}

func (f *FakeOIDC) jwks(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.jwksFetches++
	set := jose.JSONWebKeySet{}
	for _, k := range f.keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.priv.PublicKey, KeyID: k.kid, Algorithm: "RS256", Use: "sig"})
	}
	f.mu.Unlock()
	writeJSONResp(w, http.StatusOK, set)
}

func (f *FakeOIDC) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect := q.Get("redirect_uri")
	u, err := url.Parse(redirect)
	if err != nil || redirect == "" || q.Get("client_id") != f.ClientID {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	back := url.Values{"state": {q.Get("state")}}
	f.mu.Lock()
	deny := f.deny
	f.deny = ""
	switch {
	case deny != "":
		back.Set("error", deny)
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		back.Set("error", "invalid_request")
	default:
		code := randToken()
		f.codes[code] = &fakeCode{clientID: q.Get("client_id"), redirectURI: redirect, challenge: q.Get("code_challenge"),
			nonce: q.Get("nonce"), claims: maps.Clone(f.user)}
		back.Set("code", code)
	}
	f.mu.Unlock()
	u.RawQuery = back.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (f *FakeOIDC) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokenCalls++
	id, sec, ok := r.BasicAuth()
	if ok {
		id, _ = url.QueryUnescape(id)
		sec, _ = url.QueryUnescape(sec)
	} else {
		id, sec = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != f.ClientID || subtle.ConstantTimeCompare([]byte(sec), []byte(f.ClientSecret)) != 1 {
		writeJSONResp(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	c := f.codes[r.PostForm.Get("code")]
	if r.PostForm.Get("grant_type") != "authorization_code" || c == nil || c.used || c.clientID != id ||
		c.redirectURI != r.PostForm.Get("redirect_uri") {
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
		return
	}
	c.used = true
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if r.PostForm.Get("code_verifier") == "" || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
		return
	}
	claims := f.baseClaims(c.claims)
	if c.nonce != "" {
		claims["nonce"] = c.nonce
	}
	if f.hook != nil {
		f.hook(claims)
	}
	idt := f.signLocked(claims, f.keys[len(f.keys)-1])
	w.Header().Set("Cache-Control", "no-store")
	writeJSONResp(w, http.StatusOK, map[string]any{"access_token": randToken(), "token_type": "Bearer",
		"expires_in": 3600, "id_token": idt})
}

// baseClaims are a valid token's claims for user (iss, aud, iat, exp).
func (f *FakeOIDC) baseClaims(user map[string]any) map[string]any {
	now := f.Now()
	c := map[string]any{"iss": f.URL, "aud": f.ClientID, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	maps.Copy(c, user)
	return c
}

// IDToken signs a valid ID token for the scripted user with the current
// key, after edit changes its claims (nil: none).
func (f *FakeOIDC) IDToken(edit func(map[string]any)) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.baseClaims(f.user)
	if edit != nil {
		edit(c)
	}
	return f.signLocked(c, f.keys[len(f.keys)-1])
}

// IDTokenUnknownKey is IDToken signed by a key the JWKS never publishes.
func (f *FakeOIDC) IDTokenUnknownKey() string {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		f.t.Fatalf("fake oidc: key: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.signLocked(f.baseClaims(f.user), fakeKey{kid: "unknown-kid", priv: priv})
}

// IDTokenAlgNone is an unsigned token (alg "none") with valid claims.
func (f *FakeOIDC) IDTokenAlgNone() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	head, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT", "kid": f.keys[len(f.keys)-1].kid})
	body, _ := json.Marshal(f.baseClaims(f.user))
	return base64.RawURLEncoding.EncodeToString(head) + "." + base64.RawURLEncoding.EncodeToString(body) + "."
}

// IDTokenBadSignature is a valid token whose signature is corrupted.
func (f *FakeOIDC) IDTokenBadSignature() string {
	tok := []byte(f.IDToken(nil))
	// Change a character in the middle of the signature segment.
	i := len(tok) - 10
	if tok[i] == 'A' {
		tok[i] = 'B'
	} else {
		tok[i] = 'A'
	}
	return string(tok)
}

func (f *FakeOIDC) signLocked(claims map[string]any, k fakeKey) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		f.t.Fatalf("fake oidc: signer: %v", err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		f.t.Fatalf("fake oidc: claims: %v", err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		f.t.Fatalf("fake oidc: sign: %v", err)
	}
	s, err := obj.CompactSerialize()
	if err != nil {
		f.t.Fatalf("fake oidc: serialize: %v", err)
	}
	return s
}

func randToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func writeJSONResp(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
