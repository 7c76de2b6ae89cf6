package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
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

// bareReply has the shape of concierge's POST /chat body (chat.Reply).
type bareReply struct {
	SessionID string       `json:"session_id"`
	MessageID string       `json:"message_id,omitempty"`
	Reply     string       `json:"reply"`
	Sources   []bareSource `json:"sources"`
	Answered  bool         `json:"answered"`
	Offline   bool         `json:"offline,omitempty"`
	Preview   bool         `json:"preview,omitempty"`
	Credits   int64        `json:"credits_charged"`
}

type bareSource struct {
	Title        string  `json:"title"`
	URL          string  `json:"url,omitempty"`
	DocumentName string  `json:"document_name"`
	Snippet      string  `json:"snippet"`
	Score        float64 `json:"score"`
}

// bareAnswer is a typical extractive reply from the chat scenario's
// handbook: four sentences and one source (the sentences come from one
// document), so that its body is about as long as concierge's (about
// 900 bytes).
var bareAnswer = bareReply{
	MessageID: "msg_019aab12cd34AAAAAAAAAAAAAAAA", // the shape of secret.OrderedToken("msg_", 12)
	Reply: "You can return the Aurora electric kettle AE-1042 within 14 days of delivery if it is unused and in its " +
		"original packaging. Opened items can be returned within 9 days only when they are faulty. Refunds reach the " +
		"original payment method within 5 business days after we receive the parcel. The Aurora electric kettle has a " +
		"2-year warranty that covers manufacturing defects but not accidental damage.",
	Sources: []bareSource{{Title: "Product handbook, part 27", DocumentName: "handbook-027.md", Score: 12.3456,
		Snippet: "You can return the Aurora electric kettle AE-1042 within 14 days of delivery if it is unused and in its " +
			"original packaging. Opened items can be returned within 9 days only when they are faulty. Refunds reach the " +
			"original payment…"}},
	Answered: true,
	Credits:  1,
}

// bareChat decodes the question and answers a canned reply: the JSON work
// of a chat request without retrieval, answering or the database.
func bareChat(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Bot-Key") == "" {
		http.Error(w, `{"title":"Unauthorized"}`, http.StatusUnauthorized)
		return
	}
	var in struct {
		Message   string `json:"message"`
		SessionID string `json:"session_id"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&in); err != nil || in.Message == "" {
		http.Error(w, `{"title":"Unprocessable Entity"}`, http.StatusUnprocessableEntity)
		return
	}
	out := bareAnswer
	out.SessionID = in.SessionID
	if out.SessionID == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		out.SessionID = "cs_019aab12cd34" + base64.RawURLEncoding.EncodeToString(b[:])
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&out)
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
	mux.HandleFunc("POST /chat", bareChat)
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
