package httpapi

import (
	"context"
	"net/http"
	"time"

	"concierge/internal/webhook"
)

type webhookCreateInput struct {
	Body struct {
		BotID       int64    `json:"bot_id" minimum:"1" doc:"The bot whose events the endpoint receives."`
		URL         string   `json:"url" minLength:"1" maxLength:"2048" doc:"https (http only for hosts in CONCIERGE_OUTBOUND_ALLOW); no credentials; no private or reserved address."`
		Events      []string `json:"events" minItems:"1" maxItems:"64" doc:"Event types to receive (GET /webhooks/event-types)."`
		Active      *bool    `json:"active,omitempty" doc:"Default true."`
		Description string   `json:"description,omitempty" maxLength:"500"`
	}
}

type webhookCreatedOutput struct {
	Body *webhook.Endpoint
}

type webhookListInput struct {
	BotID int64 `query:"bot_id" required:"true" minimum:"1" doc:"The bot whose endpoints to list (required)."`
}

type webhookListOutput struct {
	Body struct {
		Items []webhook.Endpoint `json:"items"`
	}
}

type webhookIDInput struct {
	WebhookID string `path:"webhook_id" maxLength:"100"`
}

type webhookPatchInput struct {
	WebhookID string `path:"webhook_id" maxLength:"100"`
	Body      struct {
		URL         *string  `json:"url,omitempty" minLength:"1" maxLength:"2048"`
		Events      []string `json:"events,omitempty" minItems:"1" maxItems:"64"`
		Active      *bool    `json:"active,omitempty" doc:"true turns a disabled endpoint back on (clearing disabled_reason)."`
		Description *string  `json:"description,omitempty" maxLength:"500"`
	}
}

type webhookOutput struct {
	Body *webhook.Endpoint
}

type webhookDeletedOutput struct {
	Body struct {
		Deleted   bool   `json:"deleted"`
		WebhookID string `json:"webhook_id"`
	}
}

type webhookEventTypesOutput struct {
	Body struct {
		Items []webhook.EventType `json:"items"`
	}
}

type webhookDeliveriesInput struct {
	WebhookID string `path:"webhook_id" maxLength:"100"`
	Status    string `query:"status" enum:"succeeded,failed" doc:"Only attempts with this outcome."`
	EventType string `query:"event_type" maxLength:"100" doc:"Only attempts of messages of this type."`
	Page      int    `query:"page" minimum:"1" default:"1"`
	Limit     int    `query:"limit" minimum:"1" maximum:"200" default:"50"`
}

type webhookDeliveriesOutput struct {
	Body struct {
		Items []webhook.Delivery `json:"items"`
		Total int                `json:"total"`
		Page  int                `json:"page"`
		Limit int                `json:"limit"`
	}
}

type webhookTestOutput struct {
	Body *webhook.Outcome
}

type webhookReplayInput struct {
	WebhookID string `path:"webhook_id" maxLength:"100"`
	Body      struct {
		MessageID string     `json:"message_id,omitempty" maxLength:"100" doc:"One failed message to send again."`
		Since     *time.Time `json:"since,omitempty" doc:"Send again every failed message created since this time."`
	}
}

type webhookReplayOutput struct {
	Body struct {
		Replayed int64 `json:"replayed" doc:"Messages queued for delivery now."`
	}
}

