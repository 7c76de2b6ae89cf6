// Package idp is sign-in through an external OpenID Connect provider: the
// web flow (authorization code with PKCE S256, a nonce and a sealed state
// cookie), the mobile flow (an ID token obtained by the app's native
// sign-in), ID token verification against the provider's rotating keys,
// and the resolution of a verified identity to a workspace in three
// layers: an identity already linked; else the workspace with the same
// e-mail address when the provider says it is verified (linked and marked
// verified); else a new workspace, never for an unverified address.
package idp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/jmoiron/sqlx"
	"golang.org/x/oauth2"

	"concierge/internal/account"
	"concierge/internal/apperr"
	"concierge/internal/clock"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// Config is the provider registration.
type Config struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	RedirectURL  string
	// Audiences are the client ids whose ID tokens the mobile endpoint
	// accepts (ClientID is always one).
	Audiences         []string
	FrontendURL       string
	MobileRedirectURL string
}

// Deps are the service's collaborators.
type Deps struct {
	DB       *store.DB
	Keys     *secret.Keyring
	Accounts *account.Service
	Clock    clock.Clock
	Logger   *slog.Logger
	// HTTPClient reaches the provider (discovery, keys, token endpoint);
	// nil means NewHTTPClient().
	HTTPClient *http.Client
}

// Service runs provider sign-in. A nil or unconfigured Service answers
// Enabled() == false.
type Service struct {
	cfg      Config
	db       *store.DB
	keys     *secret.Keyring
	accounts *account.Service
	clock    clock.Clock
	log      *slog.Logger
	client   *http.Client

	mu       sync.Mutex
	provider *oidc.Provider
}

// New returns the service; with an empty ClientID it is disabled.
func New(d Deps, cfg Config) *Service {
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.HTTPClient == nil {
		d.HTTPClient = NewHTTPClient()
	}
	if !slices.Contains(cfg.Audiences, cfg.ClientID) {
		cfg.Audiences = append([]string{cfg.ClientID}, cfg.Audiences...)
	}
	return &Service{cfg: cfg, db: d.DB, keys: d.Keys, accounts: d.Accounts, clock: d.Clock,
		log: d.Logger.With("component", "idp"), client: d.HTTPClient}
}

// NewHTTPClient is the client for the provider. The issuer is configured by
// the operator, never supplied by a customer, so this is a plain client
// with time and redirect limits rather than the SSRF-guarded one (a
// self-hosted Keycloak on a private network is a legitimate issuer).
func NewHTTPClient() *http.Client {
	return &http.Client{
		Timeout: 15 * time.Second,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			TLSHandshakeTimeout:   5 * time.Second,
			ResponseHeaderTimeout: 10 * time.Second,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       90 * time.Second,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errors.New("idp: too many redirects")
			}
			return nil
		},
	}
}

// Enabled reports whether sign-in through the provider is configured.
func (s *Service) Enabled() bool { return s != nil && s.cfg.ClientID != "" }

// MobileEnabled reports whether the web flow may land in the mobile app.
func (s *Service) MobileEnabled() bool { return s.Enabled() && s.cfg.MobileRedirectURL != "" }

// ErrDisabled is the answer of every operation when sign-in is not configured.
var ErrDisabled = apperr.NotFound("sign-in through an identity provider is not configured on this server")

func (s *Service) providerCtx(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, s.client)
}

// getProvider reads discovery once; a failure is retried on the next call,
// so the server starts even while the provider is unreachable.
func (s *Service) getProvider(ctx context.Context) (*oidc.Provider, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provider != nil {
		return s.provider, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	p, err := oidc.NewProvider(s.providerCtx(ctx), s.cfg.Issuer)
	if err != nil {
		s.log.WarnContext(ctx, "identity provider discovery failed", "issuer", s.cfg.Issuer, "err", err)
		return nil, apperr.Unavailable("the identity provider is unreachable; try again shortly", 10*time.Second, err)
	}
	s.provider = p
	return p, nil
}

func (s *Service) oauth(p *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     s.cfg.ClientID,
		ClientSecret: s.cfg.ClientSecret,
		Endpoint:     p.Endpoint(),
		RedirectURL:  s.cfg.RedirectURL,
		Scopes:       []string{oidc.ScopeOpenID, "email", "profile"},
	}
}

// LoginRequest is GET /auth/idp/login's query.
type LoginRequest struct {
	Next, Mode, PromoCode, ReferralCode, Client string
}

