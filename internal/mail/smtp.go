package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/textproto"
	"slices"
	"strings"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// SMTP sends each message over its own connection to a relay. Dialling per
// message costs a handshake but leaves no idle connection to go stale
// between the queue's sporadic jobs.
type SMTP struct {
	cfg  *smtpConfig
	from string
	log  *slog.Logger
}

// NewSMTP configures an SMTP mailer from a URL:
//
//	smtp://user:pass@host:587            STARTTLS required (smtp:// default, port 587)
//	smtp://host:25?tls=none              no TLS; AUTH only if a user is given
//	smtp://host:25?tls=opportunistic     STARTTLS when offered
//	smtps://user:pass@host:465           implicit TLS (default port 465)
//
// Optional parameters: timeout=10s (per SMTP command, default 15s),
// helo=name, insecure_skip_verify=true (tests only). User and password are
// percent-decoded. Credentials are only ever sent over TLS, except with
// tls=none, where the operator has explicitly chosen plaintext.
// Nothing is dialled here. A nil log discards the log lines.
func NewSMTP(rawURL string, from string, log *slog.Logger) (*SMTP, error) {
	cfg, err := parseSMTPURL(rawURL)
	if err != nil {
		return nil, err
	}
	from, err = resolveFrom(from)
	if err != nil {
		return nil, err
	}
	return &SMTP{cfg: cfg, from: from, log: discardIfNil(log)}, nil
}

// String is the configured URL with the password masked, e.g.
// "smtp://user:***@host:587".
func (s *SMTP) String() string { return s.cfg.String() }

// Send delivers m in one SMTP session. Errors are classified for the queue:
// an invalid message, a 5xx reply, an authentication that cannot succeed or
// a relay whose TLS setup contradicts the configuration give a
// *PermanentError; 4xx replies, network failures and ctx expiry are plain
// (retryable) errors. A message the relay accepted is reported as sent even
// if closing the session fails afterwards, so a retry never duplicates it.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mail: smtp send: %w", err)
	}
	if err := m.Validate(); err != nil {
		return &PermanentError{Err: err}
	}
	msg, err := m.build(s.from, gomail.EncodingQP)
	if err != nil {
		return &PermanentError{Err: err}
	}

	var conn ctxConn
	defer conn.close()
	client, err := gomail.NewClient(s.cfg.host, s.clientOptions(ctx, &conn)...)
	if err != nil {
		return s.redact(fmt.Errorf("mail: smtp client for %s: %w", s.cfg.addr(), err))
	}
	err = client.DialAndSendWithContext(ctx, msg)
	if err != nil && msg.IsDelivered() {
		s.log.LogAttrs(ctx, slog.LevelWarn, "mail accepted by relay but closing the SMTP session failed",
			slog.String("error", s.redact(err).Error()))
		err = nil
	}
	if err != nil {
		return s.classify(ctx, err)
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, "mail sent",
		slog.Any("to", m.To),
		slog.String("subject", m.Subject))
	return nil
}

func (s *SMTP) clientOptions(ctx context.Context, conn *ctxConn) []gomail.Option {
	tlsConfig := &tls.Config{
		ServerName:         s.cfg.host,
		InsecureSkipVerify: s.cfg.insecure, // explicit opt-in, documented as tests only
		MinVersion:         tls.VersionTLS12,
	}
	policy := gomail.TLSMandatory
	switch s.cfg.tls {
	case tlsOpportunistic:
		policy = gomail.TLSOpportunistic
	case tlsNone, tlsImplicit:
		// Implicit TLS is done by our dialer, so go-mail must not STARTTLS.
		policy = gomail.NoTLS
	}
	opts := []gomail.Option{
		gomail.WithPort(s.cfg.port),
		gomail.WithTimeout(s.cfg.timeout),
		gomail.WithTLSPolicy(policy),
		gomail.WithTLSConfig(tlsConfig),
		gomail.WithDialContextFunc(conn.dialer(ctx, s.cfg.tls == tlsImplicit, tlsConfig)),
	}
	if s.cfg.helo != "" {
		opts = append(opts, gomail.WithHELO(s.cfg.helo))
	}
	if s.cfg.user != "" {
		opts = append(opts, gomail.WithSMTPAuthCustom(&credentialAuth{
			user:      s.cfg.user,
			pass:      s.cfg.pass,
			plaintext: s.cfg.tls == tlsNone,
		}))
	}
	return opts
}

// ctxConn ties the connection to the caller's ctx. go-mail only applies its
// context while dialling and then relies on per-command timeouts, so a relay
// that accepts and stalls would otherwise hold Send past the ctx deadline.
// It also guarantees the socket is closed: go-mail leaks it when, for
// example, EHLO fails. go-mail dials synchronously inside Send, so no lock
// is needed.
type ctxConn struct {
	conn net.Conn
	stop func() bool
}

