// Package httpapi is the HTTP face of the service: the route table, the
// credential and rate-limit middleware, request decoding through huma (which
// also generates /openapi.json from the same code), and the mapping of domain
// errors to the status codes and bodies of spec section 7. It holds no
// business rules.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"concierge/internal/account"
	"concierge/internal/analytics"
	"concierge/internal/billing"
	"concierge/internal/bot"
	"concierge/internal/chat"
	"concierge/internal/idp"
	"concierge/internal/impersonation"
	"concierge/internal/knowledge"
	"concierge/internal/lead"
	"concierge/internal/livechat"
	"concierge/internal/operator"
	"concierge/internal/ratelimit"
	"concierge/internal/subscription"
	"concierge/internal/webhook"
)

// DefaultMaxBody is the request body limit of routes that do not set their own.
const DefaultMaxBody = 1 << 20

// Operation metadata keys read by the middleware.
const (
	metaCreds         = "concierge.creds"
	metaLimit         = "concierge.limit"
	metaImpersonation = "concierge.impersonation"
	metaRawBody       = "concierge.rawbody"
)

// Deps are what the HTTP layer needs.
type Deps struct {
	Accounts      *account.Service
	Billing       *billing.Service
	Bots          *bot.Service
	Operators     *operator.Service
	Impersonation *impersonation.Service
	Subscriptions *subscription.Service
	Knowledge     *knowledge.Service
	Chat          *chat.Service
	Leads         *lead.Service
	Analytics     *analytics.Service
	// IDP is sign-in through an identity provider (nil: not configured).
	IDP      *idp.Service
	Webhooks *webhook.Service
	// Ready reports whether the process can serve (database reachable).
	Ready   func(ctx context.Context) error
	Limiter ratelimit.Limiter
	// Limits maps rate-limit class to ceiling; LimitsOff disables them all.
	Limits           map[string]ratelimit.Limit
	LimitsOff        bool
	TrustedProxies   []netip.Prefix
	TrustEdgeHeaders bool
	Logger           *slog.Logger
	AccessLog        bool
	// Registry receives the HTTP metrics and is served at /metrics.
	Registry     *prometheus.Registry
	MetricsToken string

	// PublicOrigin is the service's own scheme://host[:port] from
	// configuration: the demo page's origin for the widget's origin check,
	// the embed snippet's and the API description's server.
	PublicOrigin string
	// LiveChat is hand-off to operators (optional in tests that build a
	// bare server).
	LiveChat *livechat.Service
}

// Server is the HTTP handler of the whole API.
type Server struct {
	router        chi.Router
	api           huma.API
	accounts      *account.Service
	billing       *billing.Service
	bots          *bot.Service
	operators     *operator.Service
	impersonation *impersonation.Service
	subscriptions *subscription.Service
	knowledge     *knowledge.Service
	chat          *chat.Service
	leads         *lead.Service
	analytics     *analytics.Service
	idp           *idp.Service
	webhooks      *webhook.Service
	ready         func(ctx context.Context) error
	limiter       ratelimit.Limiter
	limits        map[string]ratelimit.Limit
	limitsOff     bool
	trusted       []netip.Prefix
	edge          bool
	publicOrigin  string
	log           *slog.Logger
	accessLog     bool
	metrics       *httpMetrics
	livechat      *livechat.Service
}

// New builds the router with every route.
func New(d Deps) *Server {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Limiter == nil {
		d.Limiter = ratelimit.Off{}
	}
	var reg prometheus.Registerer
	if d.Registry != nil {
		reg = d.Registry // a typed nil would not compare equal to nil
	}
	s := &Server{
		accounts:      d.Accounts,
		billing:       d.Billing,
		bots:          d.Bots,
		operators:     d.Operators,
		impersonation: d.Impersonation,
		subscriptions: d.Subscriptions,
		knowledge:     d.Knowledge,
		chat:          d.Chat,
		leads:         d.Leads,
		analytics:     d.Analytics,
		idp:           d.IDP,
		webhooks:      d.Webhooks,
		ready:         d.Ready,
		limiter:       d.Limiter,
		limits:        d.Limits,
		limitsOff:     d.LimitsOff,
		trusted:       d.TrustedProxies,
		edge:          d.TrustEdgeHeaders,
		publicOrigin:  d.PublicOrigin,
		log:           d.Logger.With("component", "http"),
		accessLog:     d.AccessLog,
		metrics:       newHTTPMetrics(reg),
		livechat:      d.LiveChat,
	}
	r := chi.NewRouter()
	r.Use(connControl, requestID, s.clientIP, s.observe, s.recoverer, securityHeaders, preflight)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "Not Found", nil)
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		// A custom 405 handler loses chi's Allow header; rebuild it.
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if r.Match(chi.NewRouteContext(), m, req.URL.Path) {
				w.Header().Add("Allow", m)
			}
		}
		writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed", nil)
	})

	// Platform routes: not part of the customer-facing contract, so they
	// stay out of the OpenAPI description.
	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.Handle("/metrics", s.metricsHandler(d.Registry, d.MetricsToken))

	s.router = r
	s.api = humachi.New(r, apiConfig(d.PublicOrigin))
	s.api.UseMiddleware(s.authenticate, s.checkOrigin, s.rateLimit, s.limitBody, s.checkText, s.keepRawBody)
	s.routes()
	return s
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// OpenAPI returns the generated description.
func (s *Server) OpenAPI() *huma.OpenAPI { return s.api.OpenAPI() }

