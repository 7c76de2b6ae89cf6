package httpapi

import (
	"github.com/danielgtaylor/huma/v2"

	"concierge/internal/ratelimit"
)

// Rate-limit classes (spec section 8). Each route names one; the ceiling
// comes from configuration.
const (
	limitRead        = "read"
	limitWrite       = "write"
	limitChat        = "chat"
	limitIngest      = "ingest"
	limitPreviewCost = "preview_cost"
	limitCrawl       = "crawl"
	limitDiscover    = "discover"
	limitAuth        = "auth"
	limitSignup      = "signup"
	limitBilling     = "billing"
	limitPublic      = "public"
)

// rateLimit counts the request against its route's ceiling, keyed by the
// caller's workspace when authenticated and by the client address
// otherwise, per endpoint. It runs after authentication, so requests with a
// bad key never consume a tenant's budget.
func (s *Server) rateLimit(ctx huma.Context, next func(huma.Context)) {
	class, _ := ctx.Operation().Metadata[metaLimit].(string)
	if class == "" || s.limitsOff {
		next(ctx)
		return
	}
	lim, ok := s.limits[class]
	if !ok {
		next(ctx)
		return
	}
	identity := "ip:" + ClientIP(ctx.Context()).String()
	if p := principal(ctx.Context()); p != nil {
		identity = p.limitIdentity()
	}
	key := class + ":" + ctx.Operation().OperationID + ":" + identity
	res, err := ratelimit.Allow(ctx.Context(), s.limiter, key, lim)
	if err != nil {
		// A limiter outage must not take the API down: let the request
		// through and say so loudly.
		s.log.ErrorContext(ctx.Context(), "rate limiter unavailable; request allowed", "err", err)
		next(ctx)
		return
	}
	if !res.Allowed {
		s.writeErr(ctx, rateLimited(res.RetryAfter))
		return
	}
	next(ctx)
}
