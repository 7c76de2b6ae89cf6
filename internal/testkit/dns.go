package testkit

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
)

// Resolver is an in-memory DNS for the e-mail checks, so no test touches
// the network: every domain has a mail server unless listed in NoMail
// (NXDOMAIN) or Broken (a server failure, which the checks treat as
// unknown and let through).
type Resolver struct {
	mu     sync.Mutex
	NoMail map[string]bool
	Broken map[string]bool
}

// NewResolver is a Resolver where nomail.test-style domains have no mail
// server: "no-mx.io" and every domain given.
func NewResolver(noMail ...string) *Resolver {
	r := &Resolver{NoMail: map[string]bool{"no-mx.io": true}, Broken: map[string]bool{"dns-down.io": true}}
	for _, d := range noMail {
		r.NoMail[d] = true
	}
	return r
}

func (r *Resolver) answer(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	switch {
	case r.NoMail[name]:
		return &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
	case r.Broken[name]:
		return &net.DNSError{Err: "server misbehaving", Name: name, IsTemporary: true}
	}
	return nil
}

// LookupMX answers one MX record, mx.<name>, for every domain with mail.
func (r *Resolver) LookupMX(_ context.Context, name string) ([]*net.MX, error) {
	if err := r.answer(name); err != nil {
		return nil, err
	}
	return []*net.MX{{Host: "mx." + strings.TrimSuffix(name, ".") + ".", Pref: 10}}, nil
}

// LookupHost answers a documentation address for every domain with mail.
func (r *Resolver) LookupHost(_ context.Context, name string) ([]string, error) {
	if err := r.answer(name); err != nil {
		return nil, err
	}
	if strings.HasPrefix(name, "mx.") {
		return []string{"192.0.2.25"}, nil
	}
	return nil, errors.New("no address")
}

// Hosts is an injected name resolver for the outbound guard's tests: names
// resolve to the addresses set here and nothing else, so no lookup leaves
// the process. It is safe for concurrent use.
type Hosts struct {
	mu    sync.Mutex
	hosts map[string]string
}

// NewHosts returns a resolver that knows the given host, address pairs.
func NewHosts(pairs ...string) *Hosts {
	h := &Hosts{hosts: map[string]string{}}
	for i := 0; i+1 < len(pairs); i += 2 {
		h.hosts[pairs[i]] = pairs[i+1]
	}
	return h
}

// Set makes host resolve to ip (changing it mid-test models DNS rebinding).
func (h *Hosts) Set(host, ip string) {
	h.mu.Lock()
	h.hosts[host] = ip
	h.mu.Unlock()
}

// LookupIPAddr implements the guard's resolver.
func (h *Hosts) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	h.mu.Lock()
	ip, ok := h.hosts[host]
	h.mu.Unlock()
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
}
