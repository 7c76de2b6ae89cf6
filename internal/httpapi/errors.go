package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"concierge/internal/apperr"
	"concierge/internal/llm"
)

// ErrorBody is every error response (spec section 7, FastAPI style): detail
// is a string for simple errors, a list of {loc, msg, type} for 422, and an
// object for the machine-readable cases. 429 adds error and
// retry_after_seconds.
type ErrorBody struct {
	status            int
	Detail            any    `json:"detail"`
	Code              string `json:"error,omitempty"`
	RetryAfterSeconds int    `json:"retry_after_seconds,omitempty"`
}

// Error makes ErrorBody an error for huma.
func (e *ErrorBody) Error() string {
	if s, ok := e.Detail.(string); ok {
		return s
	}
	return http.StatusText(e.status)
}

// GetStatus is the HTTP status.
func (e *ErrorBody) GetStatus() int { return e.status }

// Schema documents the three shapes of detail in the OpenAPI description.
func (e *ErrorBody) Schema(r huma.Registry) *huma.Schema {
	item := &huma.Schema{
		Type: "object",
		Properties: map[string]*huma.Schema{
			"loc":  {Type: "array", Items: &huma.Schema{OneOf: []*huma.Schema{{Type: "string"}, {Type: "integer"}}}, Description: "Path to the field, starting with body, query, path or header."},
			"msg":  {Type: "string"},
			"type": {Type: "string", Description: "Machine-readable kind, e.g. missing, value_error, string_too_short."},
		},
		Required: []string{"loc", "msg", "type"},
	}
	obj := &huma.Schema{
		Type:        "object",
		Description: "Machine-readable error: error is feature_not_available (with feature), insufficient_credits (with required and available), subscription_required, or plan_limit_reached (with limit and max); message is for people.",
		Properties: map[string]*huma.Schema{
			"error":     {Type: "string"},
			"message":   {Type: "string"},
			"feature":   {Type: "string"},
			"required":  {Type: "integer"},
			"available": {Type: "integer"},
			"limit":     {Type: "string"},
			"max":       {Type: "integer"},
		},
		Required:             []string{"error", "message"},
		AdditionalProperties: true,
	}
	return &huma.Schema{
		Type: "object",
		Properties: map[string]*huma.Schema{
			"detail": {
				Description: "A string for simple errors, a list of field problems for 422, an object for machine-readable errors.",
				OneOf:       []*huma.Schema{{Type: "string"}, {Type: "array", Items: item}, obj},
			},
			"error":               {Type: "string", Description: "On 429: rate_limited."},
			"retry_after_seconds": {Type: "integer", Description: "On 429: seconds to wait, the same as the Retry-After header."},
		},
		Required: []string{"detail"},
	}
}

func init() {
	// Every error huma produces itself (validation, body size, content type)
	// comes through here, so it has the same shape as ours.
	huma.NewError = newHumaError
	huma.NewErrorWithContext = func(_ huma.Context, status int, msg string, errs ...error) huma.StatusError {
		return newHumaError(status, msg, errs...)
	}
}

func newHumaError(status int, msg string, errs ...error) huma.StatusError {
	switch {
	case status == http.StatusUnprocessableEntity:
		items := make([]validationItem, 0, len(errs))
		for _, err := range errs {
			if err == nil {
				continue
			}
			items = append(items, fromHumaDetail(err))
		}
		return &ErrorBody{status: status, Detail: items}
	case status == http.StatusBadRequest && len(errs) > 0:
		// A body that is not JSON: say why, never echo the body back.
		var d *huma.ErrorDetail
		if errors.As(errs[0], &d) && d.Location == "body" {
			return &ErrorBody{status: status, Detail: "malformed request body: " + d.Message}
		}
		return &ErrorBody{status: status, Detail: firstMessage(msg, errs)}
	case status == http.StatusUnsupportedMediaType:
		return &ErrorBody{status: status, Detail: "unsupported Content-Type: send application/json"}
	case status == http.StatusRequestEntityTooLarge:
		return &ErrorBody{status: status, Detail: "request body is too large"}
	case status >= 500:
		return &ErrorBody{status: status, Detail: "internal server error"}
	case status == 0:
		return &ErrorBody{status: status, Detail: msg}
	}
	return &ErrorBody{status: status, Detail: firstMessage(msg, errs)}
}

func firstMessage(msg string, errs []error) string {
	if msg == "" && len(errs) > 0 && errs[0] != nil {
		return errs[0].Error()
	}
	if msg == "" {
		return "error"
	}
	return msg
}

// validationItem is one entry of a 422 detail list.
type validationItem struct {
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
}

