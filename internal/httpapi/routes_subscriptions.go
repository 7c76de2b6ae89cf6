package httpapi

import (
	"context"
	"net/http"

	"concierge/internal/apperr"
	"concierge/internal/subscription"
)

var errSubscriptionEnded = apperr.Conflict("this subscription ended before its bot was created")

// SubscriptionView is one subscription with the payment provider.
type SubscriptionView struct {
	SubscriptionID   string  `json:"subscription_id" doc:"The payment provider's id."`
	Provider         string  `json:"provider" enum:"sandbox,razorpay"`
	Purpose          string  `json:"purpose" enum:"extra_bot,plan" doc:"extra_bot: one more bot on the current plan; plan: a plan bought with a bot."`
	Plan             string  `json:"plan"`
	Status           string  `json:"status" doc:"created, authenticated, active, pending, halted, cancelled, completed or expired."`
	Currency         string  `json:"currency"`
	AmountMinor      int64   `json:"amount_minor" doc:"Price per period in minor units (paise, cents)."`
	BotID            *int64  `json:"bot_id" doc:"The bot this subscription pays for, once created."`
	CurrentPeriodEnd *string `json:"current_period_end"`
	CancelledAt      *string `json:"cancelled_at"`
	CreatedAt        string  `json:"created_at"`
}

func subscriptionView(s *subscription.Subscription) SubscriptionView {
	return SubscriptionView{SubscriptionID: s.ProviderID, Provider: s.Provider, Purpose: s.Purpose, Plan: s.Plan,
		Status: s.Status, Currency: s.Currency, AmountMinor: s.AmountMinor, BotID: s.BotID,
		CurrentPeriodEnd: optTime(s.CurrentPeriodEnd), CancelledAt: optTime(s.CancelledAt), CreatedAt: timestamp(s.CreatedAt)}
}

type checkoutInput struct {
	Body struct {
		Name     string `json:"name" minLength:"1" maxLength:"100" doc:"Name of the bot to create once paid."`
		Plan     string `json:"plan,omitempty" enum:"starter,standard,pro" doc:"Default: one more bot on the current paid plan, or starter."`
		Currency string `json:"currency,omitempty" enum:"INR,USD" doc:"Default: INR for a workspace billed in India, USD otherwise."`
		BotSettings
	}
}

type checkoutOutput struct {
	Body struct {
		SubscriptionID string `json:"subscription_id"`
		KeyID          string `json:"key_id" doc:"The provider's public key id for its checkout widget."`
		Provider       string `json:"provider"`
		Purpose        string `json:"purpose"`
		Plan           string `json:"plan"`
		Currency       string `json:"currency"`
		AmountMinor    int64  `json:"amount_minor"`
		Name           string `json:"name" doc:"Merchant name to show."`
		Description    string `json:"description"`
		ShortURL       string `json:"short_url,omitempty" doc:"Hosted payment page, when the provider has one."`
		Prefill        struct {
			Email string `json:"email"`
			Name  string `json:"name"`
		} `json:"prefill"`
		Notes   map[string]string `json:"notes"`
		Sandbox *struct {
			PaymentID string `json:"razorpay_payment_id"`
			Signature string `json:"razorpay_signature"`
		} `json:"sandbox,omitempty" doc:"Sandbox provider only: values that complete the checkout with POST /bots/checkout/verify."`
	}
}

type verifyInput struct {
	Body struct {
		PaymentID      string `json:"razorpay_payment_id" minLength:"1" maxLength:"64"`
		SubscriptionID string `json:"razorpay_subscription_id" minLength:"1" maxLength:"64"`
		Signature      string `json:"razorpay_signature" minLength:"1" maxLength:"128"`
	}
}

type verifyOutput struct {
	Body struct {
		Subscription SubscriptionView `json:"subscription"`
		Bot          BotView          `json:"bot"`
	}
}

type currentOutput struct {
	Body struct {
		Plan          string             `json:"plan"`
		Status        string             `json:"status" doc:"The workspace's plan status: trialing, active, past_due, canceled or expired."`
		Subscription  *SubscriptionView  `json:"subscription" doc:"The most recent active subscription, or null."`
		Subscriptions []SubscriptionView `json:"subscriptions" doc:"Every subscription of the workspace, newest first."`
	}
}

// InvoiceView is one invoice.
type InvoiceView struct {
	InvoiceID      string  `json:"invoice_id"`
	SubscriptionID string  `json:"subscription_id"`
	Status         string  `json:"status"`
	Currency       string  `json:"currency"`
	AmountMinor    int64   `json:"amount_minor"`
	PDFURL         string  `json:"pdf_url" doc:"Link to the invoice PDF."`
	IssuedAt       string  `json:"issued_at"`
	PaidAt         *string `json:"paid_at"`
}

type invoicesOutput struct {
	Body struct {
		Items []InvoiceView `json:"items"`
	}
}

type providerWebhookInput struct {
	Signature string `header:"X-Razorpay-Signature"`
	EventID   string `header:"X-Razorpay-Event-Id"`
	RawBody   []byte
}

type providerWebhookOutput struct {
	Body struct {
		Status string `json:"status"`
	}
}

