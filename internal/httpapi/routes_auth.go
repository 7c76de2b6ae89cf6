package httpapi

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"concierge/internal/account"
)

// WorkspaceView is the public view of a workspace.
type WorkspaceView struct {
	ID                  int64   `json:"id" doc:"Workspace id (the value of X-Workspace-Id for linked operators)."`
	Email               string  `json:"email"`
	Name                string  `json:"name"`
	JoinedAt            string  `json:"joined_at" doc:"When the workspace signed up (RFC 3339, UTC)."`
	EmailVerified       bool    `json:"email_verified"`
	OnboardingCompleted bool    `json:"onboarding_completed"`
	BillingCountry      *string `json:"billing_country" doc:"ISO 3166-1 alpha-2 code, or null."`
}

func workspaceView(w *account.Workspace) WorkspaceView {
	return WorkspaceView{
		ID:                  w.ID,
		Email:               w.Email,
		Name:                w.Name,
		JoinedAt:            timestamp(w.CreatedAt),
		EmailVerified:       w.EmailVerifiedAt != nil,
		OnboardingCompleted: w.OnboardingCompletedAt != nil,
		BillingCountry:      w.BillingCountry,
	}
}

// timestamp formats t as RFC 3339 in UTC, the format of every timestamp.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

type emailField struct {
	Email string `json:"email" format:"email" maxLength:"254" doc:"E-mail address of the account."`
}

type registerInput struct {
	Body struct {
		Email          string `json:"email" format:"email" maxLength:"254"`
		Password       string `json:"password" minLength:"8" maxLength:"256" doc:"At least 8 characters."`
		Name           string `json:"name,omitempty" maxLength:"100" doc:"Display name of the workspace."`
		BillingCountry string `json:"billing_country,omitempty" pattern:"^[A-Za-z]{2}$" doc:"ISO 3166-1 alpha-2 code; see GET /auth/detect-country."`
	}
}

type registerOutput struct {
	Body struct {
		APIKey        string        `json:"api_key" doc:"The workspace API key, for immediate use as X-API-Key."`
		Workspace     WorkspaceView `json:"workspace"`
		EmailVerified bool          `json:"email_verified" doc:"False until POST /auth/verify-email succeeds with the 6-digit code sent by e-mail."`
	}
}

type verifyEmailInput struct {
	Body struct {
		Email string `json:"email" format:"email" maxLength:"254"`
		Code  string `json:"code" pattern:"^[0-9]{6}$" doc:"The 6-digit code from the e-mail."`
	}
}

type verifyEmailOutput struct {
	Body struct {
		EmailVerified bool `json:"email_verified"`
	}
}

type emailInput struct {
	Body emailField
}

// acceptedOutput is the answer to requests that must not reveal whether an
// account exists: the same bytes in every case.
type acceptedOutput struct {
	Body struct {
		Status  string `json:"status" example:"accepted"`
		Message string `json:"message"`
	}
}

type loginInput struct {
	Body struct {
		Email    string `json:"email" format:"email" maxLength:"254"`
		Password string `json:"password" minLength:"1" maxLength:"256"`
	}
}

type apiKeyOutput struct {
	Body struct {
		APIKey string `json:"api_key" doc:"The permanent workspace API key (send as X-API-Key)."`
	}
}

type resetPasswordInput struct {
	Body struct {
		Email       string `json:"email" format:"email" maxLength:"254"`
		Code        string `json:"code" pattern:"^[0-9]{6}$"`
		NewPassword string `json:"new_password" minLength:"8" maxLength:"256"`
	}
}

type statusOutput struct {
	Body struct {
		Status string `json:"status" example:"ok"`
	}
}

type meOutput struct {
	Body struct {
		WorkspaceView
		Role       string `json:"role" enum:"owner,operator" doc:"Who is calling: the workspace owner or an operator."`
		BotCount   int    `json:"bot_count" doc:"Number of chatbots in the workspace (for an operator: in the operator's workspace)."`
		OperatorID int64  `json:"operator_id,omitempty" doc:"Operators only."`
		BotID      int64  `json:"bot_id,omitempty" doc:"Operators only: the bot they handle."`
	}
}

type onboardingOutput struct {
	Body struct {
		OnboardingCompleted bool   `json:"onboarding_completed"`
		CompletedAt         string `json:"completed_at"`
	}
}

