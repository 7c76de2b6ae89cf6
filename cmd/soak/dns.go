package main

import (
	"net"
	"strings"
	"sync/atomic"

	"golang.org/x/net/dns/dnsmessage"
)

// dnsServer answers the e-mail checks' lookups (CONCIERGE_DNS_SERVER): the
// machine has no DNS, and without it every address of the load would be
// "no mail server" and every follow-up refused. Every domain has a mail
// server, mx.<domain>, at 127.0.0.1; anything else is an empty answer.
type dnsServer struct {
	conn    net.PacketConn
	queries atomic.Int64
}

func startDNS() (*dnsServer, error) {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &dnsServer{conn: c}
	go d.serve()
	return d, nil
}

func (d *dnsServer) addr() string { return d.conn.LocalAddr().String() }

func (d *dnsServer) close() { d.conn.Close() }

func (d *dnsServer) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if out, ok := d.answer(buf[:n]); ok {
			_, _ = d.conn.WriteTo(out, from)
		}
	}
}

func (d *dnsServer) answer(query []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	d.queries.Add(1)
	b := dnsmessage.NewBuilder(make([]byte, 0, 512), dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true,
		RecursionDesired: h.RecursionDesired, RecursionAvailable: true})
	b.EnableCompression()
	if b.StartQuestions() != nil || b.Question(q) != nil || b.StartAnswers() != nil {
		return nil, false
	}
	rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}
	switch q.Type {
	case dnsmessage.TypeMX:
		mx, err := dnsmessage.NewName("mx." + strings.TrimPrefix(q.Name.String(), "mx."))
		if err != nil || b.MXResource(rh, dnsmessage.MXResource{Pref: 10, MX: mx}) != nil {
			return nil, false
		}
	case dnsmessage.TypeA:
		if b.AResource(rh, dnsmessage.AResource{A: [4]byte{127, 0, 0, 1}}) != nil {
			return nil, false
		}
	}
	out, err := b.Finish()
	return out, err == nil
}