func apiConfig(publicOrigin string) huma.Config {
	huma.DefaultArrayNullable = false
	cfg := huma.DefaultConfig("Concierge API", "1.0.0")
	cfg.Info.Description = "REST API of the Concierge AI chatbot platform: workspaces, chatbots, knowledge, " +
		"chat, leads, analytics, webhooks and billing. Errors always carry a detail field: a string, a list of " +
		"{loc, msg, type} for 422, or an object with an error code for machine-readable cases. 429 responses " +
		"carry Retry-After; ceilings are not published."
	cfg.OpenAPIPath = "/openapi"
	cfg.DocsPath = ""
	cfg.SchemasPath = ""
	cfg.CreateHooks = nil
	cfg.AllowAdditionalPropertiesByDefault = true
	cfg.Components.SecuritySchemes = securitySchemes()
	if publicOrigin != "" {
		cfg.Servers = []*huma.Server{{URL: publicOrigin, Description: "This deployment (CONCIERGE_PUBLIC_URL)."}}
	}
	return cfg
}

// route describes one customer-facing operation.
type route struct {
	id, method, path string
	summary, desc    string
	tags             []string
	creds            credential
	limit            string
	status           int
	errors           []int
	maxBody          int64
	hidden           bool
	// impersonation: the route accepts X-Impersonation-Token beside the key.
	impersonation bool
	// rawBody keeps the raw JSON body for the handler (rawBody(ctx)) as well
	// as decoding it, for partial updates.
	rawBody bool
}

// register adds a route. Every handler error goes through toHTTP, so no
// handler writes a status itself.
func register[I, O any](s *Server, rt route, h func(ctx context.Context, in *I) (*O, error)) {
	errs := append([]int{}, rt.errors...)
	if rt.creds != 0 {
		errs = append(errs, http.StatusUnauthorized)
	}
	if rt.limit != "" {
		errs = append(errs, http.StatusTooManyRequests)
	}
	op := huma.Operation{
		OperationID:   rt.id,
		Method:        rt.method,
		Path:          rt.path,
		Summary:       rt.summary,
		Description:   rt.desc,
		Tags:          rt.tags,
		DefaultStatus: rt.status,
		Errors:        errs,
		Security:      security(rt.creds),
		MaxBodyBytes:  rt.maxBody,
		Hidden:        rt.hidden,
		Metadata:      map[string]any{metaCreds: rt.creds, metaLimit: rt.limit, metaImpersonation: rt.impersonation, metaRawBody: rt.rawBody},
	}
	if op.MaxBodyBytes == 0 {
		op.MaxBodyBytes = DefaultMaxBody
	}
	huma.Register(s.api, op, func(ctx context.Context, in *I) (*O, error) {
		releaseBodyDeadline(ctx) // the body is read: a long request must not outlive its deadline
		out, err := h(ctx, in)
		if err != nil {
			return nil, s.toHTTP(ctx, err)
		}
		return out, nil
	})
	if rt.limit != "" && !rt.hidden {
		documentRetryAfter(s.api.OpenAPI(), rt.method, rt.path)
	}
}

// documentRetryAfter adds the Retry-After header to an operation's 429
// response in the description (huma builds error responses without headers).
func documentRetryAfter(oapi *huma.OpenAPI, method, path string) {
	item := oapi.Paths[path]
	if item == nil {
		return
	}
	var op *huma.Operation
	switch method {
	case http.MethodGet:
		op = item.Get
	case http.MethodPost:
		op = item.Post
	case http.MethodPut:
		op = item.Put
	case http.MethodPatch:
		op = item.Patch
	case http.MethodDelete:
		op = item.Delete
	}
	if op == nil || op.Responses["429"] == nil {
		return
	}
	op.Responses["429"].Headers = map[string]*huma.Param{"Retry-After": {
		Description: "Seconds to wait before retrying; equals retry_after_seconds in the body.",
		Schema:      &huma.Schema{Type: "integer", Minimum: ptr(1.0)},
	}}
}

func ptr[T any](v T) *T { return &v }

func (s *Server) routes() {
	s.authRoutes()
	s.keyRoutes()
	s.billingRoutes()
	s.botRoutes()
	s.operatorRoutes()
	s.subscriptionRoutes()
	s.knowledgeRoutes()
	s.chatRoutes()
	s.assistRoutes()
	s.widgetRoutes()
	s.leadRoutes()
	if s.analytics != nil {
		s.analyticsRoutes()
	}
	s.idpRoutes()
	if s.webhooks != nil {
		s.webhookRoutes()
	}
	if s.livechat != nil {
		s.livechatRoutes()
	}
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if s.ready != nil {
		if err := s.ready(ctx); err != nil {
			s.log.WarnContext(ctx, "not ready", "err", err)
			w.Header().Set("Retry-After", "5")
			writeError(w, http.StatusServiceUnavailable, "not ready: database unreachable", nil)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ready"}` + "\n"))
}

func (s *Server) metricsHandler(reg *prometheus.Registry, token string) http.Handler {
	if reg == nil {
		return http.NotFoundHandler()
	}
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	if token == "" {
		return h
	}
	want := "Bearer " + token
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !constantTimeEqual(r.Header.Get("Authorization"), want) {
			writeError(w, http.StatusUnauthorized, "invalid credentials", nil)
			return
		}
		h.ServeHTTP(w, r)
	})
}