func (s *Server) webhookRoutes() {
	tags := []string{"Webhooks"}
	notFound := []int{http.StatusNotFound}

	register(s, route{id: "webhook-event-types", method: http.MethodGet, path: "/webhooks/event-types", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "The event catalogue",
		desc: "Every event type an endpoint can subscribe to, with a sample payload. Payloads are {type, timestamp, data}."},
		func(ctx context.Context, _ *struct{}) (*webhookEventTypesOutput, error) {
			out := &webhookEventTypesOutput{}
			out.Body.Items = webhook.Catalogue()
			return out, nil
		})

	register(s, route{id: "create-webhook", method: http.MethodPost, path: "/webhooks", tags: tags, creds: credWorkspace,
		limit: limitWrite, status: http.StatusCreated, summary: "Create a webhook endpoint",
		desc: "The answer holds the signing secret (whsec_...) in full: the only time it is shown. Deliveries are " +
			"signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature). The plan limits " +
			"endpoints per bot (403 plan_limit).",
		errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *webhookCreateInput) (*webhookCreatedOutput, error) {
			c, err := s.webhooks.Create(ctx, principal(ctx).WorkspaceID(), webhook.CreateInput{BotID: in.Body.BotID,
				URL: in.Body.URL, Events: in.Body.Events, Active: in.Body.Active, Description: in.Body.Description})
			if err != nil {
				return nil, err
			}
			return &webhookCreatedOutput{Body: c.Endpoint}, nil
		})

	register(s, route{id: "list-webhooks", method: http.MethodGet, path: "/webhooks", tags: tags, creds: credWorkspace,
		limit: limitRead, summary: "List a bot's webhook endpoints", desc: "Secrets come back masked.",
		errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *webhookListInput) (*webhookListOutput, error) {
			items, err := s.webhooks.List(ctx, principal(ctx).WorkspaceID(), in.BotID)
			if err != nil {
				return nil, err
			}
			out := &webhookListOutput{}
			out.Body.Items = items
			return out, nil
		})

	register(s, route{id: "update-webhook", method: http.MethodPatch, path: "/webhooks/{webhook_id}", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Change a webhook endpoint",
		desc: "URL, subscribed events, active flag, description; omitted fields stay.", errors: notFound},
		func(ctx context.Context, in *webhookPatchInput) (*webhookOutput, error) {
			e, err := s.webhooks.Update(ctx, principal(ctx).WorkspaceID(), in.WebhookID, webhook.UpdateInput{
				URL: in.Body.URL, Events: in.Body.Events, Active: in.Body.Active, Description: in.Body.Description})
			if err != nil {
				return nil, err
			}
			return &webhookOutput{Body: e}, nil
		})

	register(s, route{id: "delete-webhook", method: http.MethodDelete, path: "/webhooks/{webhook_id}", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Delete a webhook endpoint",
		desc: "Its messages and delivery log go with it.", errors: notFound},
		func(ctx context.Context, in *webhookIDInput) (*webhookDeletedOutput, error) {
			if err := s.webhooks.Delete(ctx, principal(ctx).WorkspaceID(), in.WebhookID); err != nil {
				return nil, err
			}
			out := &webhookDeletedOutput{}
			out.Body.Deleted, out.Body.WebhookID = true, in.WebhookID
			return out, nil
		})

	register(s, route{id: "test-webhook", method: http.MethodPost, path: "/webhooks/{webhook_id}/test", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Send a test delivery now",
		desc: "Sends a webhook.test message at once (whatever the endpoint subscribes to) and answers the attempt's " +
			"outcome: status code, duration, error. A failed test is retried on the usual schedule.", errors: notFound},
		func(ctx context.Context, in *webhookIDInput) (*webhookTestOutput, error) {
			o, err := s.webhooks.Test(ctx, principal(ctx).WorkspaceID(), in.WebhookID)
			if err != nil {
				return nil, err
			}
			return &webhookTestOutput{Body: o}, nil
		})

	register(s, route{id: "webhook-deliveries", method: http.MethodGet, path: "/webhooks/{webhook_id}/deliveries", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "The delivery log",
		desc: "One item per attempt, newest first: message id, event type, attempt number, status code, duration, " +
			"the first 4 KiB of the response body, error, time and next retry.", errors: notFound},
		func(ctx context.Context, in *webhookDeliveriesInput) (*webhookDeliveriesOutput, error) {
			items, total, err := s.webhooks.Deliveries(ctx, principal(ctx).WorkspaceID(), in.WebhookID, webhook.DeliveryFilter{
				Status: in.Status, EventType: in.EventType, Page: in.Page, Limit: in.Limit})
			if err != nil {
				return nil, err
			}
			out := &webhookDeliveriesOutput{}
			out.Body.Items, out.Body.Total, out.Body.Page, out.Body.Limit = items, total, in.Page, in.Limit
			return out, nil
		})

	register(s, route{id: "rotate-webhook-secret", method: http.MethodPost, path: "/webhooks/{webhook_id}/rotate-secret",
		tags: tags, creds: credWorkspace, limit: limitWrite, summary: "Replace the signing secret",
		desc: "Answers the new secret in full, once. For 24 hours deliveries carry two signatures, one with each " +
			"secret, so the receiver can switch without losing a delivery.", errors: notFound},
		func(ctx context.Context, in *webhookIDInput) (*webhookCreatedOutput, error) {
			c, err := s.webhooks.RotateSecret(ctx, principal(ctx).WorkspaceID(), in.WebhookID)
			if err != nil {
				return nil, err
			}
			return &webhookCreatedOutput{Body: c.Endpoint}, nil
		})

	register(s, route{id: "replay-webhook", method: http.MethodPost, path: "/webhooks/{webhook_id}/replay", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Send failed messages again",
		desc: "Either one failed message (message_id) or every failed message created since a time (since). They are " +
			"due at once, with a fresh retry schedule and the same webhook-id.",
		errors: []int{http.StatusNotFound, http.StatusConflict}},
		func(ctx context.Context, in *webhookReplayInput) (*webhookReplayOutput, error) {
			n, err := s.webhooks.Replay(ctx, principal(ctx).WorkspaceID(), in.WebhookID, webhook.ReplayInput{
				MessageID: in.Body.MessageID, Since: in.Body.Since})
			if err != nil {
				return nil, err
			}
			out := &webhookReplayOutput{}
			out.Body.Replayed = n
			return out, nil
		})
}
