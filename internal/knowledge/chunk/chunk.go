// Package chunk splits extracted documents into passages sized for
// embedding and retrieval: a few hundred tokens, whole sentences, never
// straddling a heading, with a little overlap so a fact cut at a passage
// boundary is still found with its context.
package chunk

import (
	"slices"

	"concierge/internal/knowledge/extract"
)

// Options sizes passages in cl100k_base tokens. Zero fields take the
// defaults; a negative OverlapTokens turns overlap off.
type Options struct {
	TargetTokens  int // a passage is closed once the next sentence would pass this; default 320
	MaxTokens     int // hard cap per passage; default 512
	OverlapTokens int // trailing sentences repeated at the start of the next passage; default 48
}

// Defaults for the zero fields of Options.
const (
	DefaultTargetTokens  = 320
	DefaultMaxTokens     = 512
	DefaultOverlapTokens = 48
)

func (o Options) withDefaults() Options {
	if o.TargetTokens <= 0 {
		o.TargetTokens = DefaultTargetTokens
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	o.TargetTokens = min(o.TargetTokens, o.MaxTokens)
	switch {
	case o.OverlapTokens == 0:
		o.OverlapTokens = DefaultOverlapTokens
	case o.OverlapTokens < 0:
		o.OverlapTokens = 0
	}
	// Overlap beyond half a passage would make most of every passage a
	// repeat of the previous one.
	o.OverlapTokens = min(o.OverlapTokens, o.TargetTokens/2)
	return o
}

// Passage is one retrievable piece of a document.
type Passage struct {
	Ordinal     int      // position in the document, from 0
	Title       string   // the document title, carried on every passage
	HeadingPath []string // the section's heading path
	Anchor      string   // the section's fragment for a deep link, "" when none
	Text        string
	Tokens      int // cl100k_base tokens of Text
}

// Split cuts every section of doc into passages, in document order. It is
// deterministic: the same document and options give the same passages.
func Split(doc *extract.Document, opts Options) []Passage {
	if doc == nil {
		return nil
	}
	o := opts.withDefaults()
	var out []Passage
	for _, sec := range doc.Sections {
		units := segment(sec.Text, o.TargetTokens, o.MaxTokens)
		for _, p := range packSection(sec.Text, units, o) {
			out = append(out, Passage{
				Ordinal:     len(out),
				Title:       doc.Title,
				HeadingPath: slices.Clone(sec.HeadingPath),
				Anchor:      sec.Anchor,
				Text:        p.text,
				Tokens:      p.tokens,
			})
		}
	}
	return out
}

type piece struct {
	text   string
	tokens int
}

// packSection fills passages with whole units up to the target, starts
// each passage after the first with the previous one's trailing units
// worth up to OverlapTokens, and checks the exact count of every passage
// against MaxTokens (unit counts only add up approximately).
func packSection(text string, units []unit, o Options) []piece {
	var out []piece
	first, next := 0, 0 // the passage is units[first:next]; units before next are placed
	for next < len(units) {
		est := 0
		for _, u := range units[first:next] {
			est += u.tokens
		}
		added := 0
		for next < len(units) {
			t := units[next].tokens
			if added > 0 && est+t > o.TargetTokens {
				break
			}
			if est+t > o.MaxTokens && first < next-added {
				est -= units[first].tokens // give up overlap before sentences
				first++
				continue
			}
			est += t
			next++
			added++
		}
		// A short remainder joins this passage rather than making a
		// fragment of its own, when the cap allows.
		rem := 0
		for _, u := range units[next:] {
			if rem += u.tokens; rem > o.TargetTokens/4 {
				break
			}
		}
		if rem > 0 && rem <= o.TargetTokens/4 && est+rem <= o.MaxTokens {
			added += len(units) - next
			next = len(units)
		}
		body := text[units[first].start:units[next-1].end]
		n := CountTokens(body)
		for n > o.MaxTokens && (first < next-added || added > 1) {
			if first < next-added {
				first++
			} else {
				next--
				added--
			}
			body = text[units[first].start:units[next-1].end]
			n = CountTokens(body)
		}
		out = append(out, piece{body, n})
		first = overlapStart(units, first, next, o.OverlapTokens)
	}
	return out
}

// overlapStart picks the trailing units of units[first:next] to repeat:
// as many whole units as fit in overlap tokens, or the last one alone if
// it is at most half as long again; never the whole passage.
func overlapStart(units []unit, first, next, overlap int) int {
	k, sum := next, 0
	for k-1 > first && sum+units[k-1].tokens <= overlap {
		k--
		sum += units[k].tokens
	}
	if k == next && next-1 > first && units[next-1].tokens <= overlap*3/2 {
		k = next - 1
	}
	return k
}