// fromHumaDetail turns huma's "body.items[3].name" locations and messages
// into FastAPI's loc lists and type names. The offending value is never
// echoed: it may be a password.
func fromHumaDetail(err error) validationItem {
	var d *huma.ErrorDetail
	if !errors.As(err, &d) {
		return validationItem{Loc: []any{"body"}, Msg: err.Error(), Type: "value_error"}
	}
	loc := splitLocation(d.Location)
	msg, typ := d.Message, "value_error"
	switch {
	case strings.HasPrefix(msg, "expected required property "):
		name := strings.TrimSuffix(strings.TrimPrefix(msg, "expected required property "), " to be present")
		loc = append(loc, name)
		msg, typ = "Field required", "missing"
	case strings.HasPrefix(msg, "required ") && strings.HasSuffix(msg, " is missing"):
		msg, typ = "Field required", "missing"
	case strings.HasPrefix(msg, "expected length >="), strings.HasPrefix(msg, "expected number of items >="):
		typ = "too_short"
	case strings.HasPrefix(msg, "expected length <="), strings.HasPrefix(msg, "expected number of items <="):
		typ = "too_long"
	case strings.HasPrefix(msg, "expected string to match pattern"):
		typ = "string_pattern_mismatch"
	case strings.HasPrefix(msg, "expected number >="), strings.HasPrefix(msg, "expected number >"):
		typ = "greater_than_equal"
	case strings.HasPrefix(msg, "expected number <="), strings.HasPrefix(msg, "expected number <"):
		typ = "less_than_equal"
	case strings.HasPrefix(msg, "expected value to be one of"):
		typ = "enum"
	case strings.HasPrefix(msg, "unexpected property"):
		typ = "extra_forbidden"
	case strings.HasPrefix(msg, "expected "):
		typ = "type_error"
	case strings.Contains(msg, "invalid"):
		typ = "value_error"
	}
	if len(loc) == 0 {
		loc = []any{"body"}
	}
	return validationItem{Loc: loc, Msg: msg, Type: typ}
}

// splitLocation turns "body.items[3].name" into ["body","items",3,"name"].
func splitLocation(s string) []any {
	var out []any
	for _, part := range strings.Split(s, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, part)
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				out = append(out, part[i:])
				break
			}
			idx := part[i+1 : i+j]
			if n, err := strconv.Atoi(idx); err == nil {
				out = append(out, n)
			} else {
				out = append(out, idx)
			}
			part = part[i+j+1:]
		}
	}
	return out
}

// toHTTP maps a service error to its response. Internal errors are logged
// with the request id and answered with a bland 500.
func (s *Server) toHTTP(ctx context.Context, err error) error {
	var (
		v   *apperr.Validation
		rl  *apperr.RateLimited
		fe  *apperr.FeatureError
		ic  *apperr.InsufficientCredits
		sr  *apperr.SubscriptionRequired
		lr  *apperr.LimitReached
		rf  *apperr.Refused
		ae  *apperr.Error
		hse huma.StatusError
		le  *llm.Error
	)
	switch {
	case errors.As(err, &v):
		items := make([]validationItem, len(v.Fields))
		for i, f := range v.Fields {
			loc := make([]any, len(f.Loc))
			for k, l := range f.Loc {
				loc[k] = l
			}
			items[i] = validationItem{Loc: loc, Msg: f.Msg, Type: f.Type}
		}
		return &ErrorBody{status: http.StatusUnprocessableEntity, Detail: items}
	case errors.As(err, &rl):
		return rateLimited(rl.RetryAfter)
	case errors.As(err, &fe):
		return &ErrorBody{status: http.StatusForbidden, Detail: map[string]any{
			"error": "feature_not_available", "feature": fe.Feature, "message": fe.Message}}
	case errors.As(err, &ic):
		return &ErrorBody{status: http.StatusPaymentRequired, Detail: map[string]any{
			"error": "insufficient_credits", "required": ic.Required, "available": ic.Available,
			"message": "not enough credits: top up or upgrade your plan"}}
	case errors.As(err, &sr):
		return &ErrorBody{status: http.StatusForbidden, Detail: map[string]any{
			"error": "subscription_required", "message": sr.Message}}
	case errors.As(err, &lr):
		return &ErrorBody{status: http.StatusForbidden, Detail: map[string]any{
			"error": "plan_limit_reached", "limit": lr.Limit, "max": lr.Max, "message": lr.Message}}
	case errors.As(err, &rf):
		detail := map[string]any{"error": rf.Code, "message": rf.Message}
		for k, v := range rf.Extra {
			detail[k] = v
		}
		return &ErrorBody{status: http.StatusConflict, Detail: detail}
	case errors.As(err, &ae) && ae.Kind != apperr.KindInternal:
		return s.kindError(ctx, ae, err)
	case errors.As(err, &hse):
		return err
	case errors.As(err, &le):
		return s.modelError(ctx, le)
	case errors.Is(err, context.DeadlineExceeded):
		s.log.WarnContext(ctx, "request timed out", "err", err)
		return withRetryAfter(&ErrorBody{status: http.StatusGatewayTimeout, Detail: "the request timed out; retry later"}, 5*time.Second)
	case errors.Is(err, context.Canceled):
		// The client went away; nobody reads this answer.
		return &ErrorBody{status: 499, Detail: "request cancelled"}
	}
	s.log.ErrorContext(ctx, "internal error", "err", err)
	return &ErrorBody{status: http.StatusInternalServerError, Detail: "internal server error"}
}

