package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/mail"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"concierge/internal/llm/llmtest"
)

// fakeTB lets the soak (a program, not a test) use the llmtest fake, which
// asks for a testing.TB only to register its cleanup.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
}

func (t *fakeTB) Helper()                   {}
func (t *fakeTB) Cleanup(f func())          { t.mu.Lock(); t.cleanups = append(t.cleanups, f); t.mu.Unlock() }
func (t *fakeTB) Logf(f string, a ...any)   { log.Printf(f, a...) }
func (t *fakeTB) Errorf(f string, a ...any) { log.Printf(f, a...) }
func (t *fakeTB) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
func (t *fakeTB) Fatal(a ...any)            { panic(fmt.Sprint(a...)) }
func (t *fakeTB) close() {
	t.mu.Lock()
	fs := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// model is the fake OpenAI-compatible server with a fault switch: while
// failing, its answers cycle through 500, 429 with Retry-After, a hang
// longer than the service's model timeout, and a stream cut mid-reply.
type model struct {
	srv     *llmtest.Server
	failing atomic.Bool
	n       atomic.Int64
	faults  [4]atomic.Int64 // 500, 429, hang, cut
}

func startModel(tb *fakeTB) *model {
	m := &model{srv: llmtest.NewOpenAI(tb)}
	m.srv.Handle(func(r llmtest.Received) llmtest.Reply {
		if !m.failing.Load() {
			return llmtest.Reply{ChunkDelay: 2 * time.Millisecond}
		}
		i := m.n.Add(1) % 4
		m.faults[i].Add(1)
		switch i {
		case 0:
			return llmtest.Reply{Status: http.StatusInternalServerError}
		case 1:
			return llmtest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "1"}
		case 2:
			return llmtest.Reply{FirstDelay: time.Minute}
		default:
			return llmtest.Reply{Cut: llmtest.CutConnection, CutAfter: 2, ChunkDelay: 2 * time.Millisecond}
		}
	})
	return m
}

// smtpServer accepts every message, except while refusing: then every
// transaction gets 421 (service not available, try again later).
type smtpServer struct {
	srv      *smtp.Server
	ln       net.Listener
	refusing atomic.Bool
	refused  atomic.Int64

	mu   sync.Mutex
	msgs []mailMsg
}

type mailMsg struct {
	To        []string
	Subject   string
	MessageID string
}

func startSMTP() (*smtpServer, error) {
	s := &smtpServer{}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &smtpSession{s: s}, nil }))
	s.srv.Domain = "localhost"
	s.srv.ReadTimeout, s.srv.WriteTimeout = 30*time.Second, 30*time.Second
	s.srv.MaxMessageBytes = 10 << 20
	s.srv.AllowInsecureAuth = true
	s.srv.ErrorLog = log.New(io.Discard, "", 0)
	var err error
	if s.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, err
	}
	go func() { _ = s.srv.Serve(s.ln) }()
	return s, nil
}

func (s *smtpServer) url() string { return "smtp://" + s.ln.Addr().String() + "?tls=none" }
func (s *smtpServer) close()      { _ = s.srv.Close(); _ = s.ln.Close() }

func (s *smtpServer) messages() []mailMsg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]mailMsg(nil), s.msgs...)
}

type smtpSession struct {
	s  *smtpServer
	to []string
}

func (ss *smtpSession) Mail(string, *smtp.MailOptions) error {
	if ss.s.refusing.Load() {
		ss.s.refused.Add(1)
		return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "soak: refusing for a while"}
	}
	ss.to = nil
	return nil
}

func (ss *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.to = append(ss.to, to)
	return nil
}

func (ss *smtpSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m := mailMsg{To: ss.to}
	if msg, err := mail.ReadMessage(bytes.NewReader(data)); err == nil {
		m.Subject, m.MessageID = msg.Header.Get("Subject"), msg.Header.Get("Message-Id")
	}
	ss.s.mu.Lock()
	ss.s.msgs = append(ss.s.msgs, m)
	ss.s.mu.Unlock()
	return nil
}

