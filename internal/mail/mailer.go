package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"path/filepath"
	"strings"
)

// DefaultFrom is used when neither the mailer nor the message names a sender.
const DefaultFrom = "Concierge <no-reply@localhost>"

// Mailer delivers one message. Implementations are safe for concurrent use.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// New picks the transport: SMTP when smtpURL is set, otherwise an Outbox
// under filepath.Join(dataDir, "outbox"), so that a fresh install never sends
// real e-mail by accident.
func New(smtpURL, dataDir, from string, log *slog.Logger) (Mailer, error) {
	if smtpURL != "" {
		return NewSMTP(smtpURL, from, log)
	}
	if dataDir == "" {
		// A relative "outbox" would land wherever the process happens to run.
		return nil, errors.New("mail: data dir is required for the outbox")
	}
	return NewOutbox(filepath.Join(dataDir, "outbox"), from, log)
}

// PermanentError marks a failure that retrying cannot fix (invalid message,
// SMTP 5xx reply, authentication failure). Temporary failures (connection
// refused, timeout, SMTP 4xx) are plain errors.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string {
	if e.Err == nil {
		return "mail: permanent failure"
	}
	return e.Err.Error()
}

func (e *PermanentError) Unwrap() error { return e.Err }

// IsPermanent reports whether err, or any error it wraps, is a
// *PermanentError. Context cancellation is never permanent.
func IsPermanent(err error) bool {
	var pe *PermanentError
	return errors.As(err, &pe)
}

// resolveFrom applies DefaultFrom and rejects a sender that could never go
// out, so configuration mistakes surface at start-up rather than per message.
func resolveFrom(from string) (string, error) {
	if from == "" {
		return DefaultFrom, nil
	}
	if strings.ContainsAny(from, "\r\n") {
		return "", errors.New("mail: from address contains CR or LF")
	}
	if _, err := mail.ParseAddress(from); err != nil {
		return "", fmt.Errorf("mail: invalid from address %q: %w", from, err)
	}
	return from, nil
}

// discardIfNil keeps the transports free of nil checks.
func discardIfNil(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}
