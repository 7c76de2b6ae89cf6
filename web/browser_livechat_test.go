package web_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A visitor in the demo page asks for a person; an operator signs in to
// the inbox page, claims the conversation and replies; both sides see
// each other live, and hostile names and messages stay text.
func TestBrowserLiveChat(t *testing.T) {
	requireChromium(t)
	const xss = `<img src=x onerror="window.__xss=1">`
	rb := newRealBot(t, "Live chat bot")
	rb.patch(t, map[string]any{"live_chat": map[string]any{"enabled": true}})
	a := rb.a
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
	opb.navigate(a.URL + "/operator")
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

	opb.do(chromedp.SendKeys("#reply", "Hi there "+xss), chromedp.Click(`#reply-form button`))
	vis.until("the operator's message", w(`return Array.from(S.querySelectorAll('.m.o .b')).some(e => e.textContent === `+
		strconv.Quote("Hi there "+xss)+`)`))
	vis.ask("Thanks, person")
	opb.until("the visitor's message", `Array.from(document.querySelectorAll('#transcript li')).some(e => e.textContent === 'Visitor: Thanks, person')`)

	opb.do(chromedp.Click("#close"))
	vis.until("the closed notice", w(`return Array.from(S.querySelectorAll('.m.e .b')).some(e => e.textContent.includes('closed'))`))
	if m := a.Mailbox.WaitFor(t, "vera@example.com", 1); !strings.Contains(m[0].Text, "Thanks, person") {
		t.Errorf("transcript e-mail: %s", m[0].Text)
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