// Login starts the web flow: it returns the provider's authorization URL
// and the state cookie to set.
func (s *Service) Login(ctx context.Context, in LoginRequest) (string, Cookie, error) {
	if !s.Enabled() {
		return "", Cookie{}, ErrDisabled
	}
	if err := CheckNext(in.Next); err != nil {
		return "", Cookie{}, apperr.Invalid("query.next", err.Error(), "value_error")
	}
	if in.Client == "" {
		in.Client = "web"
	}
	if in.Mode == "" {
		in.Mode = "login"
	}
	if in.Client == "mobile" && !s.MobileEnabled() {
		return "", Cookie{}, apperr.Invalid("query.client", "this server has no mobile app redirect configured", "value_error")
	}
	p, err := s.getProvider(ctx)
	if err != nil {
		return "", Cookie{}, err
	}
	st := flowState{
		State: secret.Token("", 32), Nonce: secret.Token("", 32), Verifier: oauth2.GenerateVerifier(),
		Next: in.Next, Client: in.Client, Mode: in.Mode, Promo: in.PromoCode, Referral: in.ReferralCode,
		Expires: s.clock.Now().Add(StateTTL).Unix(),
	}
	sealed, err := sealState(s.keys, st)
	if err != nil {
		return "", Cookie{}, err
	}
	u := s.oauth(p).AuthCodeURL(st.State, oauth2.S256ChallengeOption(st.Verifier), oidc.Nonce(st.Nonce))
	return u, s.cookie(sealed, int(StateTTL/time.Second)), nil
}

func (s *Service) cookie(value string, maxAge int) Cookie {
	return Cookie{Name: CookieName, Value: value, Path: CookiePath, MaxAge: maxAge, Secure: s.secureCookie()}
}

// ClearCookie deletes the state cookie (every callback answer carries it:
// the cookie is single use).
func (s *Service) ClearCookie() Cookie { return s.cookie("", -1) }

// secureCookie: the cookie comes back to the callback, so it is Secure
// exactly when the registered callback URL is https.
func (s *Service) secureCookie() bool {
	return strings.HasPrefix(strings.ToLower(s.cfg.RedirectURL), "https://")
}

// Failure codes put in the landing URL's fragment as error=<code>.
const (
	FailProvider        = "provider_error"
	FailMissingState    = "missing_state"
	FailStateMismatch   = "state_mismatch"
	FailStateExpired    = "state_expired"
	FailStateReplayed   = "state_replayed"
	FailInvalidRequest  = "invalid_request"
	FailExchange        = "exchange_failed"
	FailInvalidToken    = "invalid_token"
	FailEmailUnverified = "email_unverified"
	FailEmailMissing    = "email_missing"
	FailUnavailable     = "temporarily_unavailable"
	FailServer          = "server_error"
)

// CallbackRequest is GET /auth/idp/callback's query and the state cookie.
type CallbackRequest struct {
	Code, State, Error, Cookie string
}

// Callback finishes the web flow. It always answers a URL to redirect to:
// the frontend (or the app) with api_key, or with error, in the fragment.
// It never returns an error: a failure is a landing with an error code.
func (s *Service) Callback(ctx context.Context, in CallbackRequest) (string, error) {
	if !s.Enabled() {
		return "", ErrDisabled
	}
	fail := func(target, code string, extra ...string) (string, error) {
		v := url.Values{"error": {code}}
		for i := 0; i+1 < len(extra); i += 2 {
			v.Set(extra[i], extra[i+1])
		}
		return target + "#" + v.Encode(), nil
	}
	web := s.cfg.FrontendURL
	if in.Cookie == "" {
		return fail(web, FailMissingState)
	}
	st, err := openState(s.keys, in.Cookie)
	if err != nil {
		return fail(web, FailStateMismatch)
	}
	target := web
	if st.Client == "mobile" && s.cfg.MobileRedirectURL != "" {
		target = s.cfg.MobileRedirectURL
	}
	now := s.clock.Now()
	if now.Unix() >= st.Expires {
		return fail(target, FailStateExpired)
	}
	if in.State == "" || !secret.Equal(in.State, st.State) {
		return fail(target, FailStateMismatch)
	}
	fresh, err := s.consumeState(ctx, st, now)
	if err != nil {
		s.log.ErrorContext(ctx, "idp: consume state", "err", err)
		return fail(target, FailServer)
	}
	if !fresh {
		return fail(target, FailStateReplayed)
	}
	if in.Error != "" {
		return fail(target, FailProvider, "reason", in.Error)
	}
	if in.Code == "" {
		return fail(target, FailInvalidRequest)
	}
	p, err := s.getProvider(ctx)
	if err != nil {
		return fail(target, FailUnavailable)
	}
	tok, err := s.oauth(p).Exchange(s.providerCtx(ctx), in.Code, oauth2.VerifierOption(st.Verifier))
	if err != nil {
		s.log.WarnContext(ctx, "idp: code exchange failed", "err", err)
		return fail(target, FailExchange)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return fail(target, FailInvalidToken)
	}
	id, err := s.verify(ctx, p, raw, []string{s.cfg.ClientID})
	if err != nil {
		s.log.WarnContext(ctx, "idp: ID token refused", "err", err)
		return fail(target, FailInvalidToken)
	}
	if !secret.Equal(id.nonce, st.Nonce) {
		s.log.WarnContext(ctx, "idp: ID token nonce mismatch")
		return fail(target, FailInvalidToken)
	}
	res, err := s.resolve(ctx, id, signup{Promo: st.Promo, Referral: st.Referral})
	if err != nil {
		switch {
		case errors.Is(err, errUnverified):
			return fail(target, FailEmailUnverified)
		case errors.Is(err, errNoEmail):
			return fail(target, FailEmailMissing)
		}
		s.log.ErrorContext(ctx, "idp: resolve workspace", "err", err)
		return fail(target, FailServer)
	}
	s.log.InfoContext(ctx, "idp sign-in", "flow", "web", "client", st.Client, "mode", st.Mode,
		"workspace_id", res.WorkspaceID, "created", res.Created, "linked", res.Linked)
	v := url.Values{"api_key": {res.APIKey}}
	if res.Created {
		v.Set("created", "true")
	}
	if st.Next != "" && CheckNext(st.Next) == nil {
		v.Set("next", st.Next)
	}
	return target + "#" + v.Encode(), nil
}

