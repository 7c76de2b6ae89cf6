// Package llm is the outside world of language models: one small interface
// that the chat area consumes, clients for OpenAI-compatible
// chat-completions servers and for Anthropic's Messages API, and (in
// llmtest) fakes that speak both wire protocols.
package llm

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Message is one turn of the conversation sent to a model.
type Message struct {
	Role    string // RoleUser or RoleAssistant
	Content string
}

// Roles of a Message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Request is one completion.
type Request struct {
	System      string // instructions; the retrieved passages go in here as quoted data
	Messages    []Message
	MaxTokens   int     // 0: the client's default
	Temperature float64 // 0 is a valid value (deterministic)
}

// Completion is a finished reply.
type Completion struct {
	Text                      string
	InputTokens, OutputTokens int
	StopReason                string
}

// StopReason values shared by every provider, so that the caller can tell
// a truncated reply from a finished one without knowing the provider's
// vocabulary. A reason with no common meaning is passed through as the
// provider spelled it.
const (
	StopEnd       = "end"        // the model finished its turn (or hit a stop sequence)
	StopMaxTokens = "max_tokens" // the reply hit MaxTokens and is truncated
	StopRefused   = "refused"    // the provider's safety filter ended the reply
)

// Model streams completions. onDelta receives the reply's text as it
// arrives, in order; an error from onDelta stops the stream and is
// returned. Implementations retry rate limits and server errors a bounded
// number of times, but only while nothing has been passed to onDelta.
type Model interface {
	Name() string
	Stream(ctx context.Context, req Request, onDelta func(text string) error) (Completion, error)
}

// Kind classifies a model failure for the caller's answer to its client.
type Kind int

const (
	KindUnavailable Kind = iota // 5xx, connection refused or reset: retry later
	KindRateLimited             // 429 that is not a spent quota: retry later
	KindTimeout                 // the deadline passed
	KindQuota                   // the account's quota or credit is spent: never retried
	KindCut                     // the stream ended before the model finished
	KindRejected                // 4xx other than the above (bad request, auth, model name)
)

func (k Kind) String() string {
	switch k {
	case KindUnavailable:
		return "unavailable"
	case KindRateLimited:
		return "rate_limited"
	case KindTimeout:
		return "timeout"
	case KindQuota:
		return "quota_exhausted"
	case KindCut:
		return "stream_cut"
	case KindRejected:
		return "rejected"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is a failure of the model provider. It never carries the
// provider's API key or the request body.
type Error struct {
	Kind       Kind
	Status     int           // HTTP status from the provider, 0 when none
	RetryAfter time.Duration // the provider's Retry-After, when it sent one
	Err        error
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("llm: %s (status %d): %v", e.Kind, e.Status, e.Err)
	}
	return fmt.Sprintf("llm: %s: %v", e.Kind, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// AsError returns err's *Error, if it has one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
