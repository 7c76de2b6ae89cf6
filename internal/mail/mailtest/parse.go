package mailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"testing"
	"time"
)

// parseInto fills the convenience fields of r from r.Data. It is lenient on
// purpose: a message the parser cannot read is still recorded, so the test
// can inspect the raw Data and see what went wrong.
func parseInto(r *Received) {
	msg, err := mail.ReadMessage(bytes.NewReader(r.Data))
	if err != nil {
		return
	}
	dec := new(mime.WordDecoder)
	if subject, err := dec.DecodeHeader(msg.Header.Get("Subject")); err == nil {
		r.Subject = subject
	}
	walkPart(r, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
}

func walkPart(r *Received, contentType, encoding string, body io.Reader) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if contentType == "" {
		mediaType, err = "text/plain", nil
	}
	if err != nil {
		return
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			// NextRawPart: transfer encodings are decoded below, uniformly.
			p, err := mr.NextRawPart()
			if err != nil {
				return
			}
			walkPart(r, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p)
		}
	}
	var field *string
	switch {
	case mediaType == "text/plain" && r.Text == "":
		field = &r.Text
	case mediaType == "text/html" && r.HTML == "":
		field = &r.HTML
	default:
		return
	}
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return
	}
	*field = strings.ReplaceAll(string(b), "\r\n", "\n")
}

// selfSignedConfig is a server TLS config for 127.0.0.1 and localhost;
// clients must skip verification (insecure_skip_verify=true).
func selfSignedConfig(t testing.TB) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("mailtest: generate key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "mailtest"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatalf("mailtest: create certificate: %v", err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
		MinVersion:   tls.VersionTLS12,
	}
}