// consumeState records the state as used; false when it was already.
func (s *Service) consumeState(ctx context.Context, st flowState, now time.Time) (bool, error) {
	sum := sha256.Sum256([]byte(st.State))
	var n int64
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := store.Exec(ctx, tx, `DELETE FROM idp_used_states WHERE expires_at < ?`, now); err != nil {
			return err
		}
		var err error
		n, err = store.Exec(ctx, tx, `INSERT INTO idp_used_states (state_hash, expires_at) VALUES (?, ?)
			ON CONFLICT (state_hash) DO NOTHING`, hex.EncodeToString(sum[:]), time.Unix(st.Expires, 0).Add(time.Minute).UTC())
		return err
	})
	return n == 1, err
}

// IDTokenResult is the answer of the mobile flow.
type IDTokenResult struct {
	APIKey      string
	WorkspaceID int64
	Created     bool
}

// SignInWithIDToken is the mobile flow: the app's native sign-in obtained
// rawToken; it must be signed by the provider and addressed to one of the
// accepted audiences. nonce, when given, must equal the token's.
func (s *Service) SignInWithIDToken(ctx context.Context, rawToken, nonce string) (*IDTokenResult, error) {
	if !s.Enabled() {
		return nil, ErrDisabled
	}
	p, err := s.getProvider(ctx)
	if err != nil {
		return nil, err
	}
	refused := apperr.Unauthorized("the identity token is not valid")
	id, err := s.verify(ctx, p, rawToken, s.cfg.Audiences)
	if err != nil {
		s.log.WarnContext(ctx, "idp: ID token refused", "err", err)
		return nil, refused
	}
	if nonce != "" && !secret.Equal(nonce, id.nonce) {
		return nil, refused
	}
	res, err := s.resolve(ctx, id, signup{})
	if err != nil {
		switch {
		case errors.Is(err, errUnverified):
			return nil, apperr.Unauthorized("the identity provider has not verified this e-mail address")
		case errors.Is(err, errNoEmail):
			return nil, apperr.Unauthorized("the identity token carries no usable e-mail address")
		}
		return nil, err
	}
	s.log.InfoContext(ctx, "idp sign-in", "flow", "id_token", "workspace_id", res.WorkspaceID,
		"created", res.Created, "linked", res.Linked)
	return &IDTokenResult{APIKey: res.APIKey, WorkspaceID: res.WorkspaceID, Created: res.Created}, nil
}

// identity is a verified ID token's subject and profile.
type identity struct {
	issuer, subject string
	email           string
	emailVerified   bool
	name            string
	nonce           string
}

// verify checks the token's signature against the provider's keys (a key id
// not in the cached set makes go-oidc fetch the set again, so rotation
// works), its issuer, expiry and algorithm, and that its audience holds one
// of audiences (with several audiences, the authorized party must be one
// of ours too).
func (s *Service) verify(ctx context.Context, p *oidc.Provider, raw string, audiences []string) (*identity, error) {
	if len(raw) > 16<<10 {
		return nil, errors.New("token too large")
	}
	// Verifier shares the provider's cached key set (fetched with the
	// provider's client); the audience is checked below.
	v := p.Verifier(&oidc.Config{SkipClientIDCheck: true, Now: s.clock.Now})
	tok, err := v.Verify(s.providerCtx(ctx), raw)
	if err != nil {
		return nil, err
	}
	ok := false
	for _, a := range tok.Audience {
		if slices.Contains(audiences, a) {
			ok = true
		}
	}
	if !ok {
		return nil, fmt.Errorf("audience %q is not accepted", tok.Audience)
	}
	var c struct {
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"`
		Name          string `json:"name"`
		AZP           string `json:"azp"`
	}
	if err := tok.Claims(&c); err != nil {
		return nil, err
	}
	if len(tok.Audience) > 1 && !slices.Contains(audiences, c.AZP) {
		return nil, fmt.Errorf("authorized party %q is not accepted", c.AZP)
	}
	if tok.Subject == "" || len(tok.Subject) > 255 {
		return nil, errors.New("token has no usable subject")
	}
	verified := false
	switch ev := c.EmailVerified.(type) {
	case bool:
		verified = ev
	case string: // some providers send "true"
		verified = ev == "true"
	}
	name := c.Name
	if len([]rune(name)) > 100 {
		name = string([]rune(name)[:100])
	}
	return &identity{issuer: tok.Issuer, subject: tok.Subject, email: c.Email, emailVerified: verified,
		name: strings.TrimSpace(name), nonce: tok.Nonce}, nil
}
