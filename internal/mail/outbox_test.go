package mail

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func newTestOutbox(t *testing.T) (*Outbox, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	o, err := NewOutbox(filepath.Join(t.TempDir(), "data", "outbox"), "", log)
	if err != nil {
		t.Fatal(err)
	}
	return o, &logs
}

func emlFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".eml") || strings.HasPrefix(e.Name(), ".") {
			t.Errorf("unexpected file %q in outbox", e.Name())
			continue
		}
		names = append(names, e.Name())
	}
	return names
}

func TestOutboxWritesReadableMessage(t *testing.T) {
	o, logs := newTestOutbox(t)
	msg := Message{
		ID:      "verify-123",
		To:      []string{"Alice <alice@example.com>"},
		ReplyTo: "support@example.com",
		Subject: "Your verification code",
		Text:    "Your code is 482913.\nOpen https://example.com/verify?code=x&y=z to continue.\n",
		HTML:    "<p>Your code is <b>482913</b>.</p>",
		Headers: map[string]string{"X-Concierge-Kind": "verification"},
	}
	if err := o.Send(context.Background(), msg); err != nil {
		t.Fatalf("Send: %v", err)
	}

	info, err := os.Stat(o.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o700 {
		t.Errorf("outbox dir mode = %o, want 700", got)
	}
	names := emlFiles(t, o.Dir())
	if len(names) != 1 {
		t.Fatalf("outbox holds %d files, want 1", len(names))
	}
	if !regexp.MustCompile(`^\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{16}\.eml$`).MatchString(names[0]) {
		t.Errorf("file name %q does not match <YYYYMMDDTHHMMSS.nnnnnnnnnZ>-<hex>.eml", names[0])
	}
	path := filepath.Join(o.Dir(), names[0])
	info, err = os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("message file mode = %o, want 600", got)
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Readable with cat: the code and the link appear verbatim, not encoded.
	for _, want := range []string{"Your code is 482913.", "https://example.com/verify?code=x&y=z"} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("file does not contain %q verbatim:\n%s", want, raw)
		}
	}
	parsed, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("file is not an RFC 5322 message: %v", err)
	}
	got := map[string]string{}
	for _, h := range []string{"From", "To", "Reply-To", "Subject", "Message-Id", "X-Concierge-Kind"} {
		got[h] = parsed.Header.Get(h)
	}
	want := map[string]string{
		"From":             `"Concierge" <no-reply@localhost>`,
		"To":               `"Alice" <alice@example.com>`,
		"Reply-To":         `<support@example.com>`,
		"Subject":          "Your verification code",
		"Message-Id":       "<verify-123@localhost>",
		"X-Concierge-Kind": "verification",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if _, err := parsed.Header.Date(); err != nil {
		t.Errorf("Date header: %v", err)
	}

	// The log line: exactly these attributes, and never the body.
	if strings.Contains(logs.String(), "482913") {
		t.Fatalf("log contains the code from the body: %s", logs)
	}
	var record map[string]any
	if err := json.Unmarshal(logs.Bytes(), &record); err != nil {
		t.Fatalf("want exactly one JSON log line, got %q: %v", logs, err)
	}
	delete(record, "time")
	wantRecord := map[string]any{
		"level":   "INFO",
		"msg":     "mail written to outbox",
		"to":      []any{"Alice <alice@example.com>"},
		"subject": "Your verification code",
		"file":    names[0],
	}
	if diff := cmp.Diff(wantRecord, record); diff != "" {
		t.Errorf("log record (-want +got):\n%s", diff)
	}
}

func TestOutboxLongLinesFallBackToQuotedPrintable(t *testing.T) {
	o, _ := newTestOutbox(t)
	long := strings.Repeat("x", 2000)
	if err := o.Send(context.Background(), Message{To: []string{"a@example.com"}, Text: long}); err != nil {
		t.Fatal(err)
	}
	names := emlFiles(t, o.Dir())
	raw, err := os.ReadFile(filepath.Join(o.Dir(), names[0]))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(raw)) {
		if len(line) > 1000 {
			t.Fatalf("file has a %d-byte line; RFC 5322 allows 998", len(line))
		}
	}
	parsed, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got := parsed.Header.Get("Content-Transfer-Encoding"); got != "quoted-printable" {
		t.Errorf("Content-Transfer-Encoding = %q, want quoted-printable", got)
	}
}

func TestOutboxConcurrentSendsProduceDistinctFiles(t *testing.T) {
	o, _ := newTestOutbox(t)
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- o.Send(context.Background(), Message{
				To:      []string{"a@example.com"},
				Subject: fmt.Sprintf("message %d", i),
				Text:    "body",
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	names := emlFiles(t, o.Dir())
	if len(names) != n {
		t.Fatalf("outbox holds %d files, want %d", len(names), n)
	}
	subjects := map[string]bool{}
	for _, name := range names {
		f, err := os.Open(filepath.Join(o.Dir(), name))
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := mail.ReadMessage(f)
		if err == nil {
			_, err = io.Copy(io.Discard, parsed.Body)
		}
		_ = f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		subjects[parsed.Header.Get("Subject")] = true
	}
	if len(subjects) != n {
		t.Errorf("found %d distinct subjects, want %d", len(subjects), n)
	}
}

func TestOutboxRejectsInvalidMessagesPermanently(t *testing.T) {
	o, logs := newTestOutbox(t)
	tests := []struct {
		name string
		msg  Message
	}{
		{"header injection", Message{To: []string{"a@b.com\r\nBcc: x@y.com"}, Text: "code 482913"}},
		{"empty To", Message{Text: "code 482913"}},
		{"bad address", Message{To: []string{"nobody"}, Text: "code 482913"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := o.Send(context.Background(), tt.msg)
			if !IsPermanent(err) {
				t.Fatalf("Send() = %v, want a permanent error", err)
			}
		})
	}
	if names := emlFiles(t, o.Dir()); len(names) != 0 {
		t.Errorf("invalid messages left files: %v", names)
	}
	if logs.Len() != 0 {
		t.Errorf("invalid messages were logged: %s", logs)
	}
}

func TestOutboxHonoursCanceledContext(t *testing.T) {
	o, _ := newTestOutbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := o.Send(ctx, validMessage())
	if err == nil || IsPermanent(err) {
		t.Fatalf("Send() = %v, want a temporary error", err)
	}
	if names := emlFiles(t, o.Dir()); len(names) != 0 {
		t.Errorf("canceled send left files: %v", names)
	}
}

func TestNewOutboxRejectsBadFrom(t *testing.T) {
	if _, err := NewOutbox(t.TempDir(), "not an address", nil); err == nil {
		t.Fatal("NewOutbox accepted an invalid from address")
	}
}

func TestOutboxRecreatesItsDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	o, err := NewOutbox(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := o.Send(context.Background(), Message{To: []string{"a@example.com"}, Subject: "s", Text: "t"}); err != nil {
		t.Fatalf("send after the outbox was removed: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
}
