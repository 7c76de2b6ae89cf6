package mail

import (
	"errors"
	"strings"
	"testing"
)

func validMessage() Message {
	return Message{
		To:      []string{"alice@example.com"},
		Subject: "Your verification code",
		Text:    "Your code is 482913.\n",
	}
}

func TestValidate(t *testing.T) {
	tooMany := make([]string, MaxRecipients+1)
	for i := range tooMany {
		tooMany[i] = "user@example.com"
	}
	tests := []struct {
		name   string
		modify func(*Message)
		ok     bool
	}{
		{"minimal", func(*Message) {}, true},
		{"display names and extras", func(m *Message) {
			m.To = []string{"Alice <alice@example.com>", "bob@example.org"}
			m.From = "Concierge <support@example.com>"
			m.ReplyTo = "sales@example.com"
			m.HTML = "<p>hi</p>"
			m.ID = "job-42.attempt-1"
			m.Headers = map[string]string{"X-Concierge-Kind": "verification"}
		}, true},
		{"exactly max recipients", func(m *Message) { m.To = tooMany[:MaxRecipients] }, true},
		{"no recipients", func(m *Message) { m.To = nil }, false},
		{"too many recipients", func(m *Message) { m.To = tooMany }, false},
		{"header injection in To", func(m *Message) { m.To = []string{"a@b.com\r\nBcc: x@y.com"} }, false},
		{"bare LF in To", func(m *Message) { m.To = []string{"a@b.com\nBcc: x@y.com"} }, false},
		{"bad address", func(m *Message) { m.To = []string{"not an address"} }, false},
		{"two addresses in one entry", func(m *Message) { m.To = []string{"a@b.com, c@d.com"} }, false},
		{"bad From", func(m *Message) { m.From = "nobody" }, false},
		{"injection in ReplyTo", func(m *Message) { m.ReplyTo = "a@b.com\r\nBcc: x@y.com" }, false},
		{"injection in subject", func(m *Message) { m.Subject = "hi\r\nBcc: x@y.com" }, false},
		{"subject at limit", func(m *Message) { m.Subject = strings.Repeat("s", 998) }, true},
		{"subject too long", func(m *Message) { m.Subject = strings.Repeat("s", 999) }, false},
		{"empty text", func(m *Message) { m.Text = "" }, false},
		{"blank text", func(m *Message) { m.Text = " \n\t" }, false},
		{"override Bcc", func(m *Message) { m.Headers = map[string]string{"Bcc": "x@y.com"} }, false},
		{"override to, any case", func(m *Message) { m.Headers = map[string]string{"tO": "x@y.com"} }, false},
		{"override Subject", func(m *Message) { m.Headers = map[string]string{"SUBJECT": "x"} }, false},
		{"injection in header value", func(m *Message) {
			m.Headers = map[string]string{"X-Kind": "a\r\nBcc: x@y.com"}
		}, false},
		{"colon in header name", func(m *Message) { m.Headers = map[string]string{"X-A: b\r\nBcc": "x"} }, false},
		{"space in header name", func(m *Message) { m.Headers = map[string]string{"X Kind": "x"} }, false},
		{"ID with angle bracket", func(m *Message) { m.ID = "abc>" }, false},
		{"ID with @", func(m *Message) { m.ID = "a@b" }, false},
		{"ID with double dot", func(m *Message) { m.ID = "a..b" }, false},
		{"ID too long", func(m *Message) { m.ID = strings.Repeat("a", 129) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validMessage()
			tt.modify(&m)
			err := m.Validate()
			if tt.ok && err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
			if !tt.ok {
				if err == nil {
					t.Fatal("Validate() = nil, want error")
				}
				if !errors.Is(err, ErrInvalidMessage) {
					t.Errorf("Validate() = %v, want it to wrap ErrInvalidMessage", err)
				}
			}
		})
	}
}

func TestValidateErrorNeverEchoesValues(t *testing.T) {
	m := validMessage()
	m.Headers = map[string]string{"X-Code": "482913\r\nBcc: x@y.com"}
	err := m.Validate()
	if err == nil || strings.Contains(err.Error(), "482913") {
		t.Fatalf("Validate() = %v, want an error that does not contain the header value", err)
	}
}

func TestIsPermanent(t *testing.T) {
	base := errors.New("boom")
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", base, false},
		{"permanent", &PermanentError{Err: base}, true},
		{"wrapped permanent", errors.Join(errors.New("ctx"), &PermanentError{Err: base}), true},
	}
	for _, tt := range tests {
		if got := IsPermanent(tt.err); got != tt.want {
			t.Errorf("%s: IsPermanent() = %v, want %v", tt.name, got, tt.want)
		}
	}
	pe := &PermanentError{Err: base}
	if !errors.Is(pe, base) || pe.Error() != "boom" {
		t.Errorf("PermanentError does not unwrap to its cause: %v", pe)
	}
}
