package web_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"concierge/internal/testkit"
)

// A visitor in the demo page asks for a person; an operator signs in to
// the inbox page, claims the conversation, types and replies; both sides
// see each other live until the operator closes, and hostile names and
// messages stay text. Two browser contexts against two replicas on one
// PostgreSQL: the visitor's page on replica A, the operator's on B.
func TestBrowserLiveChat(t *testing.T) {
	requireChromium(t)
	const xss = `<img src=x onerror="window.__xss=1">`
	rb := newRealBotOn(t, testkit.Postgres, "Live chat bot")
	rb.patch(t, map[string]any{"live_chat": map[string]any{"enabled": true}})
	a := rb.a
	b := testkit.NewApp(t, testkit.Postgres, testkit.ReplicaOf(a))
	r := a.Do(t, "POST", "/operators", map[string]any{"email": "agent@example.com", "password": "agent password",
		"name": "Agent " + xss, "bot_id": rb.id}, "X-API-Key", rb.apiKey)
	if r.Status != 201 {
		t.Fatalf("operator: %d %s", r.Status, r.Body)
	}
	op := []string{"X-Operator-Key", r.JSON(t)["operator_key"].(string)}
	if r := a.Do(t, "PUT", "/operators/me/status", map[string]any{"status": "online"}, op...); r.Status != 200 {
		t.Fatalf("status: %d", r.Status)
	}

	vis := newBrowser(t)
	vis.navigate(a.URL + "/demo/" + rb.botKey)
	vis.open()
	vis.ask("Hello " + xss)
	vis.until("the talk-to-a-person button", w(`return !S.querySelector('.k').hidden`))
	vis.do(chromedp.Click(in(".k")))
	vis.until("the hand-off form", w(`return !!S.querySelector('.hf')`))
	vis.do(chromedp.SendKeys(in(".hf input[type=text]"), "Vera "+xss), chromedp.SendKeys(in(".hf input[type=email]"), "vera@example.com"),
		chromedp.Click(in(".hf button")))
	vis.until("the waiting notice", w(`return Array.from(S.querySelectorAll('.m.e .b')).some(e => e.textContent.includes('connecting you'))`))

	// The operator's page.
	opb := newBrowser(t)
	opb.navigate(b.URL + "/operator")
	opb.do(chromedp.SendKeys("#email", "agent@example.com"), chromedp.SendKeys("#password", "agent password"),
		chromedp.Click(`#signin-form button`))
	opb.until("the queue", `document.querySelectorAll('#list li').length === 1`)
	if got := eval[string](opb, `document.querySelector('#list li strong').textContent`); got != "Vera "+xss {
		t.Errorf("visitor name in the queue: %q", got)
	}
	opb.do(chromedp.Click("#list li"))
	opb.until("the transcript", `Array.from(document.querySelectorAll('#transcript li')).some(e => e.textContent.includes('Hello <img'))`)
	opb.do(chromedp.Click("#claim"))
	opb.until("the reply box", `!document.getElementById('reply').disabled`)
	vis.until("the joined notice", w(`return Array.from(S.querySelectorAll('.m.e .b')).some(e => e.textContent.includes('has joined'))`))

	// Typing shows on the visitor's side before the message arrives.
	opb.do(chromedp.SendKeys("#reply", "Hi"))
	vis.until("the typing notice", w(`return Array.from(S.querySelectorAll('.m.e .b')).some(e => e.textContent.includes('Typing'))`))
	opb.do(chromedp.SendKeys("#reply", " there "+xss), chromedp.Click(`#reply-form button`))
	vis.until("the operator's message", w(`return Array.from(S.querySelectorAll('.m.o .b')).some(e => e.textContent === `+
		strconv.Quote("Hi there "+xss)+`)`))
	vis.ask("Thanks, person")
	opb.until("the visitor's message", `Array.from(document.querySelectorAll('#transcript li')).some(e => e.textContent === 'Visitor: Thanks, person')`)

	opb.do(chromedp.Click("#close"))
	vis.until("the closed notice", w(`return Array.from(S.querySelectorAll('.m.e .b')).some(e => e.textContent.includes('closed'))`))
	// The transcript e-mail is a job: either replica may send it.
	deadline := time.Now().Add(20 * time.Second)
	for {
		m := append(a.Mailbox.Messages("vera@example.com"), b.Mailbox.Messages("vera@example.com")...)
		if len(m) > 0 {
			if !strings.Contains(m[0].Text, "Thanks, person") {
				t.Errorf("transcript e-mail: %s", m[0].Text)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no transcript e-mail")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, b := range []*browser{vis, opb} {
		if eval[bool](b, `window.__xss === 1`) {
			t.Fatal("a payload ran")
		}
		if n := eval[int](b, `document.querySelectorAll('img[src=x]').length`); n != 0 {
			t.Fatalf("a payload became markup: %d", n)
		}
		b.checkClean()
	}
}

// With the pre-chat form on, the widget asks for a name and e-mail before
// the first message; the lead it stores starts the conversation the
// visitor then talks in, and a hostile heading stays text.
func TestBrowserPreChatForm(t *testing.T) {
	requireChromium(t)
	const xss = `<img src=x onerror="window.__xss=1">`
	rb := newRealBot(t, "Pre-chat bot")
	rb.patch(t, map[string]any{"live_chat": map[string]any{"enabled": true, "pre_chat_form": true},
		"copy": map[string]any{"pre_chat_heading": "Who are you? " + xss}})
	vis := newBrowser(t)
	vis.navigate(rb.a.URL + "/demo/" + rb.botKey)
	vis.open()
	vis.until("the pre-chat form", w(`const f = S.querySelector('form.pc'); return !!f && S.querySelector('textarea').closest('form').hidden`))
	if got := eval[string](vis, w(`return S.querySelector('form.pc p').textContent`)); got != "Who are you? "+xss {
		t.Errorf("heading: %q", got)
	}
	vis.do(chromedp.SendKeys(in("form.pc input[type=text]"), "Nia"), chromedp.SendKeys(in("form.pc input[type=email]"), "nia@example.com"),
		chromedp.Click(in("form.pc button")))
	vis.until("the message box", w(`return !S.querySelector('form.pc') && !S.querySelector('textarea').closest('form').hidden`))
	session := eval[string](vis, `localStorage.getItem('concierge:session:`+rb.botKey+`') || ''`)
	if session == "" {
		t.Fatal("no session stored after the pre-chat form")
	}
	vis.ask("Hello there")
	if got := eval[string](vis, `localStorage.getItem('concierge:session:`+rb.botKey+`') || ''`); got != session {
		t.Errorf("the first message started another conversation: %q, want %q", got, session)
	}
	// Leads are scored in the background, within moments of a message.
	var out struct {
		Items []struct {
			Email     *string `json:"email"`
			SessionID string  `json:"session_id"`
		} `json:"items"`
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r := rb.a.Do(t, "GET", fmt.Sprintf("/leads?bot_id=%d", rb.id), nil, "X-API-Key", rb.apiKey)
		if r.Status != 200 {
			t.Fatalf("leads: %d %s", r.Status, r.Body)
		}
		r.Decode(t, &out)
		if len(out.Items) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(out.Items) != 1 || out.Items[0].Email == nil || *out.Items[0].Email != "nia@example.com" || out.Items[0].SessionID != session {
		t.Errorf("leads: %+v (session %s)", out.Items, session)
	}
	if eval[bool](vis, `window.__xss === 1`) || eval[int](vis, `document.querySelectorAll('img[src=x]').length`) != 0 {
		t.Fatal("the heading became markup")
	}
	vis.checkClean()
}
