package chunk

import (
	"unicode"
	"unicode/utf8"

	"concierge/internal/memo"
)

// Counting cl100k_base tokens is two steps: a regular expression splits
// the text into pre-tokens (words with their leading space, numbers of up
// to three digits, punctuation runs, whitespace runs), then byte-pair
// merges turn each pre-token into tokens. The library runs the first step
// with a backtracking regexp engine that allocates per match, which was a
// third of ingestion time. nextPiece below is the same expression written
// out by hand, and the tokens of each distinct pre-token are remembered,
// so the library only ever sees short, new pieces. TestCountMatchesCodec
// and FuzzCountTokens hold the two to the same answer.
//
// The expression, tried alternative by alternative at each position:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)
//	| [^\r\n\p{L}\p{N}]?\p{L}+
//	| \p{N}{1,3}
//	|  ?[^\s\p{L}\p{N}]+[\r\n]*
//	| \s*[\r\n]+
//	| \s+(?!\S)
//	| \s+

// nextPiece returns the length in bytes of the pre-token at the start of
// s (valid UTF-8, not empty).
func nextPiece(s string) int {
	r0, n0 := utf8.DecodeRuneInString(s)
	if r0 == '\'' {
		if n := contraction(s[1:]); n > 0 {
			return 1 + n
		}
	}
	switch {
	case unicode.IsLetter(r0):
		return n0 + letters(s[n0:])
	case r0 != '\r' && r0 != '\n' && !unicode.IsNumber(r0):
		if r1, n1 := utf8.DecodeRuneInString(s[n0:]); n1 > 0 && unicode.IsLetter(r1) {
			return n0 + n1 + letters(s[n0+n1:])
		}
	}
	if unicode.IsNumber(r0) {
		n := n0
		for range 2 {
			r, size := utf8.DecodeRuneInString(s[n:])
			if size == 0 || !unicode.IsNumber(r) {
				break
			}
			n += size
		}
		return n
	}
	// " ?[^\s\p{L}\p{N}]+[\r\n]*"
	start := 0
	if r0 == ' ' {
		start = 1
	}
	if n := symbols(s[start:]); n > 0 {
		end := start + n
		for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
			end++
		}
		return end
	}
	// Whitespace: r0 is a space here (letters, numbers and symbols are
	// handled above).
	ws, lastNL := 0, -1
	for ws < len(s) {
		r, size := utf8.DecodeRuneInString(s[ws:])
		if !unicode.IsSpace(r) {
			break
		}
		if r == '\r' || r == '\n' {
			lastNL = ws
		}
		ws += size
	}
	switch {
	case lastNL >= 0: // \s*[\r\n]+ ends after the run's last line break
		return lastNL + 1
	case ws == len(s): // \s+(?!\S) at the end of the text
		return ws
	}
	// \s+(?!\S) gives the last space to the word that follows, when the
	// run has more than one; \s+ takes a lone space.
	_, last := utf8.DecodeLastRuneInString(s[:ws])
	if ws-last > 0 {
		return ws - last
	}
	return ws
}

// contraction matches 's 't 're 've 'm 'll 'd (any case) after the quote.
func contraction(s string) int {
	lower := func(i int) byte {
		if i >= len(s) {
			return 0
		}
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		return c
	}
	switch lower(0) {
	case 's', 't', 'm', 'd':
		return 1
	case 'r', 'v':
		if lower(1) == 'e' {
			return 2
		}
	case 'l':
		if lower(1) == 'l' {
			return 2
		}
	}
	return 0
}

func letters(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !unicode.IsLetter(r) {
			break
		}
		n += size
	}
	return n
}

// symbols matches [^\s\p{L}\p{N}]+.
func symbols(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if unicode.IsSpace(r) || unicode.IsLetter(r) || unicode.IsNumber(r) {
			break
		}
		n += size
	}
	return n
}

// pieceTokens remembers the token count of short pre-tokens: text
// repeats its words, so almost every lookup hits.
var pieceTokens = memo.New(1<<17, codecCount)

// maxCachedPieceLen keeps long runs (base64, URLs) out of the cache.
const maxCachedPieceLen = 48

// countPieces counts the tokens of valid UTF-8 text piece by piece.
func countPieces(s string) int {
	total := 0
	for len(s) > 0 {
		n := nextPiece(s)
		if n <= maxCachedPieceLen {
			total += pieceTokens.Get(s[:n])
		} else {
			total += codecCount(s[:n])
		}
		s = s[n:]
	}
	return total
}
