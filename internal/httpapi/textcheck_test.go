package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"concierge/internal/testkit"
)

// TestBadTextEverywhere sends a NUL and invalid UTF-8 in every string field
// of every request body, every path parameter and every string query
// parameter of every operation of the published API description, with the
// credential the operation asks for, on both engines. Each must be a 422
// naming the field, and nothing may be written.
func TestBadTextEverywhere(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, _ := a.Register(t, "text@example.com")
		bot := a.Do(t, "POST", "/bots", map[string]any{"name": "Texty"}, "X-API-Key", key)
		if bot.Status != 201 {
			t.Fatalf("create bot: %d %s", bot.Status, bot.Body)
		}
		botKey := bot.JSON(t)["bot_key"].(string)
		botID := int64(bot.JSON(t)["bot_id"].(float64))
		op := a.Do(t, "POST", "/operators", map[string]any{"email": "op@example.com", "password": "operator pass 1",
			"bot_id": botID}, "X-API-Key", key)
		if op.Status != 201 {
			t.Fatalf("create operator: %d %s", op.Status, op.Body)
		}
		creds := map[string][]string{
			"ApiKeyAuth":      {"X-API-Key", key},
			"BotKeyAuth":      {"X-Bot-Key", botKey},
			"OperatorKeyAuth": {"X-Operator-Key", op.JSON(t)["operator_key"].(string)},
		}
		var doc oapiDoc
		if err := json.Unmarshal(a.Do(t, "GET", "/openapi.json", nil).Body, &doc); err != nil {
			t.Fatal(err)
		}
		a.Settle(t)
		before := testkit.Dump(t, a.DB)

		cases := 0
		for _, path := range sortedKeys(doc.Paths) {
			for _, method := range []string{"get", "post", "put", "patch", "delete"} {
				o := doc.Paths[path][method]
				if o == nil {
					continue
				}
				for _, c := range textCases(&doc, strings.ToUpper(method), path, o) {
					cases++
					c.headers = append(c.headers, credFor(o, creds)...)
					res := c.send(t, a)
					if res.Status >= 500 || res.Status != http.StatusUnprocessableEntity && !(res.Status == 404 && c.wantLoc[0] == "path") {
						t.Errorf("%s %s, %s in %v: %d %s", c.method, path, c.kind, c.wantLoc, res.Status, res.Body)
						continue
					}
					if res.Status == 422 && !hasLoc(t, res, c.wantLoc) {
						t.Errorf("%s %s, %s in %v: 422 without that loc: %s", c.method, path, c.kind, c.wantLoc, res.Body)
					}
				}
			}
		}
		if cases < 200 {
			t.Errorf("only %d cases generated: is the description read right?", cases)
		}
		t.Logf("%d bad-text requests, all refused", cases)
		a.Settle(t)
		if diff := testkit.DumpDiff(before, testkit.Dump(t, a.DB)); diff != "" {
			t.Errorf("refused requests wrote data:\n%s", diff)
		}
		if strings.Contains(a.Logs.String(), "level=ERROR") {
			t.Errorf("an ERROR was logged:\n%s", a.Logs.String())
		}
	})
}

// The parts of an OpenAPI 3.1 document the generator reads.
type oapiDoc struct {
	Paths      map[string]map[string]*oapiOp `json:"paths"`
	Components struct {
		Schemas map[string]*oapiSchema `json:"schemas"`
	} `json:"components"`
}

type oapiOp struct {
	Security    []map[string][]string `json:"security"`
	Parameters  []oapiParam           `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Schema *oapiSchema `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
}

type oapiParam struct {
	Name     string      `json:"name"`
	In       string      `json:"in"`
	Required bool        `json:"required"`
	Schema   *oapiSchema `json:"schema"`
}

type oapiSchema struct {
	Ref                  string                 `json:"$ref"`
	Type                 any                    `json:"type"`
	Format               string                 `json:"format"`
	Enum                 []any                  `json:"enum"`
	MinLength            *int                   `json:"minLength"`
	Minimum              *float64               `json:"minimum"`
	Items                *oapiSchema            `json:"items"`
	Properties           map[string]*oapiSchema `json:"properties"`
	Required             []string               `json:"required"`
	AdditionalProperties any                    `json:"additionalProperties"`
}

func (d *oapiDoc) resolve(s *oapiSchema) *oapiSchema {
	for s != nil && s.Ref != "" {
		s = d.Components.Schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
	}
	return s
}

func (s *oapiSchema) is(typ string) bool {
	switch v := s.Type.(type) {
	case string:
		return v == typ
	case []any:
		return slices.Contains(v, any(typ))
	}
	return false
}

