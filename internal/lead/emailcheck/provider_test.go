package emailcheck

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// verificationServer is an in-process verification service speaking the
// wire format HTTPProvider documents. It checks every request it gets and
// answers with the status and body the test chose.
func verificationServer(t *testing.T, token string, status int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			t.Errorf("method %s, want POST", r.Method)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		wantAuth := ""
		if token != "" {
			wantAuth = "Bearer " + token
		}
		if got := r.Header.Get("Authorization"); got != wantAuth {
			t.Errorf("Authorization %q, want %q", got, wantAuth)
		}
		if r.URL.RawQuery != "" {
			t.Errorf("query %q: the address must not travel in the URL", r.URL.RawQuery)
		}
		var req struct {
			Email string `json:"email"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Email == "" {
			t.Errorf("request body: %v %+v", err, req)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPProvider(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		want    ProviderResult
		wantErr string
	}{
		{"deliverable", 200, `{"result":"deliverable"}`, ProviderResult{Verdict: ProviderDeliverable}, ""},
		{"undeliverable with reason", 200, `{"result":"undeliverable","reason":"mailbox not found","score":0.1}`,
			ProviderResult{Verdict: ProviderUndeliverable, Reason: "mailbox not found"}, ""},
		{"catch-all", 200, `{"result":"catch_all"}`, ProviderResult{Verdict: ProviderCatchAll}, ""},
		{"unknown", 200, `{"result":"unknown"}`, ProviderResult{Verdict: ProviderUnknown}, ""},
		{"unrecognised result", 200, `{"result":"risky"}`, ProviderResult{}, `unrecognised result "risky"`},
		{"missing result", 200, `{}`, ProviderResult{}, `unrecognised result ""`},
		{"not json", 200, `<html>`, ProviderResult{}, "decode verification response"},
		{"server error", 500, `{"result":"undeliverable"}`, ProviderResult{}, "answered 500"},
		{"rate limited", 429, ``, ProviderResult{}, "answered 429"},
		{"oversized body", 200, `{"result":"unknown","pad":"` + strings.Repeat("x", maxProviderBody) + `"}`, ProviderResult{}, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := verificationServer(t, "s3cret", tt.status, tt.body)
			p, err := NewHTTPProvider(srv.Client(), srv.URL+"/v1/verify", "s3cret")
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Verify(context.Background(), "jane@acme.io")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "jane@acme.io") {
					t.Errorf("error %q leaks the address", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Verify mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHTTPProviderWithoutToken(t *testing.T) {
	srv := verificationServer(t, "", 200, `{"result":"deliverable"}`)
	p, err := NewHTTPProvider(srv.Client(), srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Verify(context.Background(), "jane@acme.io"); err != nil || got.Verdict != ProviderDeliverable {
		t.Errorf("Verify = %+v, %v", got, err)
	}
}

// TestHTTPProviderThroughChecker drives the production client end to end:
// an undeliverable answer blocks, a down or slow service fails open.
func TestHTTPProviderThroughChecker(t *testing.T) {
	t.Run("undeliverable", func(t *testing.T) {
		srv := verificationServer(t, "", 200, `{"result":"undeliverable","reason":"550 no such user"}`)
		p, err := NewHTTPProvider(srv.Client(), srv.URL, "")
		if err != nil {
			t.Fatal(err)
		}
		c, _, _ := newTestChecker(t, Config{Provider: p}, nil)
		got := c.Check(context.Background(), "jane@acme.io")
		want := Result{Verdict: VerdictUndeliverable, Reason: "550 no such user", Normalized: "jane@acme.io"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("down", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		client := srv.Client()
		url := srv.URL
		srv.Close() // connection refused from now on
		p, err := NewHTTPProvider(client, url, "")
		if err != nil {
			t.Fatal(err)
		}
		c, _, _ := newTestChecker(t, Config{Provider: p}, nil)
		if got := c.Check(context.Background(), "jane@acme.io"); !got.Valid || got.Verdict != VerdictUnknown {
			t.Errorf("Check with the service down = %+v, want valid/unknown", got)
		}
	})
	t.Run("slow", func(t *testing.T) {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer srv.Close()
		defer close(release)
		p, err := NewHTTPProvider(srv.Client(), srv.URL, "")
		if err != nil {
			t.Fatal(err)
		}
		c, _, _ := newTestChecker(t, Config{Provider: p, ProviderTimeout: 30 * time.Millisecond}, nil)
		if got := c.Check(context.Background(), "jane@acme.io"); !got.Valid || got.Verdict != VerdictUnknown {
			t.Errorf("Check with a slow service = %+v, want valid/unknown", got)
		}
	})
}

func TestNewHTTPProviderValidates(t *testing.T) {
	client := &http.Client{}
	for _, tt := range []struct {
		client   *http.Client
		endpoint string
	}{
		{nil, "https://verify.example.net/v1"},
		{client, ""},
		{client, "verify.example.net/v1"},
		{client, "ftp://verify.example.net/v1"},
		{client, "https:///v1"},
		{client, "https://verify.example.net/%zz"},
	} {
		if _, err := NewHTTPProvider(tt.client, tt.endpoint, ""); err == nil {
			t.Errorf("NewHTTPProvider(%v, %q) succeeded, want an error", tt.client != nil, tt.endpoint)
		}
	}
	if _, err := NewHTTPProvider(client, "https://verify.example.net/v1", "tok"); err != nil {
		t.Errorf("valid configuration refused: %v", err)
	}
}
