package httpapi

import (
	"context"
	"net/http"

	"concierge/internal/idp"
)

type idpStatusOutput struct {
	Body struct {
		Enabled bool `json:"enabled" doc:"Whether the sign-in button of the identity provider should render."`
	}
}

type idpLoginInput struct {
	Next string `query:"next" maxLength:"2048" doc:"Relative path on the frontend to land on after success, such as /bots. Anything else (another origin, //host, a backslash, control characters) is refused with 422."`
	Mode string `query:"mode" enum:"login,register" default:"login" doc:"Which button started the flow (telemetry only)."`
	// PromoCode and ReferralCode are recorded when the flow creates a workspace.
	PromoCode    string `query:"promo_code" maxLength:"64" doc:"Recorded when the sign-in creates a workspace."`
	ReferralCode string `query:"referral_code" maxLength:"64" doc:"Recorded when the sign-in creates a workspace."`
	Client       string `query:"client" enum:"web,mobile" default:"web" doc:"mobile lands in the mobile app's URL instead of the web frontend."`
}

// redirectOutput is a 302 with the state cookie set or cleared.
type redirectOutput struct {
	Status         int
	Location       string      `header:"Location" doc:"Where to go next."`
	SetCookie      http.Cookie `header:"Set-Cookie" doc:"The sealed state cookie (HttpOnly, SameSite=Lax, 10 minutes, single use); cleared by the callback."`
	CacheControl   string      `header:"Cache-Control"`
	ReferrerPolicy string      `header:"Referrer-Policy"`
}

type idpCallbackInput struct {
	Code        string `query:"code" maxLength:"512" doc:"Authorization code from the provider."`
	State       string `query:"state" maxLength:"512" doc:"Must equal the state sealed in the state cookie."`
	Error       string `query:"error" maxLength:"64" pattern:"^[A-Za-z0-9_.\\-]*$" doc:"Error code from the provider (the user declined, ...)."`
	StateCookie string `cookie:"concierge_idp_state" doc:"The state cookie set by GET /auth/idp/login."`
}

type idpTokenInput struct {
	Body struct {
		IDToken string `json:"id_token" minLength:"1" maxLength:"16384" doc:"The ID token (JWT) from the app's native sign-in with the provider."`
		Nonce   string `json:"nonce,omitempty" maxLength:"512" doc:"The nonce the app sent to the provider; checked against the token's when given."`
	}
}

type idpTokenOutput struct {
	Body struct {
		APIKey  string `json:"api_key" doc:"The workspace API key (send as X-API-Key)."`
		Created bool   `json:"created" doc:"True when this sign-in created the workspace."`
	}
}

func (s *Server) idpCookie(c idp.Cookie) http.Cookie {
	return http.Cookie{Name: c.Name, Value: c.Value, Path: c.Path, MaxAge: c.MaxAge, Secure: c.Secure,
		HttpOnly: true, SameSite: http.SameSiteLaxMode}
}

func (s *Server) idpRoutes() {
	tags := []string{"Account"}
	const landing = "The landing URL carries, in its fragment, either api_key (with created=true for a new workspace " +
		"and next when one was given) or error with one of: provider_error (and reason), missing_state, state_mismatch, " +
		"state_expired, state_replayed, invalid_request, exchange_failed, invalid_token, email_unverified, email_missing, " +
		"temporarily_unavailable, server_error. "
	register(s, route{id: "idp-status", method: http.MethodGet, path: "/auth/idp/status", tags: tags, limit: limitAuth,
		summary: "Whether sign-in through the identity provider is available"},
		func(ctx context.Context, _ *noInput) (*idpStatusOutput, error) {
			out := &idpStatusOutput{}
			out.Body.Enabled = s.idp.Enabled()
			return out, nil
		})
	register(s, route{id: "idp-login", method: http.MethodGet, path: "/auth/idp/login", tags: tags, limit: limitAuth,
		summary: "Start sign-in through the identity provider", status: http.StatusFound,
		desc: "Sets a sealed state cookie and redirects (302) to the provider's consent screen (authorization code " +
			"flow with PKCE S256 and a nonce). 404 when provider sign-in is not configured; 503 when the provider " +
			"cannot be reached.",
		errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity, http.StatusServiceUnavailable}},
		func(ctx context.Context, in *idpLoginInput) (*redirectOutput, error) {
			loc, c, err := s.idp.Login(ctx, idp.LoginRequest{Next: in.Next, Mode: in.Mode, PromoCode: in.PromoCode,
				ReferralCode: in.ReferralCode, Client: in.Client})
			if err != nil {
				return nil, err
			}
			return &redirectOutput{Status: http.StatusFound, Location: loc, SetCookie: s.idpCookie(c),
				CacheControl: "no-store", ReferrerPolicy: "no-referrer"}, nil
		})
	register(s, route{id: "idp-callback", method: http.MethodGet, path: "/auth/idp/callback", tags: tags, limit: limitAuth,
		summary: "The identity provider's redirect back", status: http.StatusFound,
		desc: "Checks the state cookie against state, exchanges the code (with the PKCE verifier), verifies the ID token " +
			"(signature, issuer, audience, expiry, nonce) and resolves the workspace: an identity already linked; else " +
			"the workspace with the same e-mail address when the provider has verified it (the identity is linked and " +
			"the address marked verified); else a new workspace with the trial, never for an unverified address. " +
			"Always answers 302 to the frontend (or, for client=mobile, to the app's URL) and clears the cookie. " +
			landing + "404 when provider sign-in is not configured.",
		errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *idpCallbackInput) (*redirectOutput, error) {
			loc, err := s.idp.Callback(ctx, idp.CallbackRequest{Code: in.Code, State: in.State, Error: in.Error, Cookie: in.StateCookie})
			if err != nil {
				return nil, err
			}
			return &redirectOutput{Status: http.StatusFound, Location: loc, SetCookie: s.idpCookie(s.idp.ClearCookie()),
				CacheControl: "no-store", ReferrerPolicy: "no-referrer"}, nil
		})
	register(s, route{id: "idp-id-token", method: http.MethodPost, path: "/auth/idp/id-token", tags: tags, limit: limitAuth,
		summary: "Sign in with an ID token from the mobile app",
		desc: "Verifies the ID token (signature by the provider's keys, issuer, audience among the configured client " +
			"ids, expiry, nonce when given) and resolves the workspace as the web callback does. 401 for any token " +
			"that fails verification or whose unverified address would have to be trusted; 404 when provider sign-in " +
			"is not configured.",
		errors: []int{http.StatusUnauthorized, http.StatusNotFound, http.StatusUnprocessableEntity, http.StatusServiceUnavailable}},
		func(ctx context.Context, in *idpTokenInput) (*idpTokenOutput, error) {
			r, err := s.idp.SignInWithIDToken(ctx, in.Body.IDToken, in.Body.Nonce)
			if err != nil {
				return nil, err
			}
			out := &idpTokenOutput{}
			out.Body.APIKey, out.Body.Created = r.APIKey, r.Created
			return out, nil
		})
}