// sample is a valid value of s: required properties only, one item per
// array, the first enum value, strings of the least length.
func (d *oapiDoc) sample(s *oapiSchema, depth int) any {
	s = d.resolve(s)
	if s == nil || depth > 8 {
		return nil
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch {
	case s.is("object") || s.Properties != nil:
		m := map[string]any{}
		for _, name := range s.Required {
			m[name] = d.sample(s.Properties[name], depth+1)
		}
		return m
	case s.is("array"):
		return []any{d.sample(s.Items, depth+1)}
	case s.is("integer"), s.is("number"):
		if s.Minimum != nil && *s.Minimum > 1 {
			return *s.Minimum
		}
		return 1
	case s.is("boolean"):
		return false
	case s.is("string"):
		return sampleString(s)
	}
	return nil
}

func sampleString(s *oapiSchema) string {
	switch s.Format {
	case "email":
		return "someone@example.com"
	case "uri":
		return "https://example.com/"
	case "date-time":
		return "2026-01-01T00:00:00Z"
	case "date":
		return "2026-01-01"
	}
	n := 1
	if s.MinLength != nil && *s.MinLength > 1 {
		n = *s.MinLength
	}
	return strings.Repeat("a", n)
}

// textCase is one request with one bad string.
type textCase struct {
	method, path string
	query        url.Values
	body         []byte
	contentType  string
	headers      []string
	kind         string
	wantLoc      []any
}

func (c *textCase) send(t *testing.T, a *testkit.TestApp) *testkit.Response {
	t.Helper()
	u := a.URL + c.path
	if len(c.query) > 0 {
		u += "?" + c.query.Encode()
	}
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, u, body)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, u, err)
	}
	if c.contentType != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	for i := 0; i+1 < len(c.headers); i += 2 {
		req.Header.Set(c.headers[i], c.headers[i+1])
	}
	res, err := a.Client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, u, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return &testkit.Response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// The two bad strings: in JSON, NUL is sent escaped and the invalid bytes
// raw (replacing a marker after marshalling).
var badTexts = []struct{ kind, raw, jsonMarker, jsonBytes string }{
	{"NUL", "a\x00b", "a\x00b", `a\u0000b`},
	{"invalid UTF-8", "a\xff\xfeb", "@@BAD-UTF8@@", "\xff\xfe"},
}

func textCases(d *oapiDoc, method, path string, o *oapiOp) []textCase {
	pathVals := map[string]string{}
	query := url.Values{}
	for _, p := range o.Parameters {
		switch p.In {
		case "path":
			pathVals[p.Name] = fmt.Sprint(d.sample(p.Schema, 0))
		case "query":
			if p.Required {
				query.Set(p.Name, fmt.Sprint(d.sample(p.Schema, 0)))
			}
		}
	}
	fill := func(vals map[string]string) string {
		out := path
		for k, v := range vals {
			out = strings.ReplaceAll(out, "{"+k+"}", url.PathEscape(v))
		}
		return out
	}
	var ct string
	var bodySchema *oapiSchema
	if o.RequestBody != nil {
		for c, m := range o.RequestBody.Content {
			ct, bodySchema = c, m.Schema
		}
	}
	baseBody, baseCT := func() ([]byte, string) {
		if bodySchema == nil {
			return nil, ""
		}
		if strings.HasPrefix(ct, "multipart/") {
			return multipartBody(d, bodySchema, "", "")
		}
		raw, _ := json.Marshal(d.sample(bodySchema, 0))
		return raw, "application/json"
	}()

	var out []textCase
	for _, bad := range badTexts {
		// Path parameters, whatever their type.
		for _, p := range o.Parameters {
			if p.In != "path" {
				continue
			}
			vals := map[string]string{}
			for k, v := range pathVals {
				vals[k] = v
			}
			vals[p.Name] = bad.raw
			out = append(out, textCase{method: method, path: fill(vals), query: query, body: baseBody,
				contentType: baseCT, kind: bad.kind, wantLoc: []any{"path", p.Name}})
		}
		// String query parameters.
		for _, p := range o.Parameters {
			if p.In != "query" || !d.resolve(p.Schema).is("string") {
				continue
			}
			q := url.Values{}
			for k, v := range query {
				q[k] = v
			}
			q.Set(p.Name, bad.raw)
			out = append(out, textCase{method: method, path: fill(pathVals), query: q, body: baseBody,
				contentType: baseCT, kind: bad.kind, wantLoc: []any{"query", p.Name}})
		}
		if bodySchema == nil {
			continue
		}
		if strings.HasPrefix(ct, "multipart/") {
			for _, name := range multipartFileFields(d, bodySchema) {
				b, c := multipartBody(d, bodySchema, name, bad.raw)
				out = append(out, textCase{method: method, path: fill(pathVals), query: query, body: b, contentType: c,
					kind: bad.kind, wantLoc: []any{"body", name, 0, "filename"}})
			}
			continue
		}
		// Every string in the body, at any depth.
		for _, loc := range stringLocs(d, bodySchema, nil, 0) {
			sample := d.sample(bodySchema, 0)
			sample = setAt(d, bodySchema, sample, loc, bad.jsonMarker)
			raw, _ := json.Marshal(sample)
			marker, _ := json.Marshal(bad.jsonMarker)
			raw = bytes.Replace(raw, marker[1:len(marker)-1], []byte(bad.jsonBytes), 1)
			out = append(out, textCase{method: method, path: fill(pathVals), query: query, body: raw,
				contentType: "application/json", kind: bad.kind, wantLoc: append([]any{"body"}, loc...)})
		}
	}
	return out
}

