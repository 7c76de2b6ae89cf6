package mail

import (
	"context"
	"net"
	"net/textproto"
	"strings"
	"testing"
)

// rawServer accepts connections on 127.0.0.1 and hands each to serve, for
// relay misbehaviour a well-behaved SMTP library server cannot produce.
func rawServer(t *testing.T, serve func(*textproto.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = conn.Close() }()
				serve(textproto.NewConn(conn))
			}()
		}
	}()
	return ln.Addr().String()
}

func TestSMTPAcceptedMessageIsSentEvenIfSessionDiesAfterwards(t *testing.T) {
	delivered := make(chan string, 1)
	addr := rawServer(t, func(c *textproto.Conn) {
		_ = c.PrintfLine("220 raw ready")
		for {
			line, err := c.ReadLine()
			if err != nil {
				return
			}
			switch cmd := strings.ToUpper(strings.Fields(line + " x")[0]); cmd {
			case "EHLO", "HELO", "NOOP", "MAIL", "RCPT":
				_ = c.PrintfLine("250 ok")
			case "DATA":
				_ = c.PrintfLine("354 go ahead")
				body, err := c.ReadDotBytes()
				if err != nil {
					return
				}
				_ = c.PrintfLine("250 queued")
				delivered <- string(body)
				// Hang up before RSET/QUIT: the message is already ours.
				return
			default:
				return
			}
		}
	})

	s, logs := newTestSMTP(t, "smtp://"+addr+"?tls=none")
	if err := s.Send(context.Background(), validMessage()); err != nil {
		t.Fatalf("Send = %v, want nil: the relay accepted the message and a retry would duplicate it", err)
	}
	if body := <-delivered; !strings.Contains(body, "482913") {
		t.Errorf("relay got %q, want the message", body)
	}
	if !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("want a WARN line about the failed session close, got %s", logs)
	}
}
