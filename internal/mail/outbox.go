package mail

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Outbox is the default Mailer: it writes each message to a file instead of
// sending it, so development and unconfigured installs never reach the
// network, and a developer can still read the codes with cat.
type Outbox struct {
	dir  string
	from string
	log  *slog.Logger
}

// NewOutbox creates dir (mode 0700) if it is missing. Messages become
// <UTC timestamp>-<random hex>.eml files with mode 0600, because they hold
// live one-time codes. A nil log discards the log lines.
func NewOutbox(dir string, from string, log *slog.Logger) (*Outbox, error) {
	if dir == "" {
		return nil, errors.New("mail: outbox dir is required")
	}
	from, err := resolveFrom(from)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("mail: create outbox: %w", err)
	}
	return &Outbox{dir: dir, from: from, log: discardIfNil(log)}, nil
}

// Dir is the directory messages are written to.
func (o *Outbox) Dir() string { return o.dir }

// Send writes m as one complete RFC 5322 file. The file appears atomically
// (temp file + rename), so a reader polling the directory never sees half a
// message. Invalid messages fail with a *PermanentError; I/O failures are
// temporary, since a full disk may be freed.
func (o *Outbox) Send(ctx context.Context, m Message) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mail: outbox send: %w", err)
	}
	if err := m.Validate(); err != nil {
		return &PermanentError{Err: err}
	}
	enc := gomail.NoEncoding
	if hasLongLine(m.Text) || hasLongLine(m.HTML) {
		// 8bit may not exceed RFC 5322's line limit; quoted-printable wraps.
		enc = gomail.EncodingQP
	}
	msg, err := m.build(o.from, enc)
	if err != nil {
		return &PermanentError{Err: err}
	}

	name := time.Now().UTC().Format("20060102T150405.000000000Z") + "-" + randomHex(8) + ".eml"
	if err := o.writeAtomic(name, msg); err != nil {
		return err
	}
	o.log.LogAttrs(ctx, slog.LevelInfo, "mail written to outbox",
		slog.Any("to", m.To),
		slog.String("subject", m.Subject),
		slog.String("file", name))
	return nil
}

func (o *Outbox) writeAtomic(name string, msg *gomail.Msg) (err error) {
	// The leading dot keeps readers that glob *.eml away from partial files;
	// CreateTemp already uses mode 0600.
	tmp, err := os.CreateTemp(o.dir, ".tmp-*.eml")
	if errors.Is(err, fs.ErrNotExist) {
		// Someone cleaned the outbox away while we run: make it again.
		if err = os.MkdirAll(o.dir, 0o700); err == nil {
			tmp, err = os.CreateTemp(o.dir, ".tmp-*.eml")
		}
	}
	if err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = msg.WriteTo(tmp); err != nil {
		return fmt.Errorf("mail: outbox write: %w", err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("mail: outbox sync: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("mail: outbox close: %w", err)
	}
	if err = os.Rename(tmp.Name(), filepath.Join(o.dir, name)); err != nil {
		return fmt.Errorf("mail: outbox rename: %w", err)
	}
	return nil
}

func hasLongLine(s string) bool {
	for line := range strings.Lines(s) {
		if len(strings.TrimRight(line, "\r\n")) > maxLineBytes {
			return true
		}
	}
	return false
}
