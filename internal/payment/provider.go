// Package payment talks to the payment provider: a sandbox that activates
// at once (the default, for local use) and Razorpay (a hand-written client
// over its HTTP API). It knows nothing of plans or bots.
package payment
