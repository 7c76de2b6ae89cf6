package httpapi

import (
	"fmt"
	"testing"
)

func TestJSONTextProblems(t *testing.T) {
	for _, c := range []struct {
		body string
		want string // the locs and types found, or "" for none
	}{
		{`{"name":"plain","n":1,"ok":true,"x":null}`, ""},
		{`{"name":"caf\u00e9 \ud83d\ude00 ok"}`, ""},
		{`{"name":"a\u0000b"}`, "[body name] string_nul_character"},
		{"{\"name\":\"a\xffb\"}", "[body name] string_unicode"},
		{`{"name":"lone \ud800 high"}`, "[body name] string_unicode"},
		{`{"name":"lone \udc00 low"}`, "[body name] string_unicode"},
		{"{\"a\":{\"b\":[\"ok\",{\"c\":\"x\x00\"}]}}", "[body a b 1 c] string_nul_character"},
		{`{"ke\u0000y":"v"}`, `[body ke\u0000y] string_nul_character`}, // the key as sent, escapes kept
		{`["\u0000", "fine", "\ud800"]`, "[body 0] string_nul_character; [body 2] string_unicode"},
		{`{"a":"\\u0000 is text, escaped"}`, ""},
		{`{"a": "unterminated`, ""}, // malformed: the decoder reports it
		{`{"a":"x\u0000", "b": [1, 2,`, "[body a] string_nul_character"},
	} {
		got := ""
		for i, it := range jsonTextProblems([]byte(c.body)) {
			if i > 0 {
				got += "; "
			}
			got += fmt.Sprint(it.Loc) + " " + it.Type
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.body, got, c.want)
		}
	}
}
