package web_test

// Browser tests: the widget and the demo page in a real Chromium, driven
// over the DevTools protocol. They need Debian's chromium (or CHROMIUM_PATH);
// without it they skip, except under CI=true, where a missing browser is a
// failure. Every wait is bounded.

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"concierge/internal/testkit"
	"concierge/web"
)

// wait bounds every single browser step.
const wait = 20 * time.Second

// browser is one headless Chromium with one tab.
type browser struct {
	t   *testing.T
	ctx context.Context

	mu         sync.Mutex
	exceptions []string
}

func chromiumPath() string {
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// requireChromium skips the test when there is no browser, or fails it
// under CI.
func requireChromium(t *testing.T) string {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium not found: the browser tests need Debian's chromium in CI")
		}
		t.Skip("chromium not found (apt-get install chromium, or set CHROMIUM_PATH)")
	}
	return path
}

// newBrowser starts a browser that is stopped when the test ends. Start it
// after the servers of the test: cleanups run last-in first-out, so the
// browser then closes its connections before the servers shut down (a
// server waits up to 5 s for a preconnected socket that never sent a
// request).
func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := requireChromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // tests run as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx}

	// The first run starts the browser and must not carry a deadline (it
	// would stop the browser), so it is bounded from outside.
	started := make(chan error, 1)
	go func() {
		started <- chromedp.Listen(ctx, func(ev any) {
			if e, ok := ev.(*runtime.EventExceptionThrown); ok {
				msg := e.ExceptionDetails.Text
				if e.ExceptionDetails.Exception != nil {
					msg += " " + e.ExceptionDetails.Exception.Description
				}
				b.mu.Lock()
				b.exceptions = append(b.exceptions, msg)
				b.mu.Unlock()
			}
		})
	}()
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("start chromium: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("chromium did not start within 20s")
	}
	// Record CSP violations of every document, before any page script runs.
	b.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__csp = []; document.addEventListener('securitypolicyviolation',
				e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`})
		return err
	}))
	return b
}

func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, wait)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

// navigate loads u and returns the main document's response.
func (b *browser) navigate(u string) *network.Response {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, wait)
	defer cancel()
	res, err := chromedp.RunResponse(ctx, chromedp.Navigate(u))
	if err != nil {
		b.t.Fatalf("navigate %s: %v", u, err)
	}
	return res
}

func (b *browser) reload() {
	b.t.Helper()
	b.do(chromedp.Reload())
}

// until waits for a JavaScript expression to become truthy.
func (b *browser) until(what, expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, wait+5*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(wait),
		chromedp.WithPollingInterval(25*time.Millisecond))); err != nil {
		b.t.Fatalf("waiting for %s: %v\n%s", what, err, b.dump())
	}
}

func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, wait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("eval %s: %v", expr, err)
	}
	return v
}

// dump describes the widget's state for failure messages.
func (b *browser) dump() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](w(`return S.querySelector('.r').innerText`)))
	return "widget text: " + s
}

// checkClean fails on an uncaught exception, a CSP violation or a payload
// that ran.
func (b *browser) checkClean() {
	b.t.Helper()
	b.mu.Lock()
	exc := append([]string(nil), b.exceptions...)
	b.mu.Unlock()
	if len(exc) > 0 {
		b.t.Errorf("uncaught exceptions in the page: %q", exc)
	}
	if v := eval[string](b, `String(window.__xss)`); v != "undefined" {
		b.t.Errorf("an injected payload ran: window.__xss = %s", v)
	}
	if v := eval[[]string](b, `window.__csp || []`); len(v) > 0 {
		b.t.Errorf("Content-Security-Policy violations: %q", v)
	}
}

// w wraps a function body that sees S, the widget's shadow root.
func w(body string) string {
	return `(() => { const h = document.querySelector('[data-concierge-widget]'); const S = h && h.shadowRoot;
		if (!S) return null; ` + body + ` })()`
}

// in selects an element inside the widget.
func in(sel string) chromedp.JSPath {
	return chromedp.JSPath(`document.querySelector('[data-concierge-widget]').shadowRoot.querySelector(` + strconv.Quote(sel) + `)`)
}

// inBot selects an element inside the i-th assistant message (the greeting
// is 0; -1 is the last).
func inBot(i int, sel string) chromedp.JSPath {
	return chromedp.JSPath(`Array.from(document.querySelector('[data-concierge-widget]').shadowRoot.querySelectorAll('.m.a')).at(` +
		strconv.Itoa(i) + `).querySelector(` + strconv.Quote(sel) + `)`)
}

// lastBot is a JavaScript expression for the last assistant message.
const lastBot = `Array.from(S.querySelectorAll('.m.a')).pop()`

// Widget state as the visitor sees it.
const (
	jsLauncherReady = `return !S.querySelector('.l').hidden`
	jsPanelOpen     = `return !S.querySelector('.p').hidden`
	jsBotTexts      = `return Array.from(S.querySelectorAll('.m.a .b')).map(e => e.textContent)`
	jsUserTexts     = `return Array.from(S.querySelectorAll('.m.u .b')).map(e => e.textContent)`
	jsNotices       = `return Array.from(S.querySelectorAll('.m.e .b')).map(e => e.textContent)`
	jsInputShown    = `const f = S.querySelector('form'); return !!f && !f.hidden && f.offsetParent !== null`
)

func (b *browser) strings(body string) []string {
	b.t.Helper()
	return eval[[]string](b, w(body))
}

// open clicks the launcher and waits for the panel.
func (b *browser) open() {
	b.t.Helper()
	b.until("the launcher", w(jsLauncherReady))
	if !eval[bool](b, w(jsPanelOpen)) {
		b.do(chromedp.Click(in(".l")))
	}
	b.until("the panel", w(jsPanelOpen))
}

// ask types a question, presses Enter and waits for the reply to finish.
func (b *browser) ask(q string) {
	b.t.Helper()
	b.do(chromedp.SendKeys(in("textarea"), q+kb.Enter))
	b.until("the question bubble", w(`const u = Array.from(S.querySelectorAll('.m.u .b')); return u.length && u[u.length-1].textContent === `+strconv.Quote(q)))
	b.until("the end of the reply", w(`return !S.querySelector('.g').hasAttribute('aria-busy')`))
}

func (b *browser) lastBotText() string {
	texts := b.strings(jsBotTexts)
	if len(texts) == 0 {
		return ""
	}
	return texts[len(texts)-1]
}

// hostPage serves a page of another origin with exactly one script tag for
// the widget, and extra pages for the crawler. It sets no CSP, so markup
// injected into it would run.
func hostPage(t *testing.T, appURL, botKey, title string, pages map[string]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		if body, ok := pages[r.URL.Path]; ok {
			fmt.Fprint(rw, body)
			return
		}
		if r.URL.Path != "/" {
			http.NotFound(rw, r)
			return
		}
		fmt.Fprintf(rw, `<!doctype html><html><head><meta charset="utf-8"><title>%s</title></head>
<body><h1>A customer's site</h1><p>Welcome.</p>
<script src="%s/widget.js" data-bot-key="%s"></script>
</body></html>`, html.EscapeString(title), html.EscapeString(appURL), html.EscapeString(botKey))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// realBot is a bot on the real service.
type realBot struct {
	a      *testkit.TestApp
	apiKey string
	id     int64
	botKey string
}

func newRealBot(t *testing.T, name string, opts ...testkit.Option) *realBot {
	t.Helper()
	return newRealBotOn(t, testkit.SQLite, name, opts...)
}

// newRealBotOn is newRealBot on the given engine.
func newRealBotOn(t *testing.T, e testkit.Engine, name string, opts ...testkit.Option) *realBot {
	t.Helper()
	a := testkit.NewApp(t, e, opts...)
	key, _ := a.Register(t, "owner@example.com")
	r := a.Do(t, "POST", "/bots", map[string]any{"name": name}, "X-API-Key", key)
	if r.Status != 201 {
		t.Fatalf("create bot: %d %s", r.Status, r.Body)
	}
	var out struct {
		BotID  int64  `json:"bot_id"`
		BotKey string `json:"bot_key"`
	}
	r.Decode(t, &out)
	return &realBot{a: a, apiKey: key, id: out.BotID, botKey: out.BotKey}
}

func (rb *realBot) patch(t *testing.T, body map[string]any) {
	t.Helper()
	r := rb.a.Do(t, "PATCH", fmt.Sprintf("/bots/%d", rb.id), body, "X-API-Key", rb.apiKey)
	if r.Status != 200 {
		t.Fatalf("patch bot: %d %s", r.Status, r.Body)
	}
}

func (rb *realBot) upload(t *testing.T, name, text string) {
	t.Helper()
	r := rb.a.Upload(t, "/ingest", rb.apiKey, rb.id, testkit.File{Name: name, Data: []byte(text)})
	if r.Status != 202 {
		t.Fatalf("ingest %s: %d %s", name, r.Status, r.Body)
	}
	var job struct {
		JobID string `json:"job_id"`
	}
	r.Decode(t, &job)
	rb.waitFor(t, "ingestion of "+name, "/ingest/status/"+job.JobID, "completed", "failed", "partial")
}

func (rb *realBot) crawl(t *testing.T, u string) {
	t.Helper()
	r := rb.a.Do(t, "POST", "/crawl", map[string]any{"bot_id": rb.id, "url": u, "max_pages": 1}, "X-API-Key", rb.apiKey)
	if r.Status != 202 {
		t.Fatalf("crawl: %d %s", r.Status, r.Body)
	}
	rb.waitFor(t, "crawl of "+u, fmt.Sprintf("/crawl/progress?bot_id=%d", rb.id), "completed", "cancelled", "failed")
}

func (rb *realBot) waitFor(t *testing.T, what, path string, terminal ...string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		var st struct {
			Status string `json:"status"`
		}
		r := rb.a.Do(t, "GET", path, nil, "X-API-Key", rb.apiKey)
		r.Decode(t, &st)
		for _, s := range terminal {
			if st.Status == s {
				if s != "completed" {
					t.Fatalf("%s ended %s: %s", what, s, r.Body)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still %q after %v: %s", what, st.Status, wait, r.Body)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestBrowserChatOnAllowedOrigin: a customer's page with one script tag
// loads the widget, streams an answer with its sources from the real
// service, and shows the conversation again after a reload.
func TestBrowserChatOnAllowedOrigin(t *testing.T) {
	requireChromium(t)
	rb := newRealBot(t, "Acme Help", testkit.WithEnv("CONCIERGE_OUTBOUND_ALLOW", "127.0.0.1/32"))
	host := hostPage(t, rb.a.URL, rb.botKey, "Acme outdoor gear", map[string]string{
		"/shipping": `<!doctype html><html><head><title>Shipping</title></head><body><main><h1>Shipping</h1>
<p>Every parcel travels with the Zephyrline courier. Zephyrline delivery takes three business days.</p></main></body></html>`,
	})
	rb.upload(t, "returns.txt", "Returns policy\n\nYou can return any unworn item within 45 days of delivery for a full refund. "+
		"Refunds reach your card within five business days.\n")
	rb.crawl(t, host.URL+"/shipping")
	rb.patch(t, map[string]any{"allowed_origins": []string{host.URL}, "greeting": "Hi! Ask me about Acme.",
		"appearance": map[string]any{"primary_color": "#0F766E"}})

	b := newBrowser(t)
	b.navigate(host.URL + "/")
	b.until("the launcher", w(jsLauncherReady))
	if n := eval[int](b, `document.querySelectorAll('[data-concierge-widget]').length`); n != 1 {
		t.Fatalf("%d widget hosts on the page", n)
	}
	if got := eval[string](b, w(`return S.querySelector('.l').getAttribute('aria-expanded')`)); got != "false" {
		t.Errorf("launcher aria-expanded = %q", got)
	}
	b.open()
	if got := b.strings(jsBotTexts); len(got) != 1 || got[0] != "Hi! Ask me about Acme." {
		t.Errorf("greeting: %q", got)
	}
	if got := eval[string](b, w(`return getComputedStyle(S.querySelector('.l')).backgroundColor`)); got != "rgb(15, 118, 110)" {
		t.Errorf("the launcher is not in the bot's colour: %s", got)
	}

	b.ask("How many days do I have to return an item?")
	reply1 := b.lastBotText()
	t.Logf("reply 1: %q", reply1)
	if !strings.Contains(reply1, "45 days") {
		t.Fatalf("reply does not answer from the uploaded file: %q\n%s", reply1, rb.a.Logs.String())
	}
	if got := b.strings(`return Array.from(` + lastBot + `.querySelectorAll('.x li')).map(e => e.textContent)`); len(got) == 0 ||
		!strings.Contains(strings.Join(got, " "), "returns") {
		t.Errorf("the uploaded file is not shown as the source: %q", got)
	}
	session := eval[string](b, `localStorage.getItem('concierge:session:`+rb.botKey+`') || ''`)
	if session == "" {
		t.Error("no session stored")
	}

	b.ask("Which courier carries my parcel?")
	reply2 := b.lastBotText()
	t.Logf("reply 2: %q", reply2)
	if !strings.Contains(reply2, "Zephyrline") {
		t.Fatalf("reply does not answer from the crawled page: %q", reply2)
	}
	link := host.URL + "/shipping"
	if got := b.strings(`return Array.from(` + lastBot + `.querySelectorAll('.x a')).map(a => a.href + ' ' + a.rel + ' ' + a.target)`); len(got) != 1 ||
		got[0] != link+" noopener noreferrer _blank" {
		t.Errorf("source link: %q, want %s", got, link)
	}
	if got := eval[string](b, `localStorage.getItem('concierge:session:`+rb.botKey+`')`); got != session {
		t.Errorf("the second question started a new session: %q then %q", session, got)
	}
	// Rate the first answer; the rating comes back with the history.
	b.do(chromedp.Click(inBot(1, `.v button[aria-label="Helpful"]`)))
	time.Sleep(300 * time.Millisecond)

	b.reload()
	b.open()
	b.until("the history", w(`return S.querySelectorAll('.m.u').length === 2`))
	if got := b.strings(jsUserTexts); strings.Join(got, "|") != "How many days do I have to return an item?|Which courier carries my parcel?" {
		t.Errorf("history questions: %q", got)
	}
	if got := b.strings(jsBotTexts); len(got) != 3 || got[1] != reply1 || got[2] != reply2 {
		t.Errorf("history replies differ from the streamed ones:\n got %q\nwant %q, %q", got, reply1, reply2)
	}
	if got := b.strings(`return Array.from(S.querySelectorAll('.x a')).map(a => a.href)`); len(got) != 1 || got[0] != link {
		t.Errorf("history source links: %q", got)
	}
	if got := eval[string](b, w(`return S.querySelectorAll('.m.a')[1].querySelector('.v button[aria-label="Helpful"]').getAttribute('aria-pressed')`)); got != "true" {
		t.Errorf("the rating was not recorded: aria-pressed=%q", got)
	}
	b.checkClean()
}

// TestBrowserOtherOriginGetsNoAnswer: a page on an origin outside the bot's
// allowlist neither loads the widget's settings nor reads an answer, while
// an allowed page of the same bot works.
func TestBrowserOtherOriginGetsNoAnswer(t *testing.T) {
	requireChromium(t)
	rb := newRealBot(t, "Locked bot")
	rb.upload(t, "facts.txt", "The opening hours of the Marigold store are nine to five on weekdays.\n")
	allowed := hostPage(t, rb.a.URL, rb.botKey, "Allowed", nil)
	other := hostPage(t, rb.a.URL, rb.botKey, "Other", nil)
	rb.patch(t, map[string]any{"allowed_origins": []string{allowed.URL}})

	b := newBrowser(t)
	b.navigate(allowed.URL + "/")
	b.open()
	b.until("the input on the allowed origin", w(jsInputShown))

	// Another origin (another port) with the same script tag.
	b.navigate(other.URL + "/")
	b.open()
	b.until("the unavailable state", w(`const o = S.querySelector('.off'); return !!o && o.textContent.length > 0`))
	if eval[bool](b, w(jsInputShown)) {
		t.Error("the widget offers an input on a disallowed origin")
	}
	if got := b.strings(jsBotTexts); len(got) != 0 {
		t.Errorf("bot text on a disallowed origin: %q", got)
	}
	// Even a page that bypasses the widget cannot read an answer.
	res := eval[string](b, `fetch(`+strconv.Quote(rb.a.URL+"/chat/stream")+`, {method: 'POST',
		headers: {'X-Bot-Key': `+strconv.Quote(rb.botKey)+`, 'Content-Type': 'application/json'},
		body: JSON.stringify({message: 'When is the Marigold store open?'})})
		.then(r => r.text().then(t => 'read ' + r.status + ' ' + t), e => 'blocked ' + e.name)`)
	t.Logf("direct fetch from the other origin: %s", res)
	if !strings.HasPrefix(res, "blocked") {
		t.Errorf("a disallowed origin read the chat endpoint: %s", res)
	}
	b.checkClean()
}

// XSS payloads for every place where data reaches the widget. Each would
// set window.__xss if it were parsed as markup or followed as a link.
const (
	xssName     = `<img src=x onerror="window.__xss='name'">`
	xssTitle    = `"><svg onload="window.__xss='title'">`
	xssGreeting = `<script>window.__xss='greeting'</script>"><svg onload="window.__xss='greeting2'"><img src=x onerror="window.__xss='greeting3'">`
	xssOffline  = `javascript:window.__xss='offline' <img src=x onerror="window.__xss='offline2'"> "><svg onload="window.__xss='offline3'">`
	xssLabel    = `"><img src=x onerror="window.__xss='label'">`
)

