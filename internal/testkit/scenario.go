package testkit

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Scenario is one request and what must hold of its response.
type Scenario struct {
	Name    string
	Method  string
	Path    string
	Headers []string // name, value pairs
	Body    any      // as for TestApp.Do
	// Status is the expected status code.
	Status int
	// Contains and Absent are substrings the body must and must not hold.
	Contains []string
	Absent   []string
	// Header lists response headers that must equal the given value; an
	// empty value means the header must be absent.
	Header map[string]string
	// Check runs extra assertions.
	Check func(t *testing.T, r *Response)
}

// Run runs scenarios in order, each as a subtest.
func (a *TestApp) Run(t *testing.T, scenarios ...Scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			t.Helper()
			r := a.Do(t, sc.Method, sc.Path, sc.Body, sc.Headers...)
			if sc.Status != 0 && r.Status != sc.Status {
				t.Fatalf("%s %s: status %d, want %d; body: %s", sc.Method, sc.Path, r.Status, sc.Status, r.Body)
			}
			for _, s := range sc.Contains {
				if !bytes.Contains(r.Body, []byte(s)) {
					t.Errorf("body lacks %q: %s", s, r.Body)
				}
			}
			for _, s := range sc.Absent {
				if bytes.Contains(r.Body, []byte(s)) {
					t.Errorf("body holds %q: %s", s, r.Body)
				}
			}
			for k, v := range sc.Header {
				got := r.Header.Get(k)
				if v == "" && got != "" {
					t.Errorf("header %s = %q, want absent", k, got)
				} else if v != "" && got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			if sc.Check != nil {
				sc.Check(t, r)
			}
		})
	}
}

// DetailString returns the detail of an error body when it is a string.
func DetailString(t testing.TB, r *Response) string {
	t.Helper()
	var body struct {
		Detail any `json:"detail"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("error body is not JSON: %s", r.Body)
	}
	s, ok := body.Detail.(string)
	if !ok {
		t.Fatalf("detail is not a string: %s", r.Body)
	}
	return s
}

// ValidationLocs returns the loc of every item of a 422 detail list, joined
// with dots (["body","email"] → "body.email").
func ValidationLocs(t testing.TB, r *Response) []string {
	t.Helper()
	var body struct {
		Detail []struct {
			Loc  []any  `json:"loc"`
			Msg  string `json:"msg"`
			Type string `json:"type"`
		} `json:"detail"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("422 detail is not a list of {loc,msg,type}: %s", r.Body)
	}
	var out []string
	for _, d := range body.Detail {
		if d.Msg == "" || d.Type == "" || len(d.Loc) == 0 {
			t.Fatalf("422 item lacks loc, msg or type: %s", r.Body)
		}
		parts := make([]string, len(d.Loc))
		for i, l := range d.Loc {
			b, _ := json.Marshal(l)
			parts[i] = strings.Trim(string(b), `"`)
		}
		out = append(out, strings.Join(parts, "."))
	}
	return out
}
