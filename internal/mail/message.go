package mail

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"

	gomail "github.com/wneessen/go-mail"
)

// Limits enforced by Validate.
const (
	MaxRecipients = 50
	// maxLineBytes is RFC 5322's hard limit for a line; it bounds the subject
	// and every header value so no header needs folding tricks to stay legal.
	maxLineBytes = 998
	maxIDBytes   = 128
)

// ErrInvalidMessage is wrapped by every error Validate returns, so HTTP
// handlers can tell caller mistakes from transport failures.
var ErrInvalidMessage = errors.New("mail: invalid message")

// Message is one e-mail as the application describes it; the transports turn
// it into RFC 5322.
type Message struct {
	ID      string            // optional; Message-ID local part, else random
	From    string            // optional; defaults to the mailer's From
	To      []string          // at least one, at most MaxRecipients
	ReplyTo string            // optional
	Subject string            // logged: must not hold secrets
	Text    string            // plain-text body (required)
	HTML    string            // optional alternative
	Headers map[string]string // optional extra headers, e.g. X-Concierge-Kind
}

// reservedHeaders are owned by the mailer. Letting Headers set them would
// allow adding hidden recipients (Bcc), spoofing the sender, or breaking the
// MIME structure go-mail writes.
var reservedHeaders = []string{
	"bcc", "cc", "content-disposition", "content-transfer-encoding",
	"content-type", "date", "from", "message-id", "mime-version",
	"received", "reply-to", "return-path", "sender", "subject", "to",
}

// Validate checks everything that would otherwise fail later, or worse,
// succeed with injected headers. Errors name the offending field but never
// echo a body or header value, since those may carry codes.
func (m Message) Validate() error {
	if len(m.To) == 0 {
		return invalid("no recipients")
	}
	if len(m.To) > MaxRecipients {
		return invalid("%d recipients, at most %d allowed", len(m.To), MaxRecipients)
	}
	for i, to := range m.To {
		if err := checkAddress(fmt.Sprintf("To[%d]", i), to); err != nil {
			return err
		}
	}
	if m.From != "" {
		if err := checkAddress("From", m.From); err != nil {
			return err
		}
	}
	if m.ReplyTo != "" {
		if err := checkAddress("ReplyTo", m.ReplyTo); err != nil {
			return err
		}
	}
	if hasNewline(m.Subject) {
		return invalid("subject contains CR, LF or NUL")
	}
	if len(m.Subject) > maxLineBytes {
		return invalid("subject is %d bytes, at most %d allowed", len(m.Subject), maxLineBytes)
	}
	if strings.TrimSpace(m.Text) == "" {
		return invalid("text body is required")
	}
	if m.ID != "" && !validID(m.ID) {
		return invalid("ID must be 1-%d characters of RFC 5322 atext or dots", maxIDBytes)
	}
	for name, value := range m.Headers {
		if !validHeaderName(name) {
			return invalid("header name %q is not a valid field name", name)
		}
		if slices.Contains(reservedHeaders, strings.ToLower(name)) {
			return invalid("header %q is set by the mailer and cannot be overridden", name)
		}
		if hasNewline(value) {
			return invalid("header %q contains CR, LF or NUL", name)
		}
		if len(value) > maxLineBytes {
			return invalid("header %q is longer than %d bytes", name, maxLineBytes)
		}
	}
	return nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidMessage}, args...)...)
}

func checkAddress(field, addr string) error {
	// Checked before parsing because net/mail reports header injection as a
	// generic syntax error, and this is the case worth naming.
	if hasNewline(addr) {
		return invalid("%s contains CR, LF or NUL", field)
	}
	if _, err := mail.ParseAddress(addr); err != nil {
		return invalid("%s %q is not a valid address: %v", field, addr, err)
	}
	return nil
}

func hasNewline(s string) bool { return strings.ContainsAny(s, "\r\n\x00") }

func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < '!' || c > '~' || c == ':' {
			return false
		}
	}
	return true
}

// validID accepts a dot-atom, the form RFC 5322 requires for the left side
// of a Message-ID, so whatever the caller passes cannot break the header.
func validID(id string) bool {
	if len(id) > maxIDBytes || id[0] == '.' || id[len(id)-1] == '.' || strings.Contains(id, "..") {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && !strings.ContainsRune("!#$%&'*+-/=?^_`{|}~.", rune(c)) {
			return false
		}
	}
	return true
}

// build renders a validated message with go-mail. enc is the body transfer
// encoding: the outbox prefers 8bit so files stay readable, SMTP uses
// quoted-printable because not every relay speaks 8BITMIME.
func (m Message) build(defaultFrom string, enc gomail.Encoding) (*gomail.Msg, error) {
	from := m.From
	if from == "" {
		from = defaultFrom
	}
	fromAddr, err := mail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("mail: invalid from address: %w", err)
	}

	msg := gomail.NewMsg(gomail.WithEncoding(enc), gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(fromAddr)
	if err := msg.To(m.To...); err != nil {
		return nil, fmt.Errorf("mail: set To: %w", err)
	}
	if m.ReplyTo != "" {
		if err := msg.ReplyTo(m.ReplyTo); err != nil {
			return nil, fmt.Errorf("mail: set Reply-To: %w", err)
		}
	}
	msg.Subject(m.Subject)

	id := m.ID
	if id == "" {
		id = randomHex(16)
	}
	domain := fromAddr.Address[strings.LastIndexByte(fromAddr.Address, '@')+1:]
	msg.SetMessageIDWithValue(id + "@" + domain)
	msg.SetDate()

	// Sorted so the same message always renders the same way.
	names := make([]string, 0, len(m.Headers))
	for name := range m.Headers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		msg.SetGenHeader(gomail.Header(name), m.Headers[name])
	}

	msg.SetBodyString(gomail.TypeTextPlain, crlf(m.Text))
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, crlf(m.HTML))
	}
	return msg, nil
}

// crlf normalises line endings: 8bit bodies are written verbatim, and a file
// mixing CRLF headers with LF bodies confuses some mail readers.
func crlf(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// randomHex needs no error path: crypto/rand.Read never fails since Go 1.24.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