// stringLocs lists the paths of every string-typed field of s (properties,
// the first item of arrays, a value of free-form maps).
func stringLocs(d *oapiDoc, s *oapiSchema, prefix []any, depth int) [][]any {
	s = d.resolve(s)
	if s == nil || depth > 6 {
		return nil
	}
	at := func(p any) []any { return append(append([]any(nil), prefix...), p) }
	switch {
	case s.is("string"):
		return [][]any{prefix}
	case s.is("array"):
		return stringLocs(d, s.Items, at(0), depth+1)
	case s.is("object") || s.Properties != nil:
		var out [][]any
		for _, name := range sortedKeys(s.Properties) {
			out = append(out, stringLocs(d, s.Properties[name], at(name), depth+1)...)
		}
		if len(s.Properties) == 0 && s.AdditionalProperties != false {
			out = append(out, at("free_form_key"))
		}
		return out
	}
	return nil
}

// setAt returns v with the string at loc set to val, creating the objects
// and arrays on the way.
func setAt(d *oapiDoc, s *oapiSchema, v any, loc []any, val string) any {
	if len(loc) == 0 {
		return val
	}
	s = d.resolve(s)
	switch k := loc[0].(type) {
	case int:
		arr, _ := v.([]any)
		if len(arr) == 0 {
			arr = []any{d.sample(s.Items, 0)}
		}
		arr[0] = setAt(d, s.Items, arr[0], loc[1:], val)
		return arr
	case string:
		m, _ := v.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		var sub *oapiSchema
		if s != nil {
			sub = s.Properties[k]
		}
		cur, ok := m[k]
		if !ok {
			cur = d.sample(sub, 0)
		}
		m[k] = setAt(d, sub, cur, loc[1:], val)
		return m
	}
	return v
}

func multipartFileFields(d *oapiDoc, s *oapiSchema) []string {
	s = d.resolve(s)
	var out []string
	for _, name := range sortedKeys(s.Properties) {
		p := d.resolve(s.Properties[name])
		if p.is("array") {
			p = d.resolve(p.Items)
		}
		if p.Format == "binary" {
			out = append(out, name)
		}
	}
	return out
}

// multipartBody builds a form from s: a sample for every plain field and a
// small text file in every file field, named badName in field badField.
func multipartBody(d *oapiDoc, s *oapiSchema, badField, badName string) ([]byte, string) {
	s = d.resolve(s)
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	files := multipartFileFields(d, s)
	for _, name := range sortedKeys(s.Properties) {
		if slices.Contains(files, name) {
			fname := "notes.txt"
			if name == badField {
				fname = badName
			}
			disp := fmt.Sprintf(`form-data; name=%q; filename="%s"`, name, fname)
			if strings.Contains(fname, "\x00") {
				// A raw NUL breaks the MIME header itself (the parser refuses
				// it); RFC 5987 encoding carries it into the file name.
				disp = fmt.Sprintf(`form-data; name=%q; filename*=UTF-8''%s`, name, url.PathEscape(fname))
			}
			h := map[string][]string{"Content-Disposition": {disp}}
			h["Content-Type"] = []string{"text/plain"}
			part, _ := w.CreatePart(h)
			_, _ = part.Write([]byte("Some words.\n"))
			continue
		}
		_ = w.WriteField(name, fmt.Sprint(d.sample(s.Properties[name], 0)))
	}
	_ = w.Close()
	return buf.Bytes(), w.FormDataContentType()
}

func credFor(o *oapiOp, creds map[string][]string) []string {
	for _, scheme := range []string{"ApiKeyAuth", "BotKeyAuth", "OperatorKeyAuth"} {
		for _, req := range o.Security {
			if _, ok := req[scheme]; ok {
				return creds[scheme]
			}
		}
	}
	return nil
}

func hasLoc(t *testing.T, r *testkit.Response, want []any) bool {
	var body struct {
		Detail []struct {
			Loc []any `json:"loc"`
		} `json:"detail"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return false
	}
	w := fmt.Sprint(want)
	for _, d := range body.Detail {
		if fmt.Sprint(d.Loc) == w {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
