package mail

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"concierge/internal/mail/mailtest"
)

func newTestSMTP(t *testing.T, rawURL string) (*SMTP, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	s, err := NewSMTP(rawURL, "Concierge <no-reply@concierge.test>", slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatalf("NewSMTP: %v", err)
	}
	return s, &logs
}

// withPassword rewrites a mailtest URL to carry a different password.
func withPassword(t *testing.T, rawURL, pass string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), pass)
	return u.String()
}

func TestSMTPDeliversMessage(t *testing.T) {
	srv := mailtest.NewServer(t)
	s, logs := newTestSMTP(t, srv.URL())
	msg := Message{
		ID:      "lead-7",
		To:      []string{"Alice <alice@example.com>", "bob@example.com"},
		ReplyTo: "sales@example.com",
		Subject: "Your verification code",
		Text:    "Your code is 482913.\nSee https://example.com/v?a=b&c=d\n",
		HTML:    "<p>Your code is <b>482913</b>.</p>",
		Headers: map[string]string{"X-Concierge-Kind": "verification"},
	}
	if err := s.Send(context.Background(), msg); err != nil {
		t.Fatalf("Send: %v", err)
	}

	got := srv.Messages()
	if len(got) != 1 {
		t.Fatalf("server received %d messages, want 1", len(got))
	}
	want := mailtest.Received{
		From:    "no-reply@concierge.test",
		To:      []string{"alice@example.com", "bob@example.com"},
		Subject: "Your verification code",
		Text:    "Your code is 482913.\nSee https://example.com/v?a=b&c=d\n",
		HTML:    "<p>Your code is <b>482913</b>.</p>",
	}
	if diff := cmp.Diff(want, got[0], cmpopts.IgnoreFields(mailtest.Received{}, "Data")); diff != "" {
		t.Errorf("received (-want +got):\n%s", diff)
	}
	for _, header := range []string{
		"From: \"Concierge\" <no-reply@concierge.test>",
		"To: \"Alice\" <alice@example.com>, <bob@example.com>",
		"Reply-To: <sales@example.com>",
		"Message-ID: <lead-7@concierge.test>",
		"X-Concierge-Kind: verification",
	} {
		if !bytes.Contains(got[0].Data, []byte(header+"\r\n")) {
			t.Errorf("DATA lacks header line %q:\n%s", header, got[0].Data)
		}
	}
	if strings.Contains(logs.String(), "482913") {
		t.Errorf("log contains the code from the body: %s", logs)
	}
	if !strings.Contains(logs.String(), `msg="mail sent"`) || !strings.Contains(logs.String(), "level=INFO") {
		t.Errorf("missing INFO \"mail sent\" log line: %s", logs)
	}
}

