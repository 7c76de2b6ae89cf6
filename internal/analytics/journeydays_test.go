package analytics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"concierge/internal/analytics"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestJourneyDaysFollowTheWriters: every change the writers make to what
// the journey counts (a page reported, its time on page growing, the
// entry page, a referrer or UTM source reported later, a lead form or a
// meeting before or after the pages, a conversation begun with a lead
// form) moves analytics_journey_days with it; the journey summary reads
// the same from the table's whole days as from the page views and
// conversations alone, in any time zone and window; a day that drifts is
// caught and rebuilt.
func TestJourneyDaysFollowTheWriters(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		a := testkit.NewApp(t, e)
		a.Clock.Set(time.Date(2026, 6, 8, 21, 0, 0, 0, time.UTC))
		key, ws := a.Register(t, "owner@journey.example")
		_, botKey := createBot(t, a, key, "Journey")
		otherKey, _ := a.Register(t, "owner@other-journey.example")
		_, otherBotKey := createBot(t, a, otherKey, "Other")
		verify := func(step string) {
			t.Helper()
			if err := a.Analytics.VerifyQuarters(ctx); err != nil {
				t.Fatalf("after %s: %v", step, err)
			}
		}
		signals := func(bk, session string, body map[string]any) {
			t.Helper()
			body["session_id"] = session
			if r := a.Do(t, "POST", "/chat/behavioral-signals", body, "X-Bot-Key", bk); r.Status != 200 {
				t.Fatalf("signals %v: %d %s", body, r.Status, r.Body)
			}
			verify(fmt.Sprintf("signals %v", body))
		}
		capture := func(bk, session, email string) string {
			t.Helper()
			body := map[string]any{"name": "Ana", "email": email}
			if session != "" {
				body["session_id"] = session
			}
			r := a.Do(t, "POST", "/chat/lead-capture", body, "X-Bot-Key", bk)
			if r.Status != 200 && r.Status != 201 {
				t.Fatalf("lead: %d %s", r.Status, r.Body)
			}
			verify("a lead form")
			return r.JSON(t)["session_id"].(string)
		}
		meeting := func(k, session string) {
			t.Helper()
			if r := a.Do(t, "POST", "/chat/meeting-booked", map[string]any{"session_id": session, "source": "calendly"},
				"X-API-Key", k); r.Status != 200 {
				t.Fatalf("meeting: %d %s", r.Status, r.Body)
			}
			verify("a meeting")
		}
		const site = "https://bakery.example"

		// Visits on three UTC days, near midnight, for both workspaces (the
		// clock only moves on: the fold job may fold the days behind it).
		type visitor struct{ botKey, key, s1, s2, s3, s4 string }
		visitors := []*visitor{{botKey: botKey, key: key}, {botKey: otherBotKey, key: otherKey}}
		at := func(day, hour, minute int, steps func(v *visitor)) {
			a.Clock.Set(time.Date(2026, 6, day, hour, minute, 0, 0, time.UTC))
			for _, v := range visitors {
				steps(v)
			}
		}
		at(8, 21, 0, func(v *visitor) {
			// A visitor who reads two pages, leaves a lead form, then more pages.
			v.s1 = chat(t, a, v.botKey, "", "how much does a sourdough loaf cost?").SessionID
			signals(v.botKey, v.s1, map[string]any{"page_url": site + "/", "referrer": "https://www.google.com/search?q=bread"})
			signals(v.botKey, v.s1, map[string]any{"time_on_page_seconds": 20})
			signals(v.botKey, v.s1, map[string]any{"time_on_page_seconds": 45}) // the time grows
			signals(v.botKey, v.s1, map[string]any{"page_url": site + "/pricing", "utm_source": "Newsletter"})
			capture(v.botKey, v.s1, "ana@example.org")
		})
		at(8, 23, 59, func(v *visitor) {
			signals(v.botKey, v.s1, map[string]any{"page_url": site + "/contact", "time_on_page_seconds": 5})
		})
		at(9, 0, 30, func(v *visitor) {
			signals(v.botKey, v.s1, map[string]any{"page_url": site + "/pricing", "time_on_page_seconds": 90}) // a page of the day before
			meeting(v.key, v.s1)
			// A visitor whose referrer comes after the entry page, who books
			// a meeting without a lead form, then sees another page.
			v.s2 = chat(t, a, v.botKey, "", "do you deliver parcels?").SessionID
			signals(v.botKey, v.s2, map[string]any{"page_url": site + "/delivery"})
			signals(v.botKey, v.s2, map[string]any{"referrer": "https://news.example.org/a?utm_source=ads"})
			signals(v.botKey, v.s2, map[string]any{"referrer": "https://bing.com/"}) // the first referrer stays
			meeting(v.key, v.s2)
		})
		at(9, 23, 45, func(v *visitor) {
			signals(v.botKey, v.s2, map[string]any{"page_url": site + "/pricing", "time_on_page_seconds": 0})
			// A conversation begun with the lead form, that never writes.
			v.s3 = capture(v.botKey, "", "ben@example.org")
			signals(v.botKey, v.s3, map[string]any{"page_url": site + "/pricing", "referrer": "https://www.google.com/"})
			signals(v.botKey, v.s3, map[string]any{"time_on_page_seconds": 12})
		})
		at(10, 8, 0, func(v *visitor) {
			// A visitor without a referrer, on the next day.
			v.s4 = chat(t, a, v.botKey, "", "opening hours?").SessionID
			signals(v.botKey, v.s4, map[string]any{"page_url": site + "/"})
			signals(v.botKey, v.s4, map[string]any{"page_url": site + "/blog?utm_source=feed"})
			capture(v.botKey, v.s4, "cy@example.org")
			capture(v.botKey, v.s4, "cy@example.org") // a second form changes nothing
		})
		a.Clock.Set(time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC))

		windows := []analytics.Query{
			{From: "2026-06-08", To: "2026-06-10"},
			{From: "2026-06-09", To: "2026-06-09"},
			{From: "2026-06-08", To: "2026-06-10", TZ: "America/New_York"},
			{From: "2026-06-09", To: "2026-06-10", TZ: "Asia/Kathmandu"},
			{From: "2026-06-01", To: "2026-06-30", TZ: "Europe/Berlin"},
			{Days: 2},
			{Days: 30, TZ: "Pacific/Auckland"},
		}
		journeys := func(fromRows bool) map[string]string {
			analytics.ReadJourneyFromRows(a.Analytics, fromRows)
			defer analytics.ReadJourneyFromRows(a.Analytics, false)
			out := map[string]string{}
			for _, q := range windows {
				j, err := a.Analytics.Journey(ctx, ws, q)
				if err != nil {
					t.Fatal(err)
				}
				b, err := json.Marshal(j)
				if err != nil {
					t.Fatal(err)
				}
				out[fmt.Sprintf("%+v", q)] = string(b)
			}
			return out
		}
		same := func(when string) {
			t.Helper()
			rows, days := journeys(true), journeys(false)
			for k, v := range rows {
				if days[k] != v {
					t.Errorf("%s, %s:\nfrom the journey days: %s\nfrom the rows:         %s", when, k, days[k], v)
				}
			}
		}
		same("after the traffic")
		j, err := a.Analytics.Journey(ctx, ws, windows[0])
		if err != nil {
			t.Fatal(err)
		}
		// Four conversations, three of them wrote; google.com twice (s1, s3);
		// pages: / ×2, /pricing ×3, /contact, /delivery, /blog.
		if j.Sessions.Value != 4 || len(j.ChatStartPages) != 2 || j.ChatStartPages[0].Sessions != 2 ||
			len(j.PageConversionRates) != 5 || j.PageConversionRates[0].URL != site+"/pricing" ||
			j.PageConversionRates[0].Sessions != 3 || j.PageConversionRates[0].Leads != 2 || j.PageConversionRates[0].Meetings != 2 ||
			j.Referrers[0].Source != "google.com" || j.Referrers[0].Sessions != 2 || j.UTMSources[0].Sessions != 1 {
			t.Errorf("journey: %+v", j)
		}
		if j.AverageTimeOnPage != round1((45+90+5+12)/4.0) {
			t.Errorf("time on page: %v", j.AverageTimeOnPage)
		}

		// A day that no longer matches its rows is caught, and rebuilt.
		if _, err := store.Exec(ctx, a.DB.Writer(), `UPDATE analytics_journey_days SET n = n + 1 WHERE kind = 'page'`); err != nil {
			t.Fatal(err)
		}
		if err := a.Analytics.VerifyQuarters(ctx); err == nil {
			t.Fatal("a journey day changed: VerifyQuarters saw no difference")
		}
		if err := a.Analytics.Rebuild(ctx); err != nil {
			t.Fatal(err)
		}
		verify("a rebuild")
		same("after a rebuild")
	})
}

func round1(v float64) float64 { return float64(int(v*10+0.5)) / 10 }
