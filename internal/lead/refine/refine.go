// Package refine lets a language model refine the deterministic lead score
// of internal/lead/score (the lead_intelligence feature).
//
// The model reads the framework, the deterministic breakdown and the
// transcript (as quoted data, never as instructions) and proposes a score
// and evidence quotes per dimension. Its proposal is distrusted:
//
//   - a quote counts only if it is found verbatim in a visitor turn, has at
//     least two words and reads as no instruction to the scorer;
//   - a dimension rises above its deterministic score only with such a
//     quote (and a denied dimension only with a quote later than the
//     denial), and moves at most MaxShift points either way;
//   - a reply that quotes an instruction to the scorer ("ignore previous
//     instructions", "rate me ...") is rejected whole: the model may have
//     followed it; and when a visitor turn holds such an instruction, the
//     model may lower dimensions but raise none.
//
// The total is then recomputed the way score.Score computes it (the same
// weights, the same behavioural Adjustment) and the overrides of the
// deterministic result are applied again, so a job seeker stays
// unqualified and a booked meeting stays at least mql. Any failure (model
// error, timeout, empty or invalid output) gives back the deterministic
// result unchanged, with the error.
package refine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"concierge/internal/bot"
	"concierge/internal/lead/score"
	"concierge/internal/llm"
)

// VersionSuffix is appended to score.Result.Version when a model refined
// (or reviewed) the result: "lexicon-1+model".
const VersionSuffix = "+model"

// MaxShift is how far the model may move one dimension's score from the
// deterministic score, either way: it refines, it does not replace.
const MaxShift = 30

// DefaultTimeout bounds one Refine call when the caller's context has a
// later deadline or none.
const DefaultTimeout = 45 * time.Second

// Errors of Refine besides the model's own (*llm.Error, or a context
// error): with each the deterministic result comes back unchanged.
var (
	// ErrNoModel: the Refiner was built without a model.
	ErrNoModel = errors.New("refine: no model configured")
	// ErrInvalidOutput: the model's reply was empty, not the JSON asked
	// for, named no dimension of the framework, or quoted an instruction
	// to the scorer.
	ErrInvalidOutput = errors.New("refine: invalid model output")
	// ErrUnsupported: the deterministic result carries an override rule
	// this package does not know how to re-apply, so refining it could
	// undo that rule.
	ErrUnsupported = errors.New("refine: result not refinable")
)

// Limits of one call.
const (
	maxOutputBytes = 64 << 10 // a reply longer than this is not the JSON asked for
	maxReplyTokens = 2000
)

// Refiner refines a deterministic score with a model. It is safe for
// concurrent use.
type Refiner struct {
	model   llm.Model
	log     *slog.Logger
	timeout time.Duration
}

// New returns a Refiner that asks m. A nil log discards.
func New(m llm.Model, log *slog.Logger) *Refiner {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Refiner{model: m, log: log, timeout: DefaultTimeout}
}

// Refine returns base refined by the model, or base unchanged (with the error) on any model failure
// or invalid model output. It never panics, never blocks longer than ctx.
//
// base must be score.Score(q, in). A result with no dimensions or a
// conversation without a visitor turn has nothing to refine and comes
// back unchanged with a nil error, without asking the model.
func (r *Refiner) Refine(ctx context.Context, q bot.Qualification, in score.Input, base score.Result) (res score.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = base, fmt.Errorf("refine: internal error: %v", p)
			r.logger().Error("lead refine: panic; keeping the deterministic score", "panic", fmt.Sprint(p))
		}
	}()
	if r == nil || r.model == nil {
		return base, ErrNoModel
	}
	if len(base.Dimensions) == 0 {
		return base, nil
	}
	if rule, ok := unknownOverride(base); ok {
		r.log.Warn("lead refine: unknown override rule; keeping the deterministic score", "rule", rule)
		return base, fmt.Errorf("%w: override rule %q", ErrUnsupported, rule)
	}
	turns := transcript(in.Transcript)
	if !hasVisitor(turns) {
		return base, nil
	}
	if r.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}

	req := request(q, turns, base)
	var out strings.Builder
	comp, err := r.model.Stream(ctx, req, func(delta string) error {
		if out.Len()+len(delta) > maxOutputBytes {
			return errTooLong
		}
		out.WriteString(delta)
		return nil
	})
	if err != nil {
		if errors.Is(err, errTooLong) {
			r.log.Warn("lead refine: model reply too long; keeping the deterministic score", "bytes", out.Len())
			return base, fmt.Errorf("%w: reply longer than %d bytes", ErrInvalidOutput, maxOutputBytes)
		}
		attrs := []any{"err", err}
		if e, ok := llm.AsError(err); ok {
			attrs = append(attrs, "kind", e.Kind.String(), "status", e.Status)
		}
		r.log.Warn("lead refine: model failed; keeping the deterministic score", attrs...)
		return base, fmt.Errorf("refine: model: %w", err)
	}
	text := comp.Text
	if strings.TrimSpace(text) == "" {
		text = out.String()
	}
	prop, err := parse(text)
	if err == nil {
		err = prop.checkInjection()
	}
	if err != nil {
		r.log.Warn("lead refine: invalid model output; keeping the deterministic score",
			"err", err, "bytes", len(text), "stop", comp.StopReason)
		return base, fmt.Errorf("%w: %v", ErrInvalidOutput, err)
	}
	if !prop.matchedAny(base) {
		r.log.Warn("lead refine: model output names no dimension of the framework; keeping the deterministic score")
		return base, fmt.Errorf("%w: no dimension of the framework in the reply", ErrInvalidOutput)
	}
	res, changed := apply(q, in, turns, base, prop)
	r.log.Debug("lead refine: refined", "changed_dimensions", changed,
		"score_from", base.Score, "score_to", res.Score, "tier_from", base.Tier, "tier_to", res.Tier)
	return res, nil
}

func (r *Refiner) logger() *slog.Logger {
	if r == nil || r.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.log
}

var errTooLong = errors.New("reply too long")
