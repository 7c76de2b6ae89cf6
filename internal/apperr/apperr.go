// Package apperr holds the domain error vocabulary shared by every area.
// Services return these; only the HTTP layer turns them into statuses and
// bodies, so no package below httpapi knows about HTTP.
package apperr

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind classifies an error for the caller.
type Kind int

// The kinds, each mapped to one status by the HTTP layer.
const (
	KindInternal     Kind = iota // a failure on our side; its message is never shown
	KindBadRequest               // malformed request (400)
	KindUnauthorized             // missing or invalid credential (401)
	KindForbidden                // authenticated but not allowed (403)
	KindNotFound                 // no such resource, or not the caller's (404)
	KindConflict                 // conflicts with current state (409)
	KindTooLarge                 // request body too large (413)
	KindUnavailable              // a dependency is down; retry later (503)
	KindTimeout                  // an upstream took too long (504)
)

// Error is a classified error with a message that is safe to show to the
// caller. Err, when set, is the cause and is only logged.
type Error struct {
	Kind       Kind
	Message    string
	Err        error
	RetryAfter time.Duration // for KindUnavailable and KindTimeout
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrNotFound) true for every not-found error,
// whatever its message.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	return t.Message == "" && t.Err == nil && t.Kind == e.Kind
}

// Sentinels for errors.Is. They carry no message on purpose (see Is).
var (
	ErrNotFound     = &Error{Kind: KindNotFound}
	ErrConflict     = &Error{Kind: KindConflict}
	ErrForbidden    = &Error{Kind: KindForbidden}
	ErrUnauthorized = &Error{Kind: KindUnauthorized}
)

// New returns an error of kind with a caller-safe message.
func New(kind Kind, msg string) error { return &Error{Kind: kind, Message: msg} }

// Wrap returns an error of kind with a caller-safe message and a cause.
func Wrap(kind Kind, msg string, cause error) error {
	return &Error{Kind: kind, Message: msg, Err: cause}
}

// NotFound is a 404 with msg.
func NotFound(msg string) error { return New(KindNotFound, msg) }

// Conflict is a 409 with msg.
func Conflict(msg string) error { return New(KindConflict, msg) }

// Forbidden is a 403 with msg.
func Forbidden(msg string) error { return New(KindForbidden, msg) }

// Unauthorized is a 401 with msg.
func Unauthorized(msg string) error { return New(KindUnauthorized, msg) }

// BadRequest is a 400 with msg.
func BadRequest(msg string) error { return New(KindBadRequest, msg) }

// Unavailable is a 503 asking the caller to come back after retryAfter.
func Unavailable(msg string, retryAfter time.Duration, cause error) error {
	return &Error{Kind: KindUnavailable, Message: msg, Err: cause, RetryAfter: retryAfter}
}

// KindOf reports the kind of err; unclassified errors are internal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	var v *Validation
	if errors.As(err, &v) {
		return KindBadRequest
	}
	return KindInternal
}

// FieldError is one field-level problem of a validation failure. Loc is the
// path to the field, starting with where it was sent ("body", "query",
// "path", "header"), e.g. ["body", "email"].
type FieldError struct {
	Loc  []string
	Msg  string
	Type string
}

// Validation is a 422: a list of field problems.
type Validation struct {
	Fields []FieldError
}

func (v *Validation) Error() string {
	parts := make([]string, len(v.Fields))
	for i, f := range v.Fields {
		parts[i] = strings.Join(f.Loc, ".") + ": " + f.Msg
	}
	return "validation failed: " + strings.Join(parts, "; ")
}

// Invalid is a 422 for one field. loc is dotted, e.g. "body.email".
func Invalid(loc, msg, typ string) error {
	return &Validation{Fields: []FieldError{{Loc: strings.Split(loc, "."), Msg: msg, Type: typ}}}
}

// RateLimited is a 429. The ceiling itself is never part of the error: the
// spec forbids publishing it.
type RateLimited struct {
	RetryAfter time.Duration
}

func (e *RateLimited) Error() string {
	return fmt.Sprintf("rate limited; retry after %s", e.RetryAfter)
}

// FeatureError is a 403 for a plan feature the workspace does not have.
type FeatureError struct {
	Feature string
	Message string
}

func (e *FeatureError) Error() string { return "feature not available: " + e.Feature }

// InsufficientCredits is a 402.
type InsufficientCredits struct {
	Required  int64
	Available int64
}

func (e *InsufficientCredits) Error() string {
	return fmt.Sprintf("insufficient credits: required %d, available %d", e.Required, e.Available)
}

// SubscriptionRequired is a 403 on actions that need an active subscription.
type SubscriptionRequired struct {
	Message string
}

func (e *SubscriptionRequired) Error() string { return "subscription required: " + e.Message }

// LimitReached is a 403 when a plan limit (chatbots, documents, ...) is
// reached. Limit names the limit, Max its value on the current plan.
type LimitReached struct {
	Limit   string
	Max     int64
	Message string
}

func (e *LimitReached) Error() string {
	return fmt.Sprintf("plan limit reached: %s (%d)", e.Limit, e.Max)
}

// Refused is a 409 for an action the resource's current state does not
// allow, with a machine-readable code (e.g. a follow-up to an address
// validation found undeliverable). Extra fields join the detail object.
type Refused struct {
	Code    string
	Message string
	Extra   map[string]any
}

func (e *Refused) Error() string { return "refused: " + e.Code + ": " + e.Message }