type countryOutput struct {
	Body struct {
		Country *string `json:"country" doc:"ISO 3166-1 alpha-2 code from the CDN's edge headers, or null."`
	}
}

type noInput struct{}

func (s *Server) authRoutes() {
	tags := []string{"Account"}
	register(s, route{id: "register", method: http.MethodPost, path: "/auth/register", tags: tags, limit: limitSignup,
		summary: "Create a workspace",
		desc: "Creates the workspace and returns its API key for immediate use. A 6-digit verification code is " +
			"e-mailed; some actions need a verified address. 409 when the address already has an account.",
		errors: []int{http.StatusConflict, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *registerInput) (*registerOutput, error) {
			r, err := s.accounts.Register(ctx, account.RegisterInput{Email: in.Body.Email, Password: in.Body.Password,
				Name: in.Body.Name, BillingCountry: in.Body.BillingCountry})
			if err != nil {
				return nil, err
			}
			out := &registerOutput{}
			out.Body.APIKey = r.APIKey
			out.Body.Workspace = workspaceView(r.Workspace)
			out.Body.EmailVerified = r.Workspace.EmailVerifiedAt != nil
			return out, nil
		})

	register(s, route{id: "verify-email", method: http.MethodPost, path: "/auth/verify-email", tags: tags, limit: limitAuth,
		summary: "Verify the e-mail address with the 6-digit code",
		desc: "422 when the code is wrong, expired or used. Wrong guesses are counted per account: after 5 the " +
			"code is burned and a new one must be requested.",
		errors: []int{http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *verifyEmailInput) (*verifyEmailOutput, error) {
			if err := s.accounts.VerifyEmail(ctx, in.Body.Email, in.Body.Code, ClientIP(ctx)); err != nil {
				return nil, err
			}
			out := &verifyEmailOutput{}
			out.Body.EmailVerified = true
			return out, nil
		})

	register(s, route{id: "resend-verification", method: http.MethodPost, path: "/auth/resend-verification", tags: tags,
		limit: limitAuth, summary: "Send a fresh verification code",
		desc:   "Always answers 200 with the same body, whether or not the address has an account.",
		errors: []int{http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *emailInput) (*acceptedOutput, error) {
			if err := s.accounts.ResendVerification(ctx, in.Body.Email); err != nil {
				return nil, err
			}
			return accepted("If an account with this address needs verification, a new code has been sent."), nil
		})

	register(s, route{id: "login", method: http.MethodPost, path: "/auth/login", tags: tags, limit: limitAuth,
		summary: "Sign in with e-mail and password",
		desc: "Returns the permanent workspace API key. 401 for a wrong e-mail or password. 429 when the " +
			"ceiling for the caller's address or for the account is reached; the account ceiling applies " +
			"even to the correct password.",
		errors: []int{http.StatusUnauthorized, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *loginInput) (*apiKeyOutput, error) {
			key, err := s.accounts.Login(ctx, in.Body.Email, in.Body.Password)
			if err != nil {
				return nil, err
			}
			return apiKey(key), nil
		})

	register(s, route{id: "request-password-reset", method: http.MethodPost, path: "/auth/request-password-reset",
		tags: tags, limit: limitAuth, summary: "E-mail a password reset code",
		desc:   "Always answers 200 with the same body, whether or not the address has an account.",
		errors: []int{http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *emailInput) (*acceptedOutput, error) {
			if err := s.accounts.RequestPasswordReset(ctx, in.Body.Email); err != nil {
				return nil, err
			}
			return accepted("If an account exists for this address, a reset code has been sent."), nil
		})

	register(s, route{id: "reset-password", method: http.MethodPost, path: "/auth/reset-password", tags: tags,
		limit: limitAuth, summary: "Set a new password with the e-mailed code",
		desc: "422 when the code is wrong, expired or used. The workspace API key is not changed; rotate it " +
			"with POST /client/api-key/regenerate if it may have leaked.",
		errors: []int{http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *resetPasswordInput) (*statusOutput, error) {
			if err := s.accounts.ResetPassword(ctx, in.Body.Email, in.Body.Code, in.Body.NewPassword, ClientIP(ctx)); err != nil {
				return nil, err
			}
			out := &statusOutput{}
			out.Body.Status = "ok"
			return out, nil
		})

	register(s, route{id: "me", method: http.MethodGet, path: "/auth/me", tags: tags, creds: credWorkspace | credOperator,
		limit: limitRead, summary: "The caller's profile",
		desc: "For a workspace key: the owner's profile. For an operator key: the operator's e-mail and name, " +
			"the bot they handle, and bot_count of their workspace."},
		func(ctx context.Context, _ *noInput) (*meOutput, error) {
			p := principal(ctx)
			out := &meOutput{}
			if op := p.Operator; op != nil {
				w, err := s.accounts.Profile(ctx, op.WorkspaceID)
				if err != nil {
					return nil, err
				}
				out.Body.WorkspaceView = WorkspaceView{ID: w.ID, Email: op.Email, Name: op.Name, JoinedAt: timestamp(op.CreatedAt),
					EmailVerified: true, OnboardingCompleted: w.OnboardingCompletedAt != nil, BillingCountry: w.BillingCountry}
				out.Body.Role, out.Body.BotCount = "operator", w.BotCount
				out.Body.OperatorID, out.Body.BotID = op.ID, op.BotID
				return out, nil
			}
			// The workspace row read to authenticate holds everything
			// shown, bot_count included: one query per request.
			w := p.Workspace
			out.Body.WorkspaceView = workspaceView(w)
			out.Body.Role = "owner"
			out.Body.BotCount = w.BotCount
			return out, nil
		})

	register(s, route{id: "complete-onboarding", method: http.MethodPost, path: "/auth/onboarding/complete", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Mark onboarding as complete",
		desc: "Idempotent: calling it again answers the same and keeps the first completion time."},
		func(ctx context.Context, _ *noInput) (*onboardingOutput, error) {
			at, err := s.accounts.CompleteOnboarding(ctx, principal(ctx).WorkspaceID())
			if err != nil {
				return nil, err
			}
			out := &onboardingOutput{}
			out.Body.OnboardingCompleted = true
			out.Body.CompletedAt = timestamp(at)
			return out, nil
		})

	register(s, route{id: "detect-country", method: http.MethodGet, path: "/auth/detect-country", tags: tags,
		limit: limitPublic, summary: "Guess the caller's country from CDN edge headers",
		desc: "Reads the country header of common CDNs (Cloudflare, CloudFront, Vercel, App Engine, Akamai, " +
			"Fastly, Netlify) when the server is configured to trust them; null otherwise."},
		func(ctx context.Context, in *countryInput) (*countryOutput, error) {
			out := &countryOutput{}
			if s.edge {
				out.Body.Country = in.country()
			}
			return out, nil
		})
}

func accepted(msg string) *acceptedOutput {
	out := &acceptedOutput{}
	out.Body.Status = "accepted"
	out.Body.Message = msg
	return out
}

func apiKey(key string) *apiKeyOutput {
	out := &apiKeyOutput{}
	out.Body.APIKey = key
	return out
}

// countryInput reads the edge headers. They are hidden from the OpenAPI
// description: CDNs set them, clients do not.
type countryInput struct {
	CFIPCountry     string `header:"CF-IPCountry" hidden:"true"`
	CloudFront      string `header:"CloudFront-Viewer-Country" hidden:"true"`
	Vercel          string `header:"X-Vercel-IP-Country" hidden:"true"`
	AppEngine       string `header:"X-AppEngine-Country" hidden:"true"`
	Fastly          string `header:"Fastly-Geo-Country" hidden:"true"`
	Netlify         string `header:"X-Country" hidden:"true"`
	AkamaiEdgescape string `header:"X-Akamai-Edgescape" hidden:"true"`
}

func (in *countryInput) country() *string {
	candidates := []string{in.CFIPCountry, in.CloudFront, in.Vercel, in.AppEngine, in.Fastly, in.Netlify}
	if in.AkamaiEdgescape != "" {
		for _, kv := range strings.Split(in.AkamaiEdgescape, ",") {
			if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == "country_code" {
				candidates = append(candidates, v)
			}
		}
	}
	for _, c := range candidates {
		c = strings.ToUpper(strings.TrimSpace(c))
		if account.IsCountryCode(c) {
			return &c
		}
	}
	return nil
}

func constantTimeEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
