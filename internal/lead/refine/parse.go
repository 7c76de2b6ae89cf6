package refine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"concierge/internal/lead/score"
)

// proposal is the model's reply, decoded but not yet trusted.
type proposal struct {
	dims []proposed
}

type proposed struct {
	name     string // as the model wrote it
	score    int
	hasScore bool
	evidence []proposedQuote
}

type proposedQuote struct {
	quote, reading string
}

// wireDim is one dimension as the model may write it.
type wireDim struct {
	Name     string          `json:"name"`
	Key      string          `json:"key"`
	Score    flexNumber      `json:"score"`
	Evidence json.RawMessage `json:"evidence"`
	Quotes   json.RawMessage `json:"quotes"`
}

// flexNumber accepts 70, 70.0 and "70".
type flexNumber struct {
	v  float64
	ok bool
}

func (n *flexNumber) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		b = []byte(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("score %s is not a number", b)
	}
	n.v, n.ok = v, true
	return nil
}

// parse reads the JSON object out of the reply: code fences and prose
// around it are tolerated, dimensions may come as a list or as an object
// keyed by name, evidence as objects or plain strings.
func parse(text string) (proposal, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return proposal{}, errors.New("empty reply")
	}
	start, end := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if start < 0 || end < start {
		return proposal{}, errors.New("no JSON object in the reply")
	}
	var top struct {
		Dimensions json.RawMessage `json:"dimensions"`
	}
	if err := json.Unmarshal([]byte(text[start:end+1]), &top); err != nil {
		return proposal{}, fmt.Errorf("reply is not JSON: %v", err)
	}
	var list []wireDim
	raw := bytes.TrimSpace(top.Dimensions)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return proposal{}, errors.New("no dimensions in the reply")
	case raw[0] == '[':
		if err := json.Unmarshal(raw, &list); err != nil {
			return proposal{}, fmt.Errorf("dimensions: %v", err)
		}
	case raw[0] == '{':
		var byName map[string]wireDim
		if err := json.Unmarshal(raw, &byName); err != nil {
			return proposal{}, fmt.Errorf("dimensions: %v", err)
		}
		for name, d := range byName {
			if d.Name == "" {
				d.Name = name
			}
			list = append(list, d)
		}
	default:
		return proposal{}, errors.New("dimensions is neither a list nor an object")
	}
	var p proposal
	for _, d := range list {
		name := d.Name
		if name == "" {
			name = d.Key
		}
		pd := proposed{name: name}
		if d.Score.ok {
			pd.score, pd.hasScore = int(math.Round(max(-1000, min(1000, d.Score.v)))), true
		}
		pd.evidence = append(quotesOf(d.Evidence), quotesOf(d.Quotes)...)
		p.dims = append(p.dims, pd)
	}
	return p, nil
}

// quotesOf reads evidence given as [{"quote": ..., "reading": ...}] or
// ["..."]; anything else reads as none.
func quotesOf(raw json.RawMessage) []proposedQuote {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []proposedQuote
	for _, it := range items {
		var s string
		if json.Unmarshal(it, &s) == nil {
			out = append(out, proposedQuote{quote: s})
			continue
		}
		var o struct {
			Quote   string `json:"quote"`
			Text    string `json:"text"`
			Reading string `json:"reading"`
		}
		if json.Unmarshal(it, &o) == nil {
			if o.Quote == "" {
				o.Quote = o.Text
			}
			out = append(out, proposedQuote{quote: o.Quote, reading: o.Reading})
		}
	}
	return out
}

// find returns the proposal for a dimension, matched by name (or label),
// ignoring case, spaces and underscores.
func (p proposal) find(d score.Dimension) (proposed, bool) {
	for _, pd := range p.dims {
		n := nameKey(pd.name)
		if n != "" && (n == nameKey(d.Name) || n == nameKey(d.Label)) {
			return pd, true
		}
	}
	return proposed{}, false
}