// TestBrowserPayloadsStayInert: bot texts and answers full of markup are
// shown as text on a page without any CSP, where injected markup would run.
func TestBrowserPayloadsStayInert(t *testing.T) {
	requireChromium(t)
	rb := newRealBot(t, xssName)
	host := hostPage(t, rb.a.URL, rb.botKey, "Payload host", nil)
	rb.patch(t, map[string]any{"allowed_origins": []string{host.URL}, "greeting": xssGreeting, "offline_message": xssOffline,
		"copy": map[string]any{"title": xssTitle, "input_placeholder": xssLabel, "launcher_label": xssLabel}})
	rb.upload(t, "handshake.txt", strings.Join([]string{
		`The secret handshake starts with <img src=x onerror="window.__xss='reply1'"> twice.`,
		`The secret handshake password is <script>window.__xss='reply2'</script> whispered.`,
		`The secret handshake ends with "><svg onload="window.__xss='reply3'"> and a bow.`,
		`The secret handshake manual is at javascript:window.__xss='reply4' for members.`,
	}, "\n")+"\n")

	b := newBrowser(t)
	b.navigate(host.URL + "/")
	// The detector works: on this page, markup put in with innerHTML runs.
	eval[chromedp.Void](b, `(() => { const d = document.createElement('div');
		d.innerHTML = '<img src=x onerror="window.__canary=1">'; document.body.appendChild(d); })()`)
	b.until("the canary", `window.__canary === 1`)

	b.open()
	if got := eval[string](b, w(`return S.querySelector('.h .n').textContent + '|' + S.querySelector('.h .s').textContent`)); got != xssTitle+"|"+xssName {
		t.Errorf("title|name = %q", got)
	}
	if got := b.strings(jsBotTexts); len(got) != 1 || got[0] != xssGreeting {
		t.Errorf("greeting shown as %q", got)
	}
	if got := eval[string](b, w(`return S.querySelector('textarea').placeholder`)); got != xssLabel {
		t.Errorf("placeholder %q", got)
	}

	b.ask("What is the secret handshake?")
	reply := b.lastBotText()
	t.Logf("reply: %q", reply)
	if !strings.Contains(reply, `onerror="window.__xss='reply1'"`) && !strings.Contains(reply, `<script>window.__xss='reply2'</script>`) &&
		!strings.Contains(reply, `<svg onload="window.__xss='reply3'">`) {
		t.Errorf("the reply does not show the payloads as text: %q", reply)
	}
	if n := eval[int](b, w(`return S.querySelectorAll('img:not(.h img), script, svg:not([aria-hidden]), iframe, [onerror], [onload]').length`)); n != 0 {
		t.Errorf("%d elements made from data", n)
	}
	if n := eval[int](b, w(`return Array.from(S.querySelectorAll('a')).filter(a => !/^https?:$/.test(new URL(a.href).protocol)).length`)); n != 0 {
		t.Errorf("%d links with a non-http scheme", n)
	}
	time.Sleep(200 * time.Millisecond) // give a stray onerror a chance to fire
	b.checkClean()

	// The workspace's trial ends: the bot goes offline and visitors get
	// only the offline message.
	rb.a.Clock.Advance(15 * 24 * time.Hour)
	b.reload()
	b.open()
	b.until("the offline message", w(`const o = S.querySelector('.off'); return !!o && o.textContent === `+strconv.Quote(xssOffline)))
	if eval[bool](b, w(jsInputShown)) {
		t.Error("an offline bot offers an input")
	}
	if got := b.strings(jsBotTexts); len(got) != 0 {
		t.Errorf("an offline bot shows messages: %q", got)
	}
	time.Sleep(200 * time.Millisecond)
	b.checkClean()
	if got := eval[string](b, `document.title`); got != "Payload host" {
		t.Errorf("the host page's title changed to %q", got)
	}
}

