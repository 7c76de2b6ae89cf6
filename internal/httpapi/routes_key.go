package httpapi

import (
	"context"
	"net/http"
)

func (s *Server) keyRoutes() {
	tags := []string{"API key"}
	register(s, route{id: "get-api-key", method: http.MethodGet, path: "/client/api-key", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Read the workspace API key"},
		func(ctx context.Context, _ *noInput) (*apiKeyOutput, error) {
			key, err := s.accounts.APIKey(ctx, principal(ctx).WorkspaceID())
			if err != nil {
				return nil, err
			}
			return apiKey(key), nil
		})

	register(s, route{id: "regenerate-api-key", method: http.MethodPost, path: "/client/api-key/regenerate", tags: tags,
		creds: credWorkspace, limit: limitBilling, summary: "Rotate the workspace API key",
		desc: "Returns the new key. The previous key stops working immediately: its next request is a 401."},
		func(ctx context.Context, _ *noInput) (*apiKeyOutput, error) {
			key, err := s.accounts.RegenerateKey(ctx, principal(ctx).WorkspaceID())
			if err != nil {
				return nil, err
			}
			return apiKey(key), nil
		})
}
