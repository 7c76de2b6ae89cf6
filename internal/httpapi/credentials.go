package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"concierge/internal/account"
	"concierge/internal/apperr"
	"concierge/internal/bot"
	"concierge/internal/impersonation"
	"concierge/internal/operator"
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
	// headerImpersonation carries a super-admin session beside X-API-Key;
	// only routes that say so accept it, every other route answers 401.
	headerImpersonation = "X-Impersonation-Token"
)

// OpenAPI security scheme names.
const (
	schemeAPIKey      = "ApiKeyAuth"
	schemeBotKey      = "BotKeyAuth"
	schemeOperatorKey = "OperatorKeyAuth"
)

// Principal is the authenticated caller of a request.
type Principal struct {
	Kind credential
	// Workspace is set for X-API-Key callers (profile columns).
	Workspace *account.Workspace
	// Operator is set for X-Operator-Key callers.
	Operator *operator.Operator
	// Bot is set for X-Bot-Key callers, with BotView: the bot's view
	// (offline or not, the workspace's balance) read with it.
	Bot     *bot.Bot
	BotView *bot.View
	// Impersonation is set when a super-admin session came with the key.
	Impersonation *impersonation.Session
}

// WorkspaceID is the tenant every query of this request is scoped to.
func (p *Principal) WorkspaceID() int64 {
	switch {
	case p.Workspace != nil:
		return p.Workspace.ID
	case p.Operator != nil:
		return p.Operator.WorkspaceID
	case p.Bot != nil:
		return p.Bot.WorkspaceID
	}
	return 0
}

// limitIdentity names the caller for rate limits: the workspace for
// workspace keys, the operator or the bot key otherwise (spec 8: chat
// counts per bot key).
func (p *Principal) limitIdentity() string {
	switch p.Kind {
	case credOperator:
		return "op:" + strconv.FormatInt(p.Operator.ID, 10)
	case credBot:
		return "bot:" + strconv.FormatInt(p.Bot.ID, 10)
	}
	return "ws:" + strconv.FormatInt(p.WorkspaceID(), 10)
}

type principalKey struct{}

// principal returns the caller of an authenticated route. Routes that accept
// credentials always have one: the middleware refused the request otherwise.
func principal(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// authenticate runs before any input is read or validated, so a missing or
// invalid key is a 401 even when the body is also wrong. A route accepts a
// set of credentials; the first accepted header present is used.
func (s *Server) authenticate(ctx huma.Context, next func(huma.Context)) {
	meta := ctx.Operation().Metadata
	accepted, _ := meta[metaCreds].(credential)
	impToken := ctx.Header(headerImpersonation)
	allowsImp, _ := meta[metaImpersonation].(bool)
	if impToken != "" && !allowsImp {
		s.writeErr(ctx, apperr.Unauthorized("X-Impersonation-Token is not accepted on this endpoint"))
		return
	}
	if accepted == 0 {
		next(ctx)
		return
	}
	p, err := s.resolve(ctx, accepted)
	if err == nil && impToken != "" {
		if p.Kind != credWorkspace {
			err = apperr.Unauthorized("an impersonation session needs the workspace key")
		} else {
			p.Impersonation, err = s.impersonation.Check(ctx.Context(), impToken, p.WorkspaceID(), ctx.Operation().OperationID)
		}
	}
	if err != nil {
		s.writeErr(ctx, err)
		return
	}
	next(huma.WithValue(ctx, principalKey{}, p))
}

func (s *Server) resolve(ctx huma.Context, accepted credential) (*Principal, error) {
	c := ctx.Context()
	switch {
	case accepted&credWorkspace != 0 && ctx.Header(headerAPIKey) != "":
		w, err := s.accounts.Authenticate(c, ctx.Header(headerAPIKey))
		if err != nil {
			return nil, err
		}
		return &Principal{Kind: credWorkspace, Workspace: w}, nil
	case accepted&credOperator != 0 && ctx.Header(headerOperatorKey) != "":
		op, err := s.operators.Authenticate(c, ctx.Header(headerOperatorKey))
		if err != nil {
			return nil, err
		}
		return &Principal{Kind: credOperator, Operator: op}, nil
	case accepted&credBot != 0 && ctx.Header(headerBotKey) != "":
		v, err := s.bots.ByKey(c, ctx.Header(headerBotKey))
		if err != nil {
			return nil, err
		}
		return &Principal{Kind: credBot, Bot: v.Bot, BotView: v}, nil
	}
	return nil, apperr.Unauthorized("missing credentials: send the " + acceptedHeaders(accepted) + " header")
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
// the accepted schemes. A public operation says so with an empty list
// (security: []), not by leaving the field out.
func security(c credential) []map[string][]string {
	out := []map[string][]string{}
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
