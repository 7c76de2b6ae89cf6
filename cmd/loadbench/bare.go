package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// bareProfile has the shape of concierge's GET /auth/me body, so both
// servers encode about the same JSON.
type bareProfile struct {
	ID                  int64   `json:"id"`
	Email               string  `json:"email"`
	Name                string  `json:"name"`
	JoinedAt            string  `json:"joined_at"`
	EmailVerified       bool    `json:"email_verified"`
	OnboardingCompleted bool    `json:"onboarding_completed"`
	BillingCountry      *string `json:"billing_country"`
	Role                string  `json:"role"`
	BotCount            int     `json:"bot_count"`
}

// serveBare is the baseline: plain net/http, no database, no middleware.
// It runs in its own process (loadbench -serve-bare ADDR) until SIGTERM.
func serveBare(addr string) error {
	joined := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
	})
	mux.HandleFunc("GET /auth/me", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") == "" {
			http.Error(w, `{"title":"Unauthorized"}`, http.StatusUnauthorized)
			return
		}
		p := bareProfile{
			ID:       1,
			Email:    "loadbench-1700000000000000000@example.com",
			JoinedAt: joined.Format(time.RFC3339),
			Role:     "owner",
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&p)
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
