// Package llmtest runs in-process fakes of the model providers for tests.
// Each fake is an httptest server that speaks the provider's real wire
// protocol (OpenAI chat completions, Anthropic Messages; streamed as
// server-sent events or as one JSON body), so the production clients in
// internal/llm are what the tests exercise. Behaviour is scripted per
// request (slow replies, rate limits, server errors, a spent quota, a cut
// stream); unscripted requests get a deterministic echo of the question.
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"concierge/internal/llm"
)

// Defaults of a new fake.
const (
	DefaultAPIKey = "sk-fake-0123456789abcdef" // the key the fake accepts
	DefaultModel  = "fake-model"
)

// Cut is how a scripted reply breaks off after Reply.CutAfter text chunks.
type Cut int

const (
	NoCut Cut = iota
	// CutConnection drops the connection: the client sees an unexpected
	// end of the body (a crashed server, a load balancer timeout).
	CutConnection
	// CutEvents ends the HTTP response cleanly but without the final
	// events (no finish_reason and [DONE]; no message_delta and
	// message_stop): the reply looks finished at the HTTP level only.
	CutEvents
	// CutError sends the provider's in-stream error event (OpenAI's
	// data: {"error": ...}, Anthropic's event: error with overloaded_error)
	// and ends the response.
	CutError
)

// Reply scripts the fake's answer to one request. The zero Reply is the
// default: the echo of the last user message, one chunk per word.
type Reply struct {
	// Text is the reply; "" means the default echo.
	Text string
	// Chunks splits Text into this many pieces of near-equal length; 0
	// sends one piece per word, as tokens arrive from a real model.
	Chunks int
	// FirstDelay is the wait after the response headers (and Anthropic's
	// message_start) before the first text: the model "thinking".
	FirstDelay time.Duration
	// ChunkDelay is the wait between text chunks: a slow model.
	ChunkDelay time.Duration
	// StopReason in the provider's spelling; "": stop / end_turn.
	StopReason string
	// NoUsage leaves the token counts out even when the client asked for
	// them (servers that do not report usage).
	NoUsage bool

	// Status, when not 0, fails the request with this HTTP status and the
	// provider's error body for it (429, 500, 502, 503, 529, 400, ...).
	Status int
	// RetryAfter is sent as the Retry-After header of a failure: seconds
	// ("2") or an HTTP date.
	RetryAfter string
	// Quota fails the request with the provider's spent-quota error:
	// OpenAI's 429 insufficient_quota, Anthropic's 400 "credit balance is
	// too low".
	Quota bool

	// Cut breaks the stream off after CutAfter text chunks (0: before
	// any text).
	Cut      Cut
	CutAfter int
}

// Received is what the fake recorded of one request.
type Received struct {
	Seq    int // 1 for the fake's first request, 2 for the next, ...
	At     time.Time
	Method string
	Path   string
	Header http.Header
	Body   []byte

	// Decoded from the body (zero when it did not decode).
	Model        string
	System       string // system (and OpenAI developer) messages joined by blank lines
	Messages     []llm.Message
	MaxTokens    int      // max_tokens or max_completion_tokens
	Temperature  *float64 // nil when the request left it out
	Stream       bool
	IncludeUsage bool // OpenAI stream_options.include_usage

	// Filled in as the fake answers.
	Status     int         // the HTTP status answered
	Reply      string      // the text sent (up to a cut)
	ChunkTimes []time.Time // when each text chunk was sent (taken just before its write)
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to configure the client with: ".../v1" for
	// OpenAI, the server root for Anthropic.
	URL string
	// APIKey is the key the fake accepts; anything else is answered 401.
	// Change it before the first request.
	APIKey string

	provider string
	srv      *httptest.Server
	done     chan struct{}

	mu       sync.Mutex
	queue    []Reply
	fn       func(Received) Reply
	received []*Received
}

// NewOpenAI starts a fake OpenAI-compatible server, stopped when the test
// ends. It answers POST /v1/chat/completions.
func NewOpenAI(t testing.TB) *Server { return start(t, llm.ProviderOpenAI) }

// NewAnthropic starts a fake Anthropic Messages API, stopped when the test
// ends. It answers POST /v1/messages.
func NewAnthropic(t testing.TB) *Server { return start(t, llm.ProviderAnthropic) }

func start(t testing.TB, provider string) *Server {
	t.Helper()
	s := &Server{APIKey: DefaultAPIKey, provider: provider, done: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	if provider == llm.ProviderOpenAI {
		s.URL += "/v1"
	}
	t.Cleanup(s.Close)
	return s
}

// Close ends every reply in progress and stops the server. Tests need not
// call it: the fake closes itself when the test ends.
func (s *Server) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Client is an HTTP client for the fake.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Config is a client configuration aimed at the fake: its URL and key,
// DefaultModel, and a Sleep that does not wait, so that retries cost no
// time. Adjust the fields a test cares about.
func (s *Server) Config() llm.Config {
	return llm.Config{
		Provider: s.provider,
		BaseURL:  s.URL,
		APIKey:   s.APIKey,
		Model:    DefaultModel,
		Sleep:    NoSleep,
	}
}

// Model is llm.New(s.Config(), s.Client()), failing the test on error.
func (s *Server) Model(t testing.TB) llm.Model {
	t.Helper()
	m, err := llm.New(s.Config(), s.Client())
	if err != nil {
		t.Fatalf("llmtest: %v", err)
	}
	return m
}

// NoSleep is a Config.Sleep that returns at once (or with ctx's error when
// ctx has ended).
func NoSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// Enqueue scripts the next requests: each reply answers one request, in
// order. When the queue is empty, the Handle function (or the default
// echo) answers.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	s.queue = append(s.queue, replies...)
	s.mu.Unlock()
}