func (c *ctxConn) dialer(ctx context.Context, implicitTLS bool, cfg *tls.Config) gomail.DialContextFunc {
	return func(dialCtx context.Context, network, addr string) (net.Conn, error) {
		d := &net.Dialer{}
		var conn net.Conn
		var err error
		if implicitTLS {
			conn, err = (&tls.Dialer{NetDialer: d, Config: cfg}).DialContext(dialCtx, network, addr)
		} else {
			conn, err = d.DialContext(dialCtx, network, addr)
		}
		if err != nil {
			return nil, err
		}
		c.conn = conn
		c.stop = context.AfterFunc(ctx, func() { _ = conn.Close() })
		return conn, nil
	}
}

func (c *ctxConn) close() {
	if c.conn != nil {
		c.stop()
		_ = c.conn.Close()
	}
}

// Client-side reasons authentication cannot work; classified permanent
// because they follow from configuration, not from the relay's mood.
var (
	errAuthNeedsTLS     = errors.New("refusing to send SMTP credentials without TLS (tls=none allows it)")
	errAuthNoMechanism  = errors.New("relay offers neither AUTH PLAIN nor AUTH LOGIN")
	errSTARTTLSRequired = errors.New("relay does not offer STARTTLS, which smtp:// requires by default " +
		"(tls=opportunistic or tls=none relax this)")
)

// credentialAuth picks PLAIN or LOGIN from what the relay advertises and
// refuses plaintext unless the operator chose tls=none. go-mail's own
// discovery would refuse PLAIN whenever it did not do the TLS itself, which
// breaks smtps:// with our dialer.
type credentialAuth struct {
	user, pass string
	plaintext  bool
	mech       smtp.Auth
}

func (a *credentialAuth) Start(server *smtp.ServerInfo) (string, []byte, error) {
	if !server.TLS && !a.plaintext {
		return "", nil, errAuthNeedsTLS
	}
	offers := func(name string) bool {
		return slices.ContainsFunc(server.Auth, func(m string) bool { return strings.EqualFold(m, name) })
	}
	switch {
	case offers("PLAIN"):
		a.mech = smtp.PlainAuth("", a.user, a.pass, server.Name, true)
	case offers("LOGIN"):
		a.mech = smtp.LoginAuth(a.user, a.pass, server.Name, true)
	default:
		return "", nil, errAuthNoMechanism
	}
	return a.mech.Start(server)
}

func (a *credentialAuth) Next(fromServer []byte, more bool) ([]byte, error) {
	return a.mech.Next(fromServer, more)
}

func (s *SMTP) classify(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		// Whatever go-mail reports after we closed the socket is noise; the
		// cause is the caller's deadline or cancellation.
		return s.redact(fmt.Errorf("mail: smtp send to %s: %w (%v)", s.cfg.addr(), ctxErr, err))
	}
	// go-mail reports a missing STARTTLS only as text; matched here, and a
	// test pins the wording in case go-mail changes it.
	if strings.Contains(err.Error(), "does not support STARTTLS") {
		err = errSTARTTLSRequired
	}
	wrapped := s.redact(fmt.Errorf("mail: smtp send to %s: %w", s.cfg.addr(), err))
	code := replyCode(err)
	var certErr *tls.CertificateVerificationError
	switch {
	case code >= 500:
		return &PermanentError{Err: wrapped}
	case code >= 400:
		return wrapped
	case errors.Is(err, errAuthNeedsTLS), errors.Is(err, errAuthNoMechanism),
		errors.Is(err, errSTARTTLSRequired), errors.As(err, &certErr):
		return &PermanentError{Err: wrapped}
	}
	return wrapped
}

// replyCode digs the SMTP reply code out of go-mail's errors. Session-setup
// failures wrap *textproto.Error; send failures are *gomail.SendError, which
// hides its causes but records the code.
func replyCode(err error) int {
	var sendErr *gomail.SendError
	if errors.As(err, &sendErr) {
		if code := sendErr.ErrorCode(); code != 0 {
			return code
		}
	}
	var protoErr *textproto.Error
	if errors.As(err, &protoErr) {
		return protoErr.Code
	}
	return 0
}

// redact scrubs the password from err's text. No go-mail error is known to
// contain it; this is the guarantee in case one ever does.
func (s *SMTP) redact(err error) error {
	if s.cfg.pass == "" {
		return err
	}
	return &redactedError{err: err, secret: s.cfg.pass}
}

type redactedError struct {
	err    error
	secret string
}

func (e *redactedError) Error() string { return strings.ReplaceAll(e.err.Error(), e.secret, "***") }
func (e *redactedError) Unwrap() error { return e.err }
