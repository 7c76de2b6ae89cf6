package mail

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// secret is what a real password may look like; URLs must percent-encode it.
const secret = "s3cr3t/p@ss:w%rd"

// leaky has no characters that make url.Parse fail outright, so the
// rejection cases built from it reach the later checks.
const leaky = "hunter2xyz"

func TestParseSMTPURL(t *testing.T) {
	type parsed struct {
		Host     string
		Port     int
		User     string
		Pass     string
		TLS      tlsMode
		Timeout  time.Duration
		Helo     string
		Insecure bool
		String   string
	}
	tests := []struct {
		url  string
		want parsed
	}{
		{"smtp://user:pass@mail.example.com:587", parsed{
			Host: "mail.example.com", Port: 587, User: "user", Pass: "pass", TLS: tlsStartTLS,
			Timeout: defaultSMTPTimeout, String: "smtp://user:***@mail.example.com:587",
		}},
		{"smtp://mail.example.com", parsed{
			Host: "mail.example.com", Port: 587, TLS: tlsStartTLS, Timeout: defaultSMTPTimeout,
			String: "smtp://mail.example.com:587",
		}},
		{"smtp://localhost:25?tls=none", parsed{
			Host: "localhost", Port: 25, TLS: tlsNone, Timeout: defaultSMTPTimeout,
			String: "smtp://localhost:25?tls=none",
		}},
		{"smtp://relay:25?tls=opportunistic&timeout=10s&helo=app.example.com", parsed{
			Host: "relay", Port: 25, TLS: tlsOpportunistic, Timeout: 10 * time.Second, Helo: "app.example.com",
			String: "smtp://relay:25?helo=app.example.com&timeout=10s&tls=opportunistic",
		}},
		{"smtps://user%40example.com:p%2Fw%3Ad@smtp.example.com", parsed{
			Host: "smtp.example.com", Port: 465, User: "user@example.com", Pass: "p/w:d", TLS: tlsImplicit,
			Timeout: defaultSMTPTimeout, String: "smtps://user%40example.com:***@smtp.example.com:465",
		}},
		{"smtps://u:p@[::1]:2465?insecure_skip_verify=true", parsed{
			Host: "::1", Port: 2465, User: "u", Pass: "p", TLS: tlsImplicit, Timeout: defaultSMTPTimeout,
			Insecure: true, String: "smtps://u:***@[::1]:2465?insecure_skip_verify=true",
		}},
		{"smtp://apikey@relay:2525?tls=starttls", parsed{
			Host: "relay", Port: 2525, User: "apikey", TLS: tlsStartTLS, Timeout: defaultSMTPTimeout,
			String: "smtp://apikey@relay:2525?tls=starttls",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			s, err := NewSMTP(tt.url, "", nil)
			if err != nil {
				t.Fatalf("NewSMTP: %v", err)
			}
			c := s.cfg
			got := parsed{c.host, c.port, c.user, c.pass, c.tls, c.timeout, c.helo, c.insecure, s.String()}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSMTPURLRejects(t *testing.T) {
	tests := []string{
		"",
		"http://host",
		"smtp://",
		"smtp://:" + secret + "@host",
		"smtp://host:0",
		"smtp://host:70000",
		"smtp://host/path",
		"smtp://host?tls=bogus",
		"smtp://host?tsl=none",
		"smtp://host?timeout=-1s",
		"smtp://host?timeout=soon",
		"smtp://host?insecure_skip_verify=maybe",
		"smtp://host?helo=two%20words",
		"smtp://host?tls=none&tls=starttls",
		"smtps://host?tls=none",
		"smtps://host?tls=starttls",
		// Passwords with unescaped special characters must not leak through
		// whatever the parser made of them.
		"smtp://user:" + secret + "@host:587",
		"smtp://user:" + leaky + "@host:notaport",
		"smtp://user:pa?ss" + leaky + "@host",
		"smtp://user:pa?tls=" + leaky + "@host",
		"smtp://user:pa#ss" + leaky + "@host",
		"smtp://user:1234/" + leaky + "@host",
		"smtp://user:12345678",
	}
	for _, raw := range tests {
		t.Run(raw, func(t *testing.T) {
			_, err := NewSMTP(raw, "", nil)
			if err == nil {
				t.Fatal("NewSMTP accepted it")
			}
			t.Logf("NewSMTP: %v", err)
			for _, leak := range []string{"s3cr3t", leaky, "12345678"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("error %q contains password material %q", err, leak)
				}
			}
		})
	}
}

func TestNewPicksTransport(t *testing.T) {
	dataDir := t.TempDir()
	m, err := New("", dataDir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := m.(*Outbox)
	if !ok || o.Dir() != dataDir+"/outbox" {
		t.Errorf("New without URL = %T %v, want *Outbox in %s/outbox", m, m, dataDir)
	}

	m, err = New("smtp://relay:25?tls=none", dataDir, "Shop <shop@example.com>", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(*SMTP); !ok {
		t.Errorf("New with URL = %T, want *SMTP", m)
	}

	if _, err := New("", "", "", nil); err == nil {
		t.Error("New without URL or data dir succeeded")
	}
	if _, err := New("smtp://relay", dataDir, "bad from", nil); err == nil {
		t.Error("New accepted an invalid from address")
	}
}