func (ss *smtpSession) Reset()        { ss.to = nil }
func (ss *smtpSession) Logout() error { return nil }

// receiver is the webhook endpoint of every bot: /hook/<n>. It keeps every
// attempt it answered 2xx (webhook-id, signature, body) to verify the
// signatures at the end, when every endpoint's secret is known. While down
// it answers 500.
type receiver struct {
	srv     *http.Server
	ln      net.Listener
	down    atomic.Bool
	refused atomic.Int64

	mu       sync.Mutex
	accepted []delivery
}

type delivery struct {
	Path, ID, Timestamp, Signature string
	Body                           []byte
}

func startReceiver() (*receiver, error) {
	rc := &receiver{}
	var err error
	if rc.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, err
	}
	rc.srv = &http.Server{Handler: http.HandlerFunc(rc.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = rc.srv.Serve(rc.ln) }()
	return rc, nil
}

func (rc *receiver) base() string { return "http://" + rc.ln.Addr().String() }
func (rc *receiver) close()       { _ = rc.srv.Close() }

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if rc.down.Load() {
		rc.refused.Add(1)
		http.Error(w, "soak: receiver down", http.StatusInternalServerError)
		return
	}
	d := delivery{Path: r.URL.Path, ID: r.Header.Get("webhook-id"), Timestamp: r.Header.Get("webhook-timestamp"),
		Signature: r.Header.Get("webhook-signature"), Body: body}
	rc.mu.Lock()
	rc.accepted = append(rc.accepted, d)
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.accepted...)
}

// verifySignature checks a Standard Webhooks signature with a whsec_ secret.
func verifySignature(secret string, d delivery) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.", d.ID, d.Timestamp)
	mac.Write(d.Body)
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, s := range strings.Fields(d.Signature) {
		if v, ok := strings.CutPrefix(s, "v1,"); ok && hmac.Equal([]byte(v), []byte(want)) {
			return true
		}
	}
	return false
}

// site is the local website the bots crawl: a home page linking to
// sitePages product pages, each with facts the chats ask about.
type site struct {
	srv *http.Server
	ln  net.Listener
}

const sitePages = 30

var siteTopics = []string{"shipping", "returns", "warranty", "pricing", "support hours", "installation", "batteries",
	"accessories", "gift cards", "bulk orders"}

func siteFact(i int) string {
	t := siteTopics[i%len(siteTopics)]
	return fmt.Sprintf("Our %s policy for the Model %d lamp: orders of the Model %d are handled within %d business days, "+
		"and the %s team answers questions about Model %d by e-mail.", t, i, i, 1+i%5, t, i)
}

func startSite() (*site, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "User-agent: *\nAllow: /\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/" {
			var b strings.Builder
			b.WriteString("<html><head><title>Lamp shop</title></head><body><h1>Lamp shop</h1><p>We sell lamps.</p><ul>")
			for i := range sitePages {
				fmt.Fprintf(&b, `<li><a href="/p/%d">Model %d</a></li>`, i, i)
			}
			b.WriteString("</ul></body></html>")
			_, _ = io.WriteString(w, b.String())
			return
		}
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &i); err != nil || i < 0 || i >= sitePages {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<html><head><title>Model %d lamp</title></head><body><h1>Model %d</h1><h2>%s</h2><p>%s</p>
<p>The Model %d lamp has a warm light, a linen shade and a five year guarantee.</p><a href="/">Home</a> <a href="/p/%d">Next</a></body></html>`,
			i, i, siteTopics[i%len(siteTopics)], siteFact(i), i, (i+1)%sitePages)
	})
	s := &site{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	var err error
	if s.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, err
	}
	go func() { _ = s.srv.Serve(s.ln) }()
	return s, nil
}

func (s *site) url() string { return "http://" + s.ln.Addr().String() + "/" }
func (s *site) close()      { _ = s.srv.Close() }
