package httpapi

import (
	"bytes"
	"context"
	"io"
	"net/http"

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

// limitBody bounds every request body by its route's limit before anything
// reads it: huma bounds JSON bodies itself, but multipart forms are parsed
// by net/http, which would otherwise read (and spill to disk) any size.
func (s *Server) limitBody(ctx huma.Context, next func(huma.Context)) {
	limit := ctx.Operation().MaxBodyBytes
	r, w := humachi.Unwrap(ctx)
	if limit > 0 {
		if r.ContentLength > limit {
			s.writeErr(ctx, apperr.New(apperr.KindTooLarge, "request body is too large"))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
	}
	next(ctx)
}