// modelError answers a failure of the language model: the visitor may
// retry (5xx with Retry-After), nothing was charged, and nothing of the
// provider's answer is shown.
func (s *Server) modelError(ctx context.Context, le *llm.Error) error {
	s.log.WarnContext(ctx, "model failure", "kind", le.Kind.String(), "status", le.Status, "err", le.Err)
	wait := max(le.RetryAfter, 5*time.Second)
	switch le.Kind {
	case llm.KindTimeout:
		return withRetryAfter(&ErrorBody{status: http.StatusGatewayTimeout, Detail: "the answer took too long; please retry"}, wait)
	case llm.KindQuota:
		return withRetryAfter(&ErrorBody{status: http.StatusServiceUnavailable, Detail: "the assistant is temporarily unavailable"}, max(wait, time.Minute))
	case llm.KindRateLimited, llm.KindUnavailable:
		return withRetryAfter(&ErrorBody{status: http.StatusServiceUnavailable, Detail: "the assistant is busy; please retry"}, wait)
	}
	return withRetryAfter(&ErrorBody{status: http.StatusBadGateway, Detail: "the assistant could not answer; please retry"}, wait)
}

func (s *Server) kindError(ctx context.Context, ae *apperr.Error, err error) error {
	msg := ae.Message
	switch ae.Kind {
	case apperr.KindBadRequest:
		return &ErrorBody{status: http.StatusBadRequest, Detail: msg}
	case apperr.KindUnauthorized:
		if msg == "" {
			msg = "invalid credentials"
		}
		return &ErrorBody{status: http.StatusUnauthorized, Detail: msg}
	case apperr.KindForbidden:
		if msg == "" {
			msg = "not allowed"
		}
		return &ErrorBody{status: http.StatusForbidden, Detail: msg}
	case apperr.KindNotFound:
		if msg == "" {
			msg = "not found"
		}
		return &ErrorBody{status: http.StatusNotFound, Detail: msg}
	case apperr.KindConflict:
		return &ErrorBody{status: http.StatusConflict, Detail: msg}
	case apperr.KindTooLarge:
		return &ErrorBody{status: http.StatusRequestEntityTooLarge, Detail: msg}
	case apperr.KindTimeout:
		s.log.WarnContext(ctx, "upstream timeout", "err", err)
		return withRetryAfter(&ErrorBody{status: http.StatusGatewayTimeout, Detail: msg}, ae.RetryAfter)
	case apperr.KindUnavailable:
		s.log.WarnContext(ctx, "service unavailable", "err", err)
		return withRetryAfter(&ErrorBody{status: http.StatusServiceUnavailable, Detail: msg}, ae.RetryAfter)
	}
	s.log.ErrorContext(ctx, "internal error", "err", err)
	return &ErrorBody{status: http.StatusInternalServerError, Detail: "internal server error"}
}

// retryAfterSeconds rounds up, never below one second.
func retryAfterSeconds(d time.Duration) int {
	n := int(math.Ceil(d.Seconds()))
	if n < 1 {
		n = 1
	}
	return n
}

func withRetryAfter(e *ErrorBody, d time.Duration) error {
	if d <= 0 {
		d = time.Second
	}
	return huma.ErrorWithHeaders(e, http.Header{"Retry-After": {strconv.Itoa(retryAfterSeconds(d))}})
}

// rateLimited is the 429 of section 7. It never states the ceiling.
func rateLimited(d time.Duration) error {
	n := retryAfterSeconds(d)
	return huma.ErrorWithHeaders(&ErrorBody{
		status:            http.StatusTooManyRequests,
		Detail:            "too many requests; retry after " + strconv.Itoa(n) + " seconds",
		Code:              "rate_limited",
		RetryAfterSeconds: n,
	}, http.Header{"Retry-After": {strconv.Itoa(n)}})
}

// writeError writes an error body outside huma (router fallbacks, panics).
func writeError(w http.ResponseWriter, status int, detail string, log *slog.Logger) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(ErrorBody{Detail: detail}); err != nil && log != nil {
		log.Debug("write error body", "err", err)
	}
}
