package mailtest

import (
	"net/smtp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func send(t *testing.T, s *Server, msg string) error {
	t.Helper()
	return smtp.SendMail(s.Addr(), nil, "sender@example.com", []string{"rcpt@example.com"},
		[]byte(strings.ReplaceAll(msg, "\n", "\r\n")))
}

func TestServerParsesMultipartMessages(t *testing.T) {
	s := NewServer(t)
	err := send(t, s, `From: sender@example.com
To: rcpt@example.com
Subject: =?UTF-8?q?Gr=C3=BC=C3=9Fe?=
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary=outer

--outer
Content-Type: multipart/alternative; boundary=inner

--inner
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: quoted-printable

Code: 482913, link https://x/?a=3Db
--inner
Content-Type: text/html; charset=UTF-8
Content-Transfer-Encoding: base64

PHA+aGk8L3A+
--inner--
--outer--
`)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Messages()
	want := []Received{{
		From:    "sender@example.com",
		To:      []string{"rcpt@example.com"},
		Subject: "Grüße",
		Text:    "Code: 482913, link https://x/?a=b",
		HTML:    "<p>hi</p>",
	}}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Received{}, "Data")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(string(got[0].Data), "From: sender@example.com\r\n") {
		t.Errorf("Data is not the raw message: %q", got[0].Data)
	}
}

func TestServerFailNextQueuesPerTransaction(t *testing.T) {
	s := NewServer(t)
	s.FailNext(451, "try later")
	s.FailNext(550, "no such user")
	msg := "Subject: hi\n\nbody\n"

	err := send(t, s, msg)
	if err == nil || !strings.HasPrefix(err.Error(), "451") {
		t.Fatalf("first send = %v, want 451", err)
	}
	err = send(t, s, msg)
	if err == nil || !strings.HasPrefix(err.Error(), "550") {
		t.Fatalf("second send = %v, want 550", err)
	}
	if err := send(t, s, msg); err != nil {
		t.Fatalf("third send = %v, want success", err)
	}
	got := s.Messages()
	if len(got) != 1 || got[0].Text != "body\n" || got[0].Subject != "hi" {
		t.Errorf("Messages() = %+v, want exactly the third message", got)
	}
}

func TestServerWaitForMessages(t *testing.T) {
	s := NewServer(t)
	if _, err := s.WaitForMessages(1, 50*time.Millisecond); err == nil {
		t.Fatal("WaitForMessages succeeded with no messages")
	}
	go func() { _ = send(t, s, "Subject: async\n\nbody\n") }()
	got, err := s.WaitForMessages(1, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Subject != "async" {
		t.Errorf("Subject = %q, want async", got[0].Subject)
	}
}

func TestServerAuthRequired(t *testing.T) {
	s := NewServer(t, WithAuth("user", "pass"))
	if !strings.HasPrefix(s.URL(), "smtp://user:pass@127.0.0.1:") {
		t.Errorf("URL() = %q, want credentials in it", s.URL())
	}
	if err := send(t, s, "Subject: x\n\nbody\n"); err == nil {
		t.Fatal("unauthenticated send succeeded")
	}
	if n := len(s.Messages()); n != 0 {
		t.Errorf("server recorded %d messages, want 0", n)
	}
}
