// Package mailtest runs a real SMTP server on 127.0.0.1 for tests, so code
// that sends e-mail through the mail package's SMTP mailer can assert on
// exactly what was delivered ("exactly one e-mail, to this address, with
// this code") without touching the network.
package mailtest

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Received is one message the server accepted.
type Received struct {
	From string   // envelope sender (MAIL FROM)
	To   []string // envelope recipients (RCPT TO)
	Data []byte   // the DATA exactly as transmitted (CRLF line endings)

	// Parsed from Data for convenience; empty when Data does not parse.
	Subject string // decoded Subject header
	Text    string // decoded text/plain body, line endings normalised to \n
	HTML    string // decoded text/html alternative, if any, likewise
}

// Option configures NewServer.
type Option func(*Server)

// WithAuth makes the server advertise AUTH PLAIN and refuse MAIL FROM until
// the client authenticated with exactly these credentials. URL() then
// carries them.
func WithAuth(user, pass string) Option {
	return func(s *Server) { s.user, s.pass = user, pass }
}

// WithSTARTTLS makes the server offer STARTTLS with a self-signed
// certificate; URL() then asks for tls=starttls&insecure_skip_verify=true.
func WithSTARTTLS() Option {
	return func(s *Server) { s.tlsMode = "starttls" }
}

// WithImplicitTLS makes the server speak TLS from the first byte with a
// self-signed certificate; URL() then is an smtps:// URL.
func WithImplicitTLS() Option {
	return func(s *Server) { s.tlsMode = "implicit" }
}

// Server is an in-process SMTP server that records what it receives.
// Its methods are safe for concurrent use.
type Server struct {
	t       testing.TB
	srv     *smtp.Server
	addr    string
	user    string
	pass    string
	tlsMode string // "", "starttls" or "implicit"

	mu       sync.Mutex
	messages []Received
	failures []*smtp.SMTPError
	arrived  chan struct{} // closed and replaced on every delivery
}

// NewServer starts a server on 127.0.0.1:0 and stops it when the test ends.
// Without options, URL() is smtp://127.0.0.1:PORT?tls=none.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{t: t, arrived: make(chan struct{})}
	for _, opt := range opts {
		opt(s)
	}

	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &session{server: s}, nil
	}))
	srv.Domain = "localhost"
	// Generous limits; timeouts only keep a broken client from wedging the
	// test's cleanup.
	srv.ReadTimeout = 30 * time.Second
	srv.WriteTimeout = 30 * time.Second
	srv.MaxMessageBytes = 10 << 20
	srv.MaxRecipients = 100
	srv.AllowInsecureAuth = true
	// Clients hanging up mid-session are expected in tests that exercise
	// failures; their log lines would only be noise.
	srv.ErrorLog = log.New(io.Discard, "", 0)

	var ln net.Listener
	var err error
	switch s.tlsMode {
	case "starttls":
		srv.TLSConfig = selfSignedConfig(t)
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	case "implicit":
		ln, err = tls.Listen("tcp", "127.0.0.1:0", selfSignedConfig(t))
	default:
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatalf("mailtest: listen: %v", err)
	}
	s.srv, s.addr = srv, ln.Addr().String()

	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		// Close only knows listeners Serve has registered; a test that never
		// connected can end before Serve even started.
		_ = ln.Close()
		<-done
	})
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.addr }

// URL is a CONCIERGE_SMTP_URL for this server.
func (s *Server) URL() string {
	u := url.URL{Scheme: "smtp", Host: s.addr}
	if s.user != "" {
		u.User = url.UserPassword(s.user, s.pass)
	}
	q := url.Values{}
	switch s.tlsMode {
	case "starttls":
		q.Set("tls", "starttls")
		q.Set("insecure_skip_verify", "true")
	case "implicit":
		u.Scheme = "smtps"
		q.Set("insecure_skip_verify", "true")
	default:
		q.Set("tls", "none")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Messages returns a copy of everything accepted so far, oldest first.
func (s *Server) Messages() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Received, len(s.messages))
	for i, m := range s.messages {
		m.To = slices.Clone(m.To)
		m.Data = bytes.Clone(m.Data)
		out[i] = m
	}
	return out
}

// WaitForMessages waits until at least n messages arrived, for senders that
// deliver asynchronously (the job queue), and returns them all.
func (s *Server) WaitForMessages(n int, timeout time.Duration) ([]Received, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		got, arrived := len(s.messages), s.arrived
		s.mu.Unlock()
		if got >= n {
			return s.Messages(), nil
		}
		select {
		case <-arrived:
		case <-deadline.C:
			return s.Messages(), fmt.Errorf("mailtest: %d of %d messages arrived within %v", got, n, timeout)
		}
	}
}

// FailNext makes the next mail transaction fail: every RCPT TO in it is
// answered with code and msg (4xx temporary, 5xx permanent). Calls queue up,
// one failure per transaction, so a test can fail the first attempt and let
// the retry through.
func (s *Server) FailNext(code int, msg string) {
	s.t.Helper()
	if code < 400 || code > 599 {
		s.t.Fatalf("mailtest: FailNext code %d, want 4xx or 5xx", code)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, &smtp.SMTPError{
		Code:         code,
		EnhancedCode: smtp.EnhancedCodeNotSet,
		Message:      msg,
	})
}

func (s *Server) takeFailure() *smtp.SMTPError {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.failures) == 0 {
		return nil
	}
	f := s.failures[0]
	s.failures = s.failures[1:]
	return f
}

func (s *Server) record(r Received) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = append(s.messages, r)
	close(s.arrived)
	s.arrived = make(chan struct{})
}

// session is one SMTP connection.
type session struct {
	server  *Server
	authed  bool
	from    string
	to      []string
	failure *smtp.SMTPError
}

var errAuthRequired = &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Authentication required"}

func (ss *session) AuthMechanisms() []string {
	if ss.server.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *session) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain || ss.server.user == "" {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		if identity != "" && identity != user {
			return smtp.ErrAuthFailed
		}
		if user != ss.server.user || pass != ss.server.pass {
			return smtp.ErrAuthFailed
		}
		ss.authed = true
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.server.user != "" && !ss.authed {
		return errAuthRequired
	}
	ss.from, ss.to = from, nil
	ss.failure = ss.server.takeFailure()
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if ss.failure != nil {
		return ss.failure
	}
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	rec := Received{From: ss.from, To: slices.Clone(ss.to), Data: data}
	parseInto(&rec)
	ss.server.record(rec)
	return nil
}

func (ss *session) Reset() {
	ss.from, ss.to, ss.failure = "", nil, nil
}

func (ss *session) Logout() error { return nil }
