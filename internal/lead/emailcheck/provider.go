package emailcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// ProviderVerdict is an external verification service's answer for one
// address.
type ProviderVerdict string

const (
	// ProviderDeliverable: the mailbox exists.
	ProviderDeliverable ProviderVerdict = "deliverable"
	// ProviderUndeliverable: the receiving server refused the mailbox.
	// The only provider answer that blocks an address.
	ProviderUndeliverable ProviderVerdict = "undeliverable"
	// ProviderCatchAll: the domain accepts every local part, so the
	// mailbox cannot be confirmed; let through.
	ProviderCatchAll ProviderVerdict = "catch_all"
	// ProviderUnknown: the provider could not tell; let through.
	ProviderUnknown ProviderVerdict = "unknown"
)

// ProviderResult is what a Provider reports.
type ProviderResult struct {
	Verdict ProviderVerdict
	// Reason is the provider's own explanation, if any; it is passed on in
	// Result.Reason for undeliverable addresses.
	Reason string
}

// Provider is an external mailbox verification service (one that talks SMTP
// to the receiving server without sending). It is consulted only after the
// local checks pass, so it is never paid for junk the package can recognise
// itself. An error, a timeout or an unrecognised verdict makes the check
// fail open.
type Provider interface {
	Verify(ctx context.Context, address string) (ProviderResult, error)
}

// maxProviderBody bounds what is read from a provider's response; the
// expected body is a few dozen bytes.
const maxProviderBody = 64 << 10

// HTTPProvider is a generic Provider for a verification service reached over
// HTTP. It POSTs {"email": address} as JSON to a configured URL (with
// "Authorization: Bearer <token>" when a token is set) and expects a 200
// response with a JSON body {"result": "deliverable" | "undeliverable" |
// "catch_all" | "unknown", "reason": "..."}; reason is optional and unknown
// fields are ignored. Services with another wire format get their own small
// adapter implementing Provider.
//
// The HTTP client is injected: the URL is operator-configured, never
// customer-supplied, and the application decides which client (timeouts,
// proxy, SSRF guard) talks to it. The address travels in the body rather
// than the query string so it stays out of access logs.
type HTTPProvider struct {
	client   *http.Client
	endpoint string
	token    string
}

// NewHTTPProvider returns an HTTPProvider posting to endpoint through client.
// token may be empty.
func NewHTTPProvider(client *http.Client, endpoint, token string) (*HTTPProvider, error) {
	if client == nil {
		return nil, errors.New("emailcheck: http provider: nil http client")
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("emailcheck: http provider: endpoint %q is not an absolute http(s) URL", endpoint)
	}
	return &HTTPProvider{client: client, endpoint: endpoint, token: token}, nil
}

// Verify asks the service about one address.
func (p *HTTPProvider) Verify(ctx context.Context, address string) (ProviderResult, error) {
	body, err := json.Marshal(struct {
		Email string `json:"email"`
	}{address})
	if err != nil {
		return ProviderResult{}, fmt.Errorf("encode verification request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return ProviderResult{}, fmt.Errorf("build verification request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return ProviderResult{}, fmt.Errorf("verification request: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxProviderBody+1))
	if err != nil {
		return ProviderResult{}, fmt.Errorf("read verification response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		// The body is not echoed: it may repeat the address.
		return ProviderResult{}, fmt.Errorf("verification service answered %s", resp.Status)
	}
	if len(data) > maxProviderBody {
		return ProviderResult{}, errors.New("verification response too large")
	}
	var out struct {
		Result string `json:"result"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return ProviderResult{}, fmt.Errorf("decode verification response: %w", err)
	}
	v := ProviderVerdict(out.Result)
	switch v {
	case ProviderDeliverable, ProviderUndeliverable, ProviderCatchAll, ProviderUnknown:
		return ProviderResult{Verdict: v, Reason: out.Reason}, nil
	}
	return ProviderResult{}, fmt.Errorf("verification service returned unrecognised result %q", out.Result)
}

// NewConfiguredHTTPProvider is NewHTTPProvider with a client of its own for
// an operator-configured service (CONCIERGE_EMAIL_VERIFY_URL): bounded
// connect and response times, the environment's proxy honoured as for
// other operator-configured services.
func NewConfiguredHTTPProvider(endpoint, token string) (*HTTPProvider, error) {
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 8, IdleConnTimeout: time.Minute,
		TLSHandshakeTimeout: 5 * time.Second, ResponseHeaderTimeout: DefaultProviderTimeout,
		DialContext: (&net.Dialer{Timeout: 3 * time.Second}).DialContext}
	return NewHTTPProvider(&http.Client{Transport: tr, Timeout: 2 * DefaultProviderTimeout}, endpoint, token)
}
