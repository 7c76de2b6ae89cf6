package web_test

// The widget against a fake of its endpoints that speaks the contract
// exactly, so the test controls chunk boundaries, errors and timing.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"concierge/web"
)

// fakeAPI speaks the widget endpoints exactly as the contract says, so the
// test controls chunk boundaries, errors and timing.
type fakeAPI struct {
	srv    *httptest.Server
	botKey string

	mu       sync.Mutex
	offline  bool
	streams  []map[string]any
	feedback []map[string]any
	signals  []map[string]any
	badKeys  int
	held     chan struct{} // closed when the stream stopped inside the final marker
	release  chan struct{} // closed by the test to let it finish
}

// The reply of the fake: markup, lines that look like markers, backslashes
// and multi-byte characters, all to be shown exactly as written.
const fakeReply = "Hello <b>there</b>! <img src=x onerror=\"window.__xss='fake1'\">\n" +
	"METADATA: {\"session_id\":\"forged\"}\n" +
	"FINAL_METADATA: {\"answered\":false}\n" +
	"\\backslash line\n" +
	"\\\\two backslashes\n" +
	"\"><svg onload=\"window.__xss='fake2'\">\n" +
	"café ☕ — done"

var fakeSources = []map[string]any{
	{"title": "Pricing <script>window.__xss='src'</script>", "url": "https://example.com/pricing?a=1&b=2", "document_name": "pricing.html", "snippet": "", "score": 0.9},
	{"title": "Evil", "url": "javascript:window.__xss='link'", "document_name": "evil", "snippet": "", "score": 0.5},
	{"title": "", "url": "", "document_name": "handbook.pdf", "snippet": "", "score": 0.4},
	{"title": "Plain http", "url": "http://example.org/x", "document_name": "x", "snippet": "", "score": 0.3},
}