// TestBrowserDemoPage: the demo page frames the customer's site, loads the
// widget under its strict policy without violations, and answers.
func TestBrowserDemoPage(t *testing.T) {
	requireChromium(t)
	rb := newRealBot(t, `Demo "bot" <b>`)
	rb.upload(t, "hours.txt", "The Larkspur bakery opens at seven every morning.\n")
	site := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(rw, `<!doctype html><title>Bakery</title><h1>The Larkspur bakery</h1>`)
	}))
	t.Cleanup(site.Close)
	// The bot admits another site only: its own demo page still works.
	rb.patch(t, map[string]any{"allowed_origins": []string{"https://www.example.com"}})
	b := newBrowser(t)

	target := site.URL + `/menu?day=mon&x="><script>window.__xss=1</script>`
	res := b.navigate(rb.a.URL + "/demo/" + rb.botKey + "?url=" + url.QueryEscape(target))
	if res.Status != 200 || headerOf(res, "Content-Security-Policy") != web.DemoCSP(false) {
		t.Fatalf("demo page: %d, csp %q", res.Status, headerOf(res, "Content-Security-Policy"))
	}
	if got := eval[string](b, `document.querySelector('iframe').getAttribute('src')`); got != web.SiteURL(target) {
		t.Errorf("iframe src = %q, want %q", got, web.SiteURL(target))
	}
	if got := eval[string](b, `document.title`); got != `Demo "bot" <b> · demo` {
		t.Errorf("title %q", got)
	}
	if n := eval[int](b, `document.querySelectorAll('script').length`); n != 1 {
		t.Errorf("%d script elements on the demo page", n)
	}
	b.open()
	if got := eval[string](b, w(`return getComputedStyle(S.querySelector('.l')).position`)); got != "fixed" {
		t.Errorf("the widget is unstyled under the page's CSP: launcher position %q", got)
	}
	b.ask("When does the bakery open?")
	if reply := b.lastBotText(); !strings.Contains(reply, "seven") {
		t.Errorf("no answer on the demo page: %q", reply)
	}
	b.checkClean()

	for _, bad := range []string{"javascript:alert(1)", "data:text/html,<script>alert(1)</script>"} {
		b.navigate(rb.a.URL + "/demo/" + rb.botKey + "?url=" + url.QueryEscape(bad))
		if n := eval[int](b, `document.querySelectorAll('iframe').length`); n != 0 {
			t.Errorf("url=%s gave %d frames", bad, n)
		}
		b.until("the placeholder", `!!document.querySelector('main.empty')`)
	}

	// Edit mode: its one inline script runs under the policy (by hash).
	res = b.navigate(rb.a.URL + "/demo/" + rb.botKey + "?edit=1&url=" + url.QueryEscape(site.URL+"/"))
	if headerOf(res, "Content-Security-Policy") != web.DemoCSP(true) {
		t.Errorf("edit csp %q", headerOf(res, "Content-Security-Policy"))
	}
	want := `<script src="` + rb.a.URL + `/widget.js" data-bot-key="` + rb.botKey + `" async></script>`
	if got := eval[string](b, `document.getElementById('snippet').value`); got != want {
		t.Errorf("snippet %q, want %q", got, want)
	}
	b.do(chromedp.Click(chromedp.ID("copy")))
	b.until("the copy button's feedback", `document.getElementById('copy').textContent !== 'Copy embed snippet'`)
	b.until("the widget on the edit page", w(jsLauncherReady))
	b.checkClean()

	res = b.navigate(rb.a.URL + "/demo/bk_no_such_bot_here")
	if res.Status != 404 || eval[string](b, `document.querySelector('h1').textContent`) != "Demo not found" {
		t.Errorf("unknown key: %d", res.Status)
	}
}

func headerOf(res *network.Response, name string) string {
	for k, v := range res.Headers {
		if strings.EqualFold(k, name) {
			if s, ok := v.(string); ok {
				return s
			}
			return fmt.Sprint(v)
		}
	}
	return ""
}
