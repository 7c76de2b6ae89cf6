package payment_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"concierge/internal/payment"
)

// independentHMAC is the reference the implementation is checked against.
func independentHMAC(secret, msg string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

func testRazorpay(t *testing.T) *payment.Razorpay {
	t.Helper()
	rp, err := payment.NewRazorpay(payment.RazorpayConfig{
		KeyID: "rzp_test_Key", KeySecret: testKeySecret, WebhookSecret: testWebhookSecret,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rp
}

func TestPaymentSignatureKnownAnswer(t *testing.T) {
	rp := testRazorpay(t)
	const sub, pay = "sub_00000000000001", "pay_29QQoUBi66xm2f"
	// Computed outside Go:
	//   printf '%s' 'pay_29QQoUBi66xm2f|sub_00000000000001' | openssl dgst -sha256 -hmac key_secret_for_tests
	const openssl = "9403e82b0210382f915cd74b9c5367d272d77d43551972be616ad7720e306116"
	if got := independentHMAC(testKeySecret, pay+"|"+sub); got != openssl {
		t.Fatalf("reference HMAC %s, openssl %s", got, openssl)
	}
	if !rp.VerifyPaymentSignature(sub, pay, openssl) {
		t.Error("valid payment signature refused")
	}
	if !rp.VerifyPaymentSignature(sub, pay, strings.ToUpper(openssl)) {
		t.Error("upper-case hex of the valid signature refused")
	}

	for name, sig := range map[string]string{
		"ids swapped":              independentHMAC(testKeySecret, sub+"|"+pay),
		"signed with webhook key":  independentHMAC(testWebhookSecret, pay+"|"+sub),
		"other subscription":       independentHMAC(testKeySecret, pay+"|sub_00000000000002"),
		"no separator":             independentHMAC(testKeySecret, pay+sub),
		"empty":                    "",
		"odd length":               openssl[:63],
		"truncated":                openssl[:62],
		"non-hex":                  "zz" + openssl[2:],
		"prefixed":                 "sha256=" + openssl,
		"trailing newline":         openssl + "\n",
		"double length":            openssl + openssl,
		"whitespace":               " " + openssl[1:],
		"sixty-four non-hex bytes": strings.Repeat("g", 64),
	} {
		if rp.VerifyPaymentSignature(sub, pay, sig) {
			t.Errorf("%s: accepted", name)
		}
	}
	for i := range openssl {
		if rp.VerifyPaymentSignature(sub, pay, tamperHex(openssl, i)) {
			t.Fatalf("signature with character %d changed accepted", i)
		}
	}
	for name, ids := range map[string][2]string{
		"pipe in payment id":     {sub, "pay_A|sub_B"},
		"empty payment id":       {sub, ""},
		"empty subscription id":  {"", pay},
		"path in subscription":   {"sub_1/../x", pay},
		"newline in payment id":  {sub, pay + "\n"},
		"overlong subscription":  {strings.Repeat("s", 65), pay},
		"unicode in payment id":  {sub, "pay_ü"},
		"space in subscription ": {"sub 1", pay},
	} {
		sig := independentHMAC(testKeySecret, ids[1]+"|"+ids[0])
		if rp.VerifyPaymentSignature(ids[0], ids[1], sig) {
			t.Errorf("%s: accepted", name)
		}
	}
}

// tamperHex changes one hex digit, keeping the string valid hex, so the
// test exercises the comparison rather than the decoding.
func tamperHex(s string, i int) string {
	c := byte('0')
	if s[i] == '0' {
		c = '1'
	}
	return s[:i] + string(c) + s[i+1:]
}

const sampleWebhook = `{"entity":"event","event":"subscription.charged"}`

func TestWebhookSignatureKnownAnswer(t *testing.T) {
	rp := testRazorpay(t)
	// printf '%s' "$sampleWebhook" | openssl dgst -sha256 -hmac webhook_secret_for_tests
	const openssl = "799e36c8c311cf63e051db2d2c079d465f74df288c4b4b4373c44ba30ad00aaa"
	if got := independentHMAC(testWebhookSecret, sampleWebhook); got != openssl {
		t.Fatalf("reference HMAC %s, openssl %s", got, openssl)
	}
	body := []byte(sampleWebhook)
	if !rp.VerifyWebhook(body, openssl) {
		t.Fatal("valid webhook signature refused")
	}

	for i := range body {
		tampered := []byte(sampleWebhook)
		tampered[i] ^= 0x01
		if rp.VerifyWebhook(tampered, openssl) {
			t.Fatalf("body with byte %d flipped accepted", i)
		}
	}
	for i := range openssl {
		if rp.VerifyWebhook(body, tamperHex(openssl, i)) {
			t.Fatalf("signature with character %d changed accepted", i)
		}
	}
	for name, variant := range map[string]string{
		"whitespace":        `{"entity": "event", "event": "subscription.charged"}`,
		"key order":         `{"event":"subscription.charged","entity":"event"}`,
		"trailing newline":  sampleWebhook + "\n",
		"escaped character": `{"entity":"event","event":"subscription\u002echarged"}`,
	} {
		if rp.VerifyWebhook([]byte(variant), openssl) {
			t.Errorf("re-serialised body (%s) accepted", name)
		}
	}
	if rp.VerifyWebhook(body, independentHMAC(testKeySecret, sampleWebhook)) {
		t.Error("webhook signed with the key secret accepted")
	}
	for _, sig := range []string{"", "0", openssl[:63], "xyz", strings.Repeat("Z", 64), "sha256=" + openssl} {
		if rp.VerifyWebhook(body, sig) {
			t.Errorf("signature %q accepted", sig)
		}
	}
	// The check is over bytes, whatever they are; parsing refuses nonsense.
	if !rp.VerifyWebhook(nil, independentHMAC(testWebhookSecret, "")) {
		t.Error("empty body with its valid signature refused")
	}
}

func TestWebhookPreviousSecretOnlyForOlderEvents(t *testing.T) {
	rotated := time.Unix(1700000000, 0)
	rp, err := payment.NewRazorpay(payment.RazorpayConfig{
		KeyID: "rzp_test_Key", KeySecret: testKeySecret, WebhookSecret: testWebhookSecret,
		PreviousWebhookSecret: "old_webhook_secret", WebhookSecretRotatedAt: rotated,
	})
	if err != nil {
		t.Fatal(err)
	}
	before := `{"entity":"event","event":"subscription.charged","created_at":1699999999}`
	after := `{"entity":"event","event":"subscription.charged","created_at":1700000000}`
	noTime := `{"entity":"event","event":"subscription.charged"}`
	for _, tc := range []struct {
		name, body, secret string
		want               bool
	}{
		{"old secret, older event", before, "old_webhook_secret", true},
		{"old secret, event at rotation", after, "old_webhook_secret", false},
		{"old secret, no created_at", noTime, "old_webhook_secret", false},
		{"new secret, older event", before, testWebhookSecret, true},
		{"new secret, newer event", after, testWebhookSecret, true},
		{"key secret, older event", before, testKeySecret, false},
	} {
		if got := rp.VerifyWebhook([]byte(tc.body), independentHMAC(tc.secret, tc.body)); got != tc.want {
			t.Errorf("%s: VerifyWebhook = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func FuzzVerifyNeverPanics(f *testing.F) {
	f.Add([]byte(sampleWebhook), "799e36c8c311cf63e051db2d2c079d465f74df288c4b4b4373c44ba30ad00aaa", "sub_1", "pay_1")
	f.Add([]byte{}, "", "", "")
	f.Add([]byte("\xff"), "zz", "sub|1", "pay|1")
	rp, err := payment.NewRazorpay(payment.RazorpayConfig{KeyID: "k", KeySecret: "a", WebhookSecret: "b"})
	if err != nil {
		f.Fatal(err)
	}
	sb := payment.NewSandbox("s")
	f.Fuzz(func(t *testing.T, body []byte, sig, sub, pay string) {
		rp.VerifyWebhook(body, sig)
		rp.VerifyPaymentSignature(sub, pay, sig)
		sb.VerifyWebhook(body, sig)
		sb.VerifyPaymentSignature(sub, pay, sig)
		_, _ = rp.ParseWebhook(body, sig)
	})
}
