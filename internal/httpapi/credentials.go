package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"concierge/internal/account"
	"concierge/internal/apperr"
)

// credential is a set of credential kinds a route accepts.
type credential uint8

const (
	credWorkspace credential = 1 << iota // X-API-Key
	credBot                              // X-Bot-Key
	credOperator                         // X-Operator-Key
)

// Header names of the three credentials (spec section 5).
const (
	headerAPIKey      = "X-API-Key"
	headerBotKey      = "X-Bot-Key"
	headerOperatorKey = "X-Operator-Key"
)

// OpenAPI security scheme names.
const (
	schemeAPIKey      = "ApiKeyAuth"
	schemeBotKey      = "BotKeyAuth"
	schemeOperatorKey = "OperatorKeyAuth"
)

// Principal is the authenticated caller of a request.
type Principal struct {
	Kind      credential
	Workspace *account.Workspace
}

// WorkspaceID is the tenant every query of this request is scoped to.
func (p *Principal) WorkspaceID() int64 { return p.Workspace.ID }

type principalKey struct{}

// principal returns the caller of an authenticated route. Routes that accept
// credentials always have one: the middleware refused the request otherwise.
func principal(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// authenticate runs before any input is read or validated, so a missing or
// invalid key is a 401 even when the body is also wrong.
func (s *Server) authenticate(ctx huma.Context, next func(huma.Context)) {
	accepted, _ := ctx.Operation().Metadata[metaCreds].(credential)
	if accepted == 0 {
		next(ctx)
		return
	}
	var (
		p   *Principal
		err error
	)
	switch {
	case accepted&credWorkspace != 0 && ctx.Header(headerAPIKey) != "":
		var w *account.Workspace
		w, err = s.accounts.Authenticate(ctx.Context(), ctx.Header(headerAPIKey))
		if err == nil {
			p = &Principal{Kind: credWorkspace, Workspace: w}
		}
	default:
		err = apperr.Unauthorized("missing credentials: send the " + acceptedHeaders(accepted) + " header")
	}
	if err != nil {
		s.writeErr(ctx, err)
		return
	}
	next(huma.WithValue(ctx, principalKey{}, p))
}

func acceptedHeaders(c credential) string {
	var names []string
	if c&credWorkspace != 0 {
		names = append(names, headerAPIKey)
	}
	if c&credBot != 0 {
		names = append(names, headerBotKey)
	}
	if c&credOperator != 0 {
		names = append(names, headerOperatorKey)
	}
	switch len(names) {
	case 1:
		return names[0]
	case 2:
		return names[0] + " or " + names[1]
	default:
		return names[0] + ", " + names[1] + " or " + names[2]
	}
}

// security is the OpenAPI requirement list for a credential set: any one of
// the accepted schemes.
func security(c credential) []map[string][]string {
	var out []map[string][]string
	if c&credWorkspace != 0 {
		out = append(out, map[string][]string{schemeAPIKey: {}})
	}
	if c&credBot != 0 {
		out = append(out, map[string][]string{schemeBotKey: {}})
	}
	if c&credOperator != 0 {
		out = append(out, map[string][]string{schemeOperatorKey: {}})
	}
	return out
}

func securitySchemes() map[string]*huma.SecurityScheme {
	return map[string]*huma.SecurityScheme{
		schemeAPIKey: {Type: "apiKey", In: "header", Name: headerAPIKey,
			Description: "Workspace API key: full access. Server-side use only."},
		schemeBotKey: {Type: "apiKey", In: "header", Name: headerBotKey,
			Description: "Public bot key from the embed snippet (data-bot-key): widget endpoints only."},
		schemeOperatorKey: {Type: "apiKey", In: "header", Name: headerOperatorKey,
			Description: "Live-chat operator key, returned by POST /auth/operator-login."},
	}
}

// writeErr writes err from inside a huma middleware.
func (s *Server) writeErr(ctx huma.Context, err error) {
	herr := s.toHTTP(ctx.Context(), err)
	var he huma.HeadersError
	if errors.As(herr, &he) {
		for k, vs := range he.GetHeaders() {
			for _, v := range vs {
				ctx.AppendHeader(k, v)
			}
		}
	}
	var se huma.StatusError
	status := http.StatusInternalServerError
	if errors.As(herr, &se) {
		status = se.GetStatus()
	}
	ctx.SetHeader("Content-Type", "application/json")
	ctx.SetStatus(status)
	if se != nil {
		_ = s.api.Marshal(ctx.BodyWriter(), "application/json", se)
	}
}