// Handle sets the function that answers requests the queue does not; nil
// restores the default echo. It sees the request as decoded, with Seq set.
func (s *Server) Handle(fn func(Received) Reply) {
	s.mu.Lock()
	s.fn = fn
	s.mu.Unlock()
}

// Requests returns copies of the requests received so far, oldest first.
func (s *Server) Requests() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Received, len(s.received))
	for i, r := range s.received {
		out[i] = *r
		out[i].Header = r.Header.Clone()
		out[i].Messages = append([]llm.Message(nil), r.Messages...)
		out[i].ChunkTimes = append([]time.Time(nil), r.ChunkTimes...)
	}
	return out
}

// Last returns the most recent request; it fails the test when there is none.
func (s *Server) Last(t testing.TB) Received {
	t.Helper()
	all := s.Requests()
	if len(all) == 0 {
		t.Fatal("llmtest: no request received")
	}
	return all[len(all)-1]
}

// reply picks the script for rec: the queue first, then the function.
func (s *Server) reply(rec Received) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r
	}
	fn := s.fn
	s.mu.Unlock()
	if fn != nil {
		return fn(rec)
	}
	return Reply{}
}

// record adds a request to the log and numbers it. The handler goes on
// filling the entry in through update, under the lock that Requests
// copies under.
func (s *Server) record(rec *Received) {
	s.mu.Lock()
	rec.Seq = len(s.received) + 1
	s.received = append(s.received, rec)
	s.mu.Unlock()
}

func (s *Server) update(fn func()) {
	s.mu.Lock()
	fn()
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.provider == llm.ProviderAnthropic {
		s.serveAnthropic(w, r)
		return
	}
	s.serveOpenAI(w, r)
}

// stream writes one reply's events with the scripted delays, recording
// when each text chunk was sent. Its methods return false once the client
// is gone or the fake is closing, and the handler then just returns.
type stream struct {
	s   *Server
	w   http.ResponseWriter
	rc  *http.ResponseController
	ctx context.Context
	rec *Received
}

func (s *Server) newStream(w http.ResponseWriter, r *http.Request, rec *Received) *stream {
	return &stream{s: s, w: w, rc: http.NewResponseController(w), ctx: r.Context(), rec: rec}
}

// wait sleeps d unless the client leaves or the fake closes first.
func (st *stream) wait(d time.Duration) bool {
	if d <= 0 {
		return st.ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-st.ctx.Done():
		return false
	case <-st.s.done:
		return false
	}
}

// raw writes and flushes bytes that carry no reply text.
func (st *stream) raw(b []byte) bool {
	if _, err := st.w.Write(b); err != nil {
		return false
	}
	return st.rc.Flush() == nil
}

// text writes and flushes one text chunk's bytes and records it. The time
// is taken just before the write, so that a client's receipt of the chunk
// is never earlier than its recorded time.
func (st *stream) text(b []byte, piece string) bool {
	now := time.Now()
	if !st.raw(b) {
		return false
	}
	st.s.update(func() {
		st.rec.ChunkTimes = append(st.rec.ChunkTimes, now)
		st.rec.Reply += piece
	})
	return true
}

// abort drops the connection without ending the response properly.
func (st *stream) abort() {
	_ = st.rc.Flush()
	panic(http.ErrAbortHandler)
}

// replyText is the text a reply sends.
func replyText(rep Reply, rec *Received) string {
	if rep.Text != "" {
		return rep.Text
	}
	return Echo(rec.Messages)
}

// Echo is the default reply to a conversation: "You asked: " and the
// first twelve words of the last user message. Tests that do not script
// the fake can predict it.
func Echo(msgs []llm.Message) string {
	last := ""
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			last = msgs[i].Content
			break
		}
	}
	words := strings.Fields(last)
	if len(words) == 0 {
		return "Hello! How can I help?"
	}
	if len(words) > 12 {
		words = append(words[:12], "…")
	}
	return "You asked: " + strings.Join(words, " ")
}

// Split divides text the way a Reply with the given Chunks sends it.
func Split(text string, chunks int) []string {
	if text == "" {
		return nil
	}
	if chunks <= 0 {
		// One piece per word, the space before a word going with it, as
		// tokenizers do.
		var out []string
		start := 0
		for i := 1; i < len(text); i++ {
			if text[i] == ' ' && text[i-1] != ' ' {
				out = append(out, text[start:i])
				start = i
			}
		}
		return append(out, text[start:])
	}
	n := utf8.RuneCountInString(text)
	chunks = min(chunks, n)
	out := make([]string, 0, chunks)
	rest := text
	for i := range chunks {
		size := n / chunks
		if i < n%chunks {
			size++
		}
		cut := 0
		for range size {
			_, w := utf8.DecodeRuneInString(rest[cut:])
			cut += w
		}
		out = append(out, rest[:cut])
		rest = rest[cut:]
	}
	return out
}

// words counts tokens the fake's way: whitespace-separated words.
func words(parts ...string) int {
	n := 0
	for _, p := range parts {
		n += len(strings.Fields(p))
	}
	return n
}

func inputTokens(rec *Received) int {
	n := words(rec.System)
	for _, m := range rec.Messages {
		n += words(m.Content)
	}
	return max(n, 1)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: encode: %v", err))
	}
	return b
}

// textParts reads message content that is either a string or a list of
// {"type":"text","text":...} parts, as both providers accept.
func textParts(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
