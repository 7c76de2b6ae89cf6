package chat

import "strings"

// The stream of POST /chat/stream (spec 4.3 rule 1) is
//
//	METADATA: {json}\n
//	<reply text, in chunks>
//	\nFINAL_METADATA: {json}\n
//
// A reply line that begins with "METADATA:", "FINAL_METADATA:" or a
// backslash gets one backslash in front, so the text can never be taken
// for a marker; clients drop one leading backslash from such lines.
const (
	MetadataPrefix      = "METADATA: "
	FinalMetadataPrefix = "FINAL_METADATA: "
)

// Escaper escapes reply text chunk by chunk. A line's start can arrive in
// a later chunk than the line break before it, so it keeps the part of a
// line start that could still become a marker until it can tell.
type Escaper struct {
	atLineStart bool
	held        string // the start of a line that is a prefix of a marker
}

// NewEscaper returns an Escaper at the start of the text.
func NewEscaper() *Escaper { return &Escaper{atLineStart: true} }

var markers = []string{"METADATA:", "FINAL_METADATA:"}

// Write returns what can be sent of chunk now.
func (e *Escaper) Write(chunk string) string {
	var b strings.Builder
	s := e.held + chunk
	e.held = ""
	for len(s) > 0 {
		if e.atLineStart {
			if s[0] == '\\' {
				b.WriteString(`\\`)
				s = s[1:]
				e.atLineStart = false
				continue
			}
			decided := false
			for _, m := range markers {
				if strings.HasPrefix(s, m) {
					b.WriteByte('\\')
					b.WriteString(m)
					s = s[len(m):]
					e.atLineStart, decided = false, true
					break
				}
			}
			if decided {
				continue
			}
			if couldBeMarker(s) {
				e.held = s // wait for more text
				return b.String()
			}
			e.atLineStart = false
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
		e.atLineStart = true
	}
	return b.String()
}

// Flush returns what is still held at the end of the text.
func (e *Escaper) Flush() string {
	s := e.held
	e.held = ""
	return s
}

// couldBeMarker: s is shorter than a marker and a prefix of one.
func couldBeMarker(s string) bool {
	for _, m := range markers {
		if len(s) < len(m) && strings.HasPrefix(m, s) {
			return true
		}
	}
	return false
}

// Unescape undoes the escaping of a whole reply text (clients and tests).
func Unescape(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, `\`) {
			lines[i] = l[1:]
		}
	}
	return strings.Join(lines, "\n")
}