func (s *Server) subscriptionRoutes() {
	tags := []string{"Billing"}
	register(s, route{id: "bot-checkout", method: http.MethodPost, path: "/bots/checkout", tags: []string{"Chatbots", "Billing"},
		creds: credWorkspace, limit: limitBilling, rawBody: true, summary: "Start paying for a new bot with its own subscription",
		desc: "Creates the subscription with the payment provider and returns what its checkout needs. The bot is " +
			"created when the payment is confirmed: by POST /bots/checkout/verify or the provider's activation " +
			"webhook, whichever comes first. Buys one more bot on the current paid plan (its extra_bot price), or " +
			"the chosen plan with a bot (its monthly price).",
		errors: []int{http.StatusConflict, http.StatusUnprocessableEntity, http.StatusServiceUnavailable}},
		func(ctx context.Context, in *checkoutInput) (*checkoutOutput, error) {
			fields, err := rawFields(ctx)
			if err != nil {
				return nil, err
			}
			delete(fields, "plan")
			delete(fields, "currency")
			p := principal(ctx)
			prof, err := s.accounts.Profile(ctx, p.WorkspaceID())
			if err != nil {
				return nil, err
			}
			country := ""
			if prof.BillingCountry != nil {
				country = *prof.BillingCountry
			}
			co, err := s.subscriptions.Checkout(ctx, p.WorkspaceID(), subscription.CheckoutInput{Plan: in.Body.Plan,
				Currency: in.Body.Currency, Bot: fields, Email: prof.Email, Name: prof.Name, Country: country})
			if err != nil {
				return nil, err
			}
			out := &checkoutOutput{}
			b := &out.Body
			sub := co.Subscription
			b.SubscriptionID, b.KeyID, b.Provider, b.Purpose, b.Plan = sub.ProviderID, co.KeyID, sub.Provider, sub.Purpose, sub.Plan
			b.Currency, b.AmountMinor, b.Name, b.Description, b.ShortURL = sub.Currency, sub.AmountMinor, "Concierge", co.Description, co.ShortURL
			b.Prefill.Email, b.Prefill.Name = prof.Email, prof.Name
			b.Notes = map[string]string{"purpose": sub.Purpose, "plan": sub.Plan}
			if co.SandboxSignature != "" {
				b.Sandbox = &struct {
					PaymentID string `json:"razorpay_payment_id"`
					Signature string `json:"razorpay_signature"`
				}{co.SandboxPaymentID, co.SandboxSignature}
			}
			return out, nil
		})

	register(s, route{id: "bot-checkout-verify", method: http.MethodPost, path: "/bots/checkout/verify", tags: []string{"Chatbots", "Billing"},
		creds: credWorkspace, limit: limitBilling, summary: "Confirm a checkout and create its bot",
		desc: "Checks the payment signature (HMAC-SHA256 of payment_id|subscription_id) and creates the bot; " +
			"idempotent: again, or after the provider's webhook, it returns the same bot. 400 for a bad signature, " +
			"403 for another workspace's subscription, 404 for an unknown one.",
		errors: []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *verifyInput) (*verifyOutput, error) {
			ws := principal(ctx).WorkspaceID()
			sub, err := s.subscriptions.Verify(ctx, ws, in.Body.SubscriptionID, in.Body.PaymentID, in.Body.Signature)
			if err != nil {
				return nil, err
			}
			if sub.BotID == nil {
				return nil, errSubscriptionEnded
			}
			v, err := s.bots.Get(ctx, ws, *sub.BotID)
			if err != nil {
				return nil, err
			}
			out := &verifyOutput{}
			out.Body.Subscription, out.Body.Bot = subscriptionView(sub), botView(v)
			return out, nil
		})

	register(s, route{id: "current-subscription", method: http.MethodGet, path: "/subscriptions/current", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "The workspace's plan status and subscriptions"},
		func(ctx context.Context, _ *noInput) (*currentOutput, error) {
			ws := principal(ctx).WorkspaceID()
			ent, err := s.billing.Entitlements(ctx, ws)
			if err != nil {
				return nil, err
			}
			subs, err := s.subscriptions.List(ctx, ws)
			if err != nil {
				return nil, err
			}
			out := &currentOutput{}
			out.Body.Plan, out.Body.Status = ent.Plan, ent.Status
			out.Body.Subscriptions = make([]SubscriptionView, len(subs))
			for i := range subs {
				out.Body.Subscriptions[i] = subscriptionView(&subs[i])
				if out.Body.Subscription == nil && subs[i].Status == subscription.StatusActive {
					v := out.Body.Subscriptions[i]
					out.Body.Subscription = &v
				}
			}
			return out, nil
		})

	register(s, route{id: "invoices", method: http.MethodGet, path: "/subscriptions/invoices", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Invoice history with PDF links"},
		func(ctx context.Context, _ *noInput) (*invoicesOutput, error) {
			invs, err := s.subscriptions.Invoices(ctx, principal(ctx).WorkspaceID())
			if err != nil {
				return nil, err
			}
			out := &invoicesOutput{}
			out.Body.Items = make([]InvoiceView, len(invs))
			for i, inv := range invs {
				out.Body.Items[i] = InvoiceView{InvoiceID: inv.ProviderInvoiceID, SubscriptionID: inv.ProviderSubscripID,
					Status: inv.Status, Currency: inv.Currency, AmountMinor: inv.AmountMinor, PDFURL: inv.PDFURL,
					IssuedAt: timestamp(inv.IssuedAt), PaidAt: optTime(inv.PaidAt)}
			}
			return out, nil
		})

	// The provider's webhook: not part of the customer-facing API.
	register(s, route{id: "razorpay-webhook", method: http.MethodPost, path: "/payments/razorpay/webhook", hidden: true},
		func(ctx context.Context, in *providerWebhookInput) (*providerWebhookOutput, error) {
			res, err := s.subscriptions.HandleWebhook(ctx, in.RawBody, in.Signature, in.EventID)
			if err != nil {
				return nil, err
			}
			out := &providerWebhookOutput{}
			switch {
			case res.Duplicate:
				out.Body.Status = "duplicate"
			case res.Ignored:
				out.Body.Status = "ignored"
			default:
				out.Body.Status = "processed"
			}
			return out, nil
		})
}
