package chunk

import (
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// codec is built once: loading the cl100k_base vocabulary (embedded in
// the binary, never downloaded) costs tens of milliseconds, and the codec
// is safe for concurrent use.
var codec = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		panic("chunk: cl100k_base vocabulary missing: " + err.Error())
	}
	return c
})

// CountTokens returns the number of cl100k_base tokens in s, the encoding
// of OpenAI's embedding and chat models, used as the measure of passage
// size everywhere.
func CountTokens(s string) int {
	if s == "" {
		return 0
	}
	if !utf8.ValidString(s) {
		// The library reads invalid bytes as U+FFFD; leave that to it.
		return codecCount(s)
	}
	return countPieces(s)
}

// codecCount counts with the library alone.
func codecCount(s string) int {
	n, err := codec().Count(s)
	if err != nil {
		// Count only fails on regexp engine errors; a rune-based
		// estimate keeps sizes bounded rather than failing ingestion.
		return utf8.RuneCountInString(s)
	}
	return n
}