func TestSMTPAuth(t *testing.T) {
	tests := []struct {
		name string
		opts []mailtest.Option
	}{
		{"plaintext with tls=none", nil},
		{"STARTTLS", []mailtest.Option{mailtest.WithSTARTTLS()}},
		{"implicit TLS", []mailtest.Option{mailtest.WithImplicitTLS()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mailtest.NewServer(t, append(tt.opts, mailtest.WithAuth("concierge", secret))...)
			s, logs := newTestSMTP(t, srv.URL())
			if strings.Contains(s.String(), secret) {
				t.Errorf("String() = %q contains the password", s)
			}
			if err := s.Send(context.Background(), validMessage()); err != nil {
				t.Fatalf("Send: %v", err)
			}
			if n := len(srv.Messages()); n != 1 {
				t.Fatalf("server received %d messages, want 1", n)
			}

			wrong, _ := newTestSMTP(t, withPassword(t, srv.URL(), "wrong-"+secret))
			err := wrong.Send(context.Background(), validMessage())
			t.Logf("Send with a wrong password: %v", err)
			if !IsPermanent(err) || replyCode(err) != 535 {
				t.Fatalf("Send with a wrong password = %v, want a permanent 535 error", err)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(logs.String(), secret) {
				t.Errorf("password leaked: error %q, log %q", err, logs)
			}
		})
	}
}

func TestSMTPErrorClassification(t *testing.T) {
	tests := []struct {
		name      string
		server    []mailtest.Option
		url       func(srv *mailtest.Server) string
		fail      int
		permanent bool
		wantIs    error
	}{
		{"550 on RCPT", nil, (*mailtest.Server).URL, 550, true, nil},
		{"451 on RCPT", nil, (*mailtest.Server).URL, 451, false, nil},
		{"421 on RCPT", nil, (*mailtest.Server).URL, 421, false, nil},
		{"STARTTLS required but not offered", nil, func(srv *mailtest.Server) string {
			return "smtp://" + srv.Addr()
		}, 0, true, errSTARTTLSRequired},
		{"credentials over plaintext with tls=opportunistic", []mailtest.Option{mailtest.WithAuth("u", secret)},
			func(srv *mailtest.Server) string {
				return "smtp://u:" + url.PathEscape(secret) + "@" + srv.Addr() + "?tls=opportunistic"
			}, 0, true, errAuthNeedsTLS},
		{"untrusted certificate", []mailtest.Option{mailtest.WithSTARTTLS()}, func(srv *mailtest.Server) string {
			return "smtp://" + srv.Addr() + "?tls=starttls"
		}, 0, true, nil},
		{"relay offers no AUTH", nil, func(srv *mailtest.Server) string {
			return "smtp://u:" + url.PathEscape(secret) + "@" + srv.Addr() + "?tls=none"
		}, 0, true, errAuthNoMechanism},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mailtest.NewServer(t, tt.server...)
			if tt.fail != 0 {
				srv.FailNext(tt.fail, "go away")
			}
			s, _ := newTestSMTP(t, tt.url(srv))
			err := s.Send(context.Background(), validMessage())
			if err == nil {
				t.Fatal("Send succeeded, want an error")
			}
			t.Logf("Send: %v", err)
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Send = %v, want it to wrap %v", err, tt.wantIs)
			}
			if got := IsPermanent(err); got != tt.permanent {
				t.Errorf("IsPermanent(%v) = %v, want %v", err, got, tt.permanent)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q contains the password", err)
			}
			if n := len(srv.Messages()); n != 0 {
				t.Errorf("server accepted %d messages despite the failure", n)
			}
		})
	}
}

func TestSMTPRetryAfterTemporaryFailure(t *testing.T) {
	srv := mailtest.NewServer(t)
	srv.FailNext(451, "greylisted")
	s, _ := newTestSMTP(t, srv.URL())
	if err := s.Send(context.Background(), validMessage()); err == nil || IsPermanent(err) {
		t.Fatalf("first Send = %v, want a temporary error", err)
	}
	if err := s.Send(context.Background(), validMessage()); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if n := len(srv.Messages()); n != 1 {
		t.Errorf("server received %d messages, want exactly 1", n)
	}
}

func TestSMTPConnectionRefusedIsTemporary(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	s, _ := newTestSMTP(t, "smtp://u:"+url.PathEscape(secret)+"@"+addr+"?tls=none")
	err = s.Send(context.Background(), validMessage())
	if err == nil || IsPermanent(err) {
		t.Fatalf("Send = %v, want a temporary error", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error %q contains the password", err)
	}
}

func TestSMTPSilentServerHonoursContextDeadline(t *testing.T) {
	// Accepts connections and never says a word.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = conn.Close() })
		}
	}()

	// The per-command timeout is far beyond the ctx deadline: only ctx can
	// end this Send in time.
	s, _ := newTestSMTP(t, "smtp://"+ln.Addr().String()+"?tls=none&timeout=1m")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = s.Send(ctx, validMessage())
	elapsed := time.Since(start)
	if elapsed > 5*time.Second {
		t.Fatalf("Send took %v despite a 200ms deadline", elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) || IsPermanent(err) {
		t.Fatalf("Send = %v, want a temporary error wrapping context.DeadlineExceeded", err)
	}
}

func TestSMTPInvalidMessageIsPermanentAndNotSent(t *testing.T) {
	srv := mailtest.NewServer(t)
	s, _ := newTestSMTP(t, srv.URL())
	err := s.Send(context.Background(), Message{To: []string{"a@b.com\r\nBcc: x@y.com"}, Text: "x"})
	if !IsPermanent(err) || !errors.Is(err, ErrInvalidMessage) {
		t.Fatalf("Send = %v, want a permanent ErrInvalidMessage", err)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Errorf("server received %d messages, want 0", n)
	}
}