func nameKey(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

func (p proposal) matchedAny(base score.Result) bool {
	for _, d := range base.Dimensions {
		if pd, ok := p.find(d); ok && pd.hasScore {
			return true
		}
	}
	return false
}

// Instruction-like text. A reply quoting an injection marker as evidence
// is rejected whole (the model was probably steered by the visitor), and
// a conversation with one in a visitor turn gets no rise at all; a quote
// with a weak marker is only dropped.
var (
	injectionMarkers = []string{
		"ignore previous", "ignore all previous", "ignore the above", "ignore your", "ignore prior",
		"ignore all instructions", "ignore these instructions", "disregard previous", "disregard the above",
		"disregard your", "disregard all", "system prompt", "you are now", "new rules", "new instructions",
		"rate me", "score me", "mark me as", "rank me", "classify me", "qualify me as", "tag me as",
		"label me as", "jailbreak", "to the ai", "to the model", "to the assistant", "reviewing this",
		"the visitor is", "this visitor", "the visitor should",
	}
	weakMarkers = []string{
		"instruction", "disregard", "sql", "mql", "qualified lead", "hot lead", "lead score", "score of",
		"score 100", "100/100", "tier", "prompt", "as an ai", "language model", "json", "this lead", "the visitor",
	}
)

func hasMarker(norm string, markers []string) bool {
	for _, m := range markers {
		if strings.Contains(norm, m) {
			return true
		}
	}
	return false
}

// checkInjection rejects a reply that offers instruction-like visitor text
// as evidence.
func (p proposal) checkInjection() error {
	for _, d := range p.dims {
		for _, e := range d.evidence {
			if hasMarker(normalise(e.quote).s, injectionMarkers) {
				return fmt.Errorf("dimension %q quotes instruction-like text as evidence", d.name)
			}
		}
	}
	return nil
}

// injected reports a visitor turn that reads as an instruction to the
// scorer.
func injected(turns []turn) bool {
	for _, t := range turns {
		if t.visitor && hasMarker(normalise(t.text).s, injectionMarkers) {
			return true
		}
	}
	return false
}

// located is a proposed quote found in a visitor turn.
type located struct {
	quote   string // the visitor's text, verbatim
	turn    int    // index in the Input's transcript
	reading string
}

// Bounds of an accepted quote.
const (
	minQuoteWords = 2
	maxQuoteBytes = 600
	maxQuotes     = 3 // per dimension
	maxReading    = 120
)

// locate finds a proposed quote in the visitor turns, the latest turn
// first: verbatim, or else ignoring case, runs of white space and curly
// versus straight quotation marks, in which case the visitor's own
// spelling is returned. Quotes too short, too long or instruction-like
// are refused.
func locate(q proposedQuote, turns []turn) (located, bool) {
	quote := strings.TrimSpace(q.quote)
	quote = strings.TrimSpace(strings.Trim(quote, "\"'“”‘’«»"))
	if quote == "" || len(quote) > maxQuoteBytes {
		return located{}, false
	}
	nq := normalise(quote)
	if len(strings.Fields(nq.s)) < minQuoteWords || hasMarker(nq.s, injectionMarkers) || hasMarker(nq.s, weakMarkers) {
		return located{}, false
	}
	reading := cleanReading(q.reading)
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		if !t.visitor {
			continue
		}
		if strings.Contains(t.text, quote) {
			return located{quote: quote, turn: t.index, reading: reading}, true
		}
		nt := normalise(t.text)
		if at := strings.Index(nt.s, nq.s); at >= 0 {
			from, to := nt.from[at], nt.to[at+len(nq.s)-1]
			return located{quote: t.text[from:to], turn: t.index, reading: reading}, true
		}
	}
	return located{}, false
}

// normalised is text folded for matching, with each byte's span in the
// original.
type normalised struct {
	s        string
	from, to []int // per byte of s: the original rune's start and end
}

func normalise(s string) normalised {
	var n normalised
	var b strings.Builder
	space := false
	for i, r := range s {
		w := utf8.RuneLen(r)
		if r == utf8.RuneError {
			w = 1
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			n.from, n.to = append(n.from, i), append(n.to, i)
			space = false
		}
		switch r {
		case '’', '‘', '`':
			r = '\''
		case '“', '”':
			r = '"'
		default:
			r = unicode.ToLower(r)
		}
		before := b.Len()
		b.WriteRune(r)
		for range b.Len() - before {
			n.from, n.to = append(n.from, i), append(n.to, i+w)
		}
	}
	n.s = b.String()
	return n
}

// cleanReading keeps the model's reading short and printable.
func cleanReading(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }), " ")
	if len(s) > maxReading {
		s = strings.TrimSpace(cut(s, maxReading)) + "…"
	}
	return s
}
