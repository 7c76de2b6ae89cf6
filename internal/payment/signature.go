package payment

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// signHex is Razorpay's signature scheme for both the checkout callback and
// webhooks: lower-case hex of HMAC-SHA256.
func signHex(secret string, message []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(message)
	return hex.EncodeToString(mac.Sum(nil))
}

// verifyHex compares in constant time on the decoded bytes, so neither the
// position of the first wrong character nor upper/lower case leaks through
// timing. A verifier without a secret fails closed: an empty key would let
// anyone who guesses the misconfiguration forge signatures.
func verifyHex(secret string, message []byte, signature string) bool {
	if secret == "" || len(signature) != 2*sha256.Size {
		return false
	}
	got, err := hex.DecodeString(signature)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(message)
	return hmac.Equal(got, mac.Sum(nil))
}

// paymentMessage is what Razorpay signs for a subscription checkout. Both
// ids must look like provider ids, so "|" inside one cannot shift the
// boundary between them.
func paymentMessage(subscriptionID, paymentID string) ([]byte, bool) {
	if checkID("subscription id", subscriptionID) != nil || checkID("payment id", paymentID) != nil {
		return nil, false
	}
	return []byte(paymentID + "|" + subscriptionID), true
}

func verifyPayment(secret, subscriptionID, paymentID, signature string) bool {
	msg, ok := paymentMessage(subscriptionID, paymentID)
	return ok && verifyHex(secret, msg, signature)
}
