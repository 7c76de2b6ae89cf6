package razorpaytest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type answer struct {
	Status int
	Body   map[string]any
}

func send(t *testing.T, s *Server, method, path, user, pass, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{Status: resp.StatusCode}
	if err := json.Unmarshal(raw, &a.Body); err != nil {
		t.Fatalf("%s %s: body %q is not a JSON object", method, path, raw)
	}
	return a
}

func errorCode(a answer) string {
	e, _ := a.Body["error"].(map[string]any)
	code, _ := e["code"].(string)
	desc, _ := e["description"].(string)
	return code + ": " + desc
}

func TestServerAuthAndErrors(t *testing.T) {
	s := NewServer(t)
	for name, creds := range map[string][2]string{
		"none":         {"", ""},
		"wrong secret": {s.KeyID(), s.WebhookSecret()},
		"wrong key":    {"rzp_test_Other", s.KeySecret()},
	} {
		a := send(t, s, "GET", "/subscriptions/sub_X", creds[0], creds[1], "")
		if a.Status != 401 || errorCode(a) != "BAD_REQUEST_ERROR: Authentication failed" {
			t.Errorf("%s: %d %s", name, a.Status, errorCode(a))
		}
	}
	k, sec := s.KeyID(), s.KeySecret()
	for _, tc := range []struct{ method, path, body, want string }{
		{"GET", "/subscriptions/sub_Missing", "", "BAD_REQUEST_ERROR: The id provided does not exist"},
		{"POST", "/subscriptions", `{"plan_id":"plan_A","total_count":1,"surprise":1}`, "BAD_REQUEST_ERROR: surprise is/are not required and should not be sent"},
		{"POST", "/subscriptions", `{"total_count":1}`, "BAD_REQUEST_ERROR: The plan id field is required."},
		{"GET", "/payouts", "", "BAD_REQUEST_ERROR: The requested URL was not found on the server."},
		{"GET", "/invoices?count=101", "", "BAD_REQUEST_ERROR: The count may not be greater than 100."},
	} {
		if a := send(t, s, tc.method, tc.path, k, sec, tc.body); a.Status != 400 || errorCode(a) != tc.want {
			t.Errorf("%s %s: %d %s, want 400 %s", tc.method, tc.path, a.Status, errorCode(a), tc.want)
		}
	}
}

func TestServerFailNextAndCalls(t *testing.T) {
	s := NewServer(t)
	k, sec := s.KeyID(), s.KeySecret()
	created := send(t, s, "POST", "/subscriptions", k, sec, `{"plan_id":"plan_A","total_count":12,"customer_notify":1}`)
	id, _ := created.Body["id"].(string)
	if created.Status != 200 || !strings.HasPrefix(id, "sub_") || created.Body["status"] != "created" {
		t.Fatalf("create: %+v", created)
	}
	if notes, ok := created.Body["notes"].([]any); !ok || len(notes) != 0 {
		t.Errorf("empty notes rendered as %#v, want [] as Razorpay does", created.Body["notes"])
	}

	s.FailNext("POST", "/subscriptions/"+id+"/cancel", 503)
	s.FailNext("", "/subscriptions/", 429)
	if a := send(t, s, "GET", "/subscriptions/"+id, k, sec, ""); a.Status != 429 {
		t.Errorf("first GET: %d, want the queued 429", a.Status)
	}
	if a := send(t, s, "GET", "/subscriptions/"+id, k, sec, ""); a.Status != 200 {
		t.Errorf("second GET: %d, want 200", a.Status)
	}
	if a := send(t, s, "POST", "/subscriptions/"+id+"/cancel", k, sec, `{"cancel_at_cycle_end":0}`); a.Status != 503 || !strings.HasPrefix(errorCode(a), "SERVER_ERROR") {
		t.Errorf("cancel: %d %s, want 503 SERVER_ERROR", a.Status, errorCode(a))
	}
	if s.Status(id) != "created" {
		t.Errorf("a failed cancel changed the status to %q", s.Status(id))
	}
	if a := send(t, s, "POST", "/subscriptions/"+id+"/cancel", k, sec, `{"cancel_at_cycle_end":0}`); a.Status != 200 || a.Body["status"] != "cancelled" {
		t.Errorf("cancel retry: %d %v", a.Status, a.Body["status"])
	}
	if a := send(t, s, "POST", "/subscriptions/"+id+"/cancel", k, sec, `{"cancel_at_cycle_end":0}`); a.Status != 400 ||
		errorCode(a) != "BAD_REQUEST_ERROR: Subscription is not cancellable in cancelled status." {
		t.Errorf("cancel of a cancelled subscription: %d %s", a.Status, errorCode(a))
	}
	got := map[string]int{
		"all":     s.Calls("", ""),
		"POST":    s.Calls("POST", ""),
		"cancel":  s.Calls("post", "/subscriptions/"+id+"/cancel"),
		"fetch":   s.Calls("GET", "/subscriptions/"+id),
		"invoice": s.Calls("GET", "/invoices"),
	}
	want := map[string]int{"all": 6, "POST": 4, "cancel": 3, "fetch": 2, "invoice": 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestServerEventShape(t *testing.T) {
	s := NewServer(t)
	created := send(t, s, "POST", "/subscriptions", s.KeyID(), s.KeySecret(), `{"plan_id":"plan_A","total_count":12,"notes":{"workspace_id":"5"}}`)
	id := created.Body["id"].(string)
	s.Activate(id)
	body, eventID := s.Event("subscription.activated", id)
	var ev struct {
		Entity, Event, AccountID string
		Contains                 []string
		CreatedAt                int64 `json:"created_at"`
		Payload                  struct {
			Subscription struct{ Entity map[string]any }
			Payment      struct{ Entity map[string]any }
		}
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	sub, pay := ev.Payload.Subscription.Entity, ev.Payload.Payment.Entity
	if ev.Entity != "event" || ev.Event != "subscription.activated" || ev.CreatedAt == 0 || len(eventID) != 14 ||
		!cmp.Equal(ev.Contains, []string{"subscription", "payment"}) ||
		sub["id"] != id || sub["status"] != "active" || sub["current_end"] == nil ||
		!strings.HasPrefix(pay["id"].(string), "pay_") {
		t.Errorf("event %s", body)
	}
	if s.SignWebhook(body) == s.SignPayment(id, "pay_1") || len(s.SignWebhook(body)) != 64 {
		t.Error("signatures look wrong")
	}
	halted, _ := s.Event("subscription.halted", id)
	if strings.Contains(string(halted), `"payment"`) {
		t.Errorf("halted event carries a payment: %s", halted)
	}
}
