package httpapi

import (
	"bytes"
	"context"
	"io"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"

	"concierge/internal/apperr"
)

type rawBodyKey struct{}

// rawBody returns the request body kept by keepRawBody.
func rawBody(ctx context.Context) []byte {
	b, _ := ctx.Value(rawBodyKey{}).([]byte)
	return b
}

// keepRawBody reads the body of routes that ask for it (bounded by the
// route's limit), hands huma an identical copy to decode and validate, and
// keeps the bytes for the handler: a partial update must know which fields
// were sent, which a decoded struct cannot tell.
func (s *Server) keepRawBody(ctx huma.Context, next func(huma.Context)) {
	if want, _ := ctx.Operation().Metadata[metaRawBody].(bool); !want {
		next(ctx)
		return
	}
	r, _ := humachi.Unwrap(ctx)
	limit := ctx.Operation().MaxBodyBytes
	raw, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err == nil && int64(len(raw)) > limit {
		s.writeErr(ctx, apperr.New(apperr.KindTooLarge, "request body is too large"))
		return
	}
	if err != nil {
		s.writeErr(ctx, apperr.BadRequest("cannot read the request body"))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	next(huma.WithValue(ctx, rawBodyKey{}, raw))
}