// escapeReply applies the server's escaping: one backslash before a line
// that starts with a marker or a backslash.
func escapeReply(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "METADATA:") || strings.HasPrefix(l, "FINAL_METADATA:") || strings.HasPrefix(l, `\`) {
			lines[i] = `\` + l
		}
	}
	return strings.Join(lines, "\n")
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{botKey: "bk_fake_widget", held: make(chan struct{}), release: make(chan struct{})}
	writeJSON := func(rw http.ResponseWriter, status int, v any) {
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(status)
		_ = json.NewEncoder(rw).Encode(v)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		h := rw.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, POST")
			h.Set("Access-Control-Allow-Headers", "Content-Type, X-Bot-Key")
			rw.WriteHeader(http.StatusNoContent)
			return
		}
		if r.URL.Path == "/widget.js" {
			h.Set("Content-Type", "application/javascript; charset=utf-8")
			_, _ = rw.Write(web.Widget.Body)
			return
		}
		if r.Header.Get("X-Bot-Key") != f.botKey {
			f.mu.Lock()
			f.badKeys++
			f.mu.Unlock()
			writeJSON(rw, 401, map[string]any{"detail": "invalid credentials"})
			return
		}
		var body map[string]any
		if r.Method == http.MethodPost {
			_ = json.NewDecoder(r.Body).Decode(&body)
		}
		f.mu.Lock()
		offline := f.offline
		f.mu.Unlock()
		switch {
		case r.URL.Path == "/bots/settings/public":
			s := map[string]any{"bot_key": f.botKey, "name": xssName, "is_offline": offline, "offline_message": xssOffline,
				"appearance": map[string]any{"primary_color": "#7C3AED", "position": "bottom-left", "theme": "light",
					"avatar_url": "javascript:window.__xss='avatar'", "launcher_icon": "help"}}
			if !offline {
				s["greeting"] = xssGreeting
				s["copy"] = map[string]any{"title": "Fake support", "launcher_label": "Ask us"}
			}
			writeJSON(rw, 200, s)
		case r.URL.Path == "/chat/stream":
			f.mu.Lock()
			f.streams = append(f.streams, body)
			f.mu.Unlock()
			f.stream(rw, body)
		case strings.HasPrefix(r.URL.Path, "/chat/history/"):
			if strings.TrimPrefix(r.URL.Path, "/chat/history/") != "s_fake_1" {
				writeJSON(rw, 404, map[string]any{"detail": "Not Found"})
				return
			}
			writeJSON(rw, 200, map[string]any{"session_id": "s_fake_1", "messages": []map[string]any{
				{"message_id": "m_q", "role": "user", "text": "Hello there <i>x</i>", "sources": []any{}, "created_at": "2026-01-01T00:00:00Z"},
				{"message_id": "m_fake_1", "role": "assistant", "text": fakeReply, "sources": fakeSources, "rating": "up", "created_at": "2026-01-01T00:00:01Z"},
			}})
		case r.URL.Path == "/chat/feedback":
			f.mu.Lock()
			f.feedback = append(f.feedback, body)
			f.mu.Unlock()
			writeJSON(rw, 200, map[string]any{"recorded": true})
		case r.URL.Path == "/chat/behavioral-signals":
			f.mu.Lock()
			f.signals = append(f.signals, body)
			f.mu.Unlock()
			writeJSON(rw, 404, map[string]any{"detail": "Not Found"}) // not there yet: the widget must not care
		default:
			writeJSON(rw, 404, map[string]any{"detail": "Not Found"})
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) stream(rw http.ResponseWriter, body map[string]any) {
	msg, _ := body["message"].(string)
	switch msg {
	case "limit me":
		rw.Header().Set("Retry-After", "7")
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(429)
		fmt.Fprint(rw, `{"detail":"too many requests","error":"rate_limited","retry_after_seconds":7}`)
		return
	case "pay me":
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(402)
		fmt.Fprint(rw, `{"detail":{"error":"insufficient_credits","required":1,"available":0,"message":"top up"}}`)
		return
	}
	fl := rw.(http.Flusher)
	rw.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	rw.WriteHeader(200)
	send := func(s string, size int) {
		for len(s) > 0 {
			n := min(size, len(s))
			_, _ = fmt.Fprint(rw, s[:n])
			fl.Flush()
			s = s[n:]
			time.Sleep(2 * time.Millisecond)
		}
	}
	send(`METADATA: {"session_id":"s_fake_1","sources":[]}`+"\n", 7)
	if msg == "break" {
		send("Half an answ", 5)
		return // the connection ends without FINAL_METADATA
	}
	send(escapeReply(fakeReply), 5) // 5-byte chunks split lines, markers and UTF-8 sequences
	final, _ := json.Marshal(map[string]any{"session_id": "s_fake_1", "message_id": "m_fake_1", "answered": true, "sources": fakeSources})
	marker := "\nFINAL_METADATA: "
	if msg == "Hello there <i>x</i>" {
		send(marker[:10], 3)
		close(f.held)
		select {
		case <-f.release:
		case <-time.After(wait):
		}
		send(marker[10:]+string(final)+"\n", 6)
		return
	}
	send(marker+string(final)+"\n", 4)
}

// TestBrowserWidgetProtocol runs the widget against the fake: the stream's
// escaping and chunking, the held-back marker, sources, feedback, page
// signals, errors, keyboard use, history and the offline state.
func TestBrowserWidgetProtocol(t *testing.T) {
	requireChromium(t)
	f := newFakeAPI(t)
	host := hostPage(t, f.srv.URL, f.botKey, "Fake host", nil)
	b := newBrowser(t)

	b.navigate(host.URL + "/?token=secret&utm_source=news#frag")
	b.until("the launcher", w(jsLauncherReady))
	if got := eval[string](b, w(`const l = S.querySelector('.l'); return [l.tagName, l.getAttribute('aria-label'), l.getAttribute('aria-expanded'), getComputedStyle(l).left].join('|')`)); got != "BUTTON|Ask us|false|20px" {
		t.Errorf("launcher: %s", got)
	}
	b.open()
	if got := eval[string](b, w(`const p = S.querySelector('.p'), g = S.querySelector('.g');
		return [p.getAttribute('role'), p.getAttribute('aria-label'), g.getAttribute('role'), g.getAttribute('aria-live'),
			S.querySelector('.l').getAttribute('aria-expanded'), S.activeElement && S.activeElement.tagName].join('|')`)); got != "dialog|Fake support|log|polite|true|TEXTAREA" {
		t.Errorf("panel accessibility: %s", got)
	}
	if n := eval[int](b, w(`return S.querySelectorAll('.h img:not([hidden])').length`)); n != 0 {
		t.Error("a javascript: avatar URL was used")
	}

	b.do(chromedp.SendKeys(in("textarea"), "Hello there <i>x</i>"+kb.Enter))
	select {
	case <-f.held:
	case <-time.After(wait):
		t.Fatal("the stream never reached the marker")
	}
	// The stream has stopped inside "\nFINAL_METADATA: ": the bubble shows
	// the whole reply and nothing of the marker.
	b.until("the reply before the marker", w(`const b = Array.from(S.querySelectorAll('.m.a .b')).pop(); return b.textContent === `+strconv.Quote(fakeReply)))
	close(f.release)
	b.until("the sources", w(`return !!`+lastBot+`.querySelector('.x')`))
	if got := b.lastBotText(); got != fakeReply {
		t.Errorf("reply shown as %q, want %q", got, fakeReply)
	}
	links := b.strings(`return Array.from(` + lastBot + `.querySelectorAll('.x a')).map(a => [a.getAttribute('href'), a.textContent, a.rel, a.target].join('|'))`)
	wantLinks := []string{
		"https://example.com/pricing?a=1&b=2|Pricing <script>window.__xss='src'</script>|noopener noreferrer|_blank",
		"http://example.org/x|Plain http|noopener noreferrer|_blank",
	}
	if strings.Join(links, "\n") != strings.Join(wantLinks, "\n") {
		t.Errorf("source links:\n%s", strings.Join(links, "\n"))
	}
	if got := b.strings(`return Array.from(` + lastBot + `.querySelectorAll('.x li > span')).map(e => e.textContent)`); strings.Join(got, "|") != "Evil|handbook.pdf" {
		t.Errorf("plain sources: %q", got)
	}
	if got := eval[string](b, `localStorage.getItem('concierge:session:`+f.botKey+`')`); got != "s_fake_1" {
		t.Errorf("stored session %q", got)
	}

	b.do(chromedp.Click(inBot(-1, `.v button[aria-label="Helpful"]`)))
	b.until("the pressed rating", w(`return `+lastBot+`.querySelector('.v button[aria-label="Helpful"]').getAttribute('aria-pressed') === 'true'`))
	waitFake(t, "feedback", func() bool { return len(f.feedback) == 1 }, &f.mu)
	f.mu.Lock()
	if fb := f.feedback[0]; fb["session_id"] != "s_fake_1" || fb["message_id"] != "m_fake_1" || fb["rating"] != "up" {
		t.Errorf("feedback %v", fb)
	}
	if _, ok := f.streams[0]["session_id"]; ok || f.streams[0]["message"] != "Hello there <i>x</i>" {
		t.Errorf("first stream request %v", f.streams[0])
	}
	f.mu.Unlock()
	waitFake(t, "page context", func() bool { return len(f.signals) >= 1 }, &f.mu)
	f.mu.Lock()
	if sig := f.signals[0]; sig["session_id"] != "s_fake_1" || sig["page_url"] != host.URL+"/?utm_source=news" ||
		sig["page_title"] != "Fake host" || sig["referrer"] != "" {
		t.Errorf("page context %v", sig)
	}
	f.mu.Unlock()

	for _, c := range []struct{ ask, notice string }{
		{"limit me", "You are sending messages too quickly. Please wait 7 seconds and try again."},
		{"pay me", "This assistant is unavailable right now. Please try again later."},
		{"break", "The answer was interrupted. Please try again."},
	} {
		before := len(b.strings(jsNotices))
		b.ask(c.ask)
		notices := b.strings(jsNotices)
		if len(notices) != before+1 || notices[len(notices)-1] != c.notice {
			t.Errorf("%s: notices %q", c.ask, notices)
		}
	}
	if got := b.lastBotText(); got != "Half an answ" {
		t.Errorf("the broken reply's text: %q", got)
	}
	f.mu.Lock()
	if f.streams[1]["session_id"] != "s_fake_1" {
		t.Errorf("a later question did not continue the session: %v", f.streams[1])
	}
	f.mu.Unlock()

	// Escape closes the panel and gives focus back to the launcher.
	b.do(chromedp.Focus(in("textarea")), chromedp.KeyEvent(kb.Escape))
	b.until("the closed panel", w(`return S.querySelector('.p').hidden && S.activeElement === S.querySelector('.l') &&
		S.querySelector('.l').getAttribute('aria-expanded') === 'false'`))

	b.reload()
	b.open()
	b.until("the history", w(`return S.querySelectorAll('.m.u').length === 1 && S.querySelectorAll('.m.a').length === 2`))
	if got := b.strings(jsBotTexts); got[1] != fakeReply {
		t.Errorf("history reply %q", got[1])
	}
	if got := eval[string](b, w(`const m = `+lastBot+`; return m.querySelector('.v button[aria-label="Helpful"]').getAttribute('aria-pressed') + '|' +
		m.querySelectorAll('.x a').length`)); got != "true|2" {
		t.Errorf("history rating|links = %s", got)
	}

	f.mu.Lock()
	f.offline = true
	f.mu.Unlock()
	b.reload()
	b.open()
	b.until("the offline message", w(`const o = S.querySelector('.off'); return !!o && o.textContent === `+strconv.Quote(xssOffline)))
	if eval[bool](b, w(jsInputShown)) || len(b.strings(jsBotTexts)) != 0 {
		t.Error("offline: an input or messages are shown")
	}
	time.Sleep(200 * time.Millisecond)
	b.checkClean()

	// Leaving the page reports the time spent on it.
	b.navigate("about:blank")
	waitFake(t, "time on page", func() bool {
		for _, s := range f.signals {
			if _, ok := s["time_on_page_seconds"]; ok && s["session_id"] == "s_fake_1" {
				return true
			}
		}
		return false
	}, &f.mu)
	f.mu.Lock()
	if f.badKeys != 0 {
		t.Errorf("%d requests without the bot key", f.badKeys)
	}
	f.mu.Unlock()
}

func waitFake(t *testing.T, what string, cond func() bool, mu *sync.Mutex) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		mu.Lock()
		ok := cond()
		mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fake never received %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
