package score

import "testing"

// The bot's handling of a request is read sentence by sentence: handing
// it to support, refusing internal data, sending a seller to the vendor
// inbox. Sales talk that mentions support, data or vendors is none of
// these.
func TestBotRoutes(t *testing.T) {
	cases := []struct {
		lang, text string
		want       route
	}{
		{"en", "I can't look up claim details here, but I can route you to our claims team.", routeSupport},
		{"en", "I've flagged this for our claims team with your claim number.", routeSupport | routeAsksRef},
		{"es", "Para siniestros en curso te paso con el equipo de siniestros. ¿Tienes el número de póliza?", routeSupport | routeAsksRef},
		{"de", "Ich leite Sie an unsere Schadenabteilung weiter. Ihre Vertragsnummer?", routeSupport | routeAsksRef},
		{"de", "Ich eröffne ein Ticket mit hoher Priorität, der Support meldet sich innerhalb einer Stunde.", routeSupport},
		{"fr", "Je transmets au support technique et à ton club, ils te recontactent sous 24 h.", routeSupport},
		{"hi-en", "Claim issues ke liye main aapko hamari claims team se connect karta hoon.", routeSupport},
		{"en", "Sorry, I can't share sellers' personal information.", routeRefuse},
		{"es", "Lo siento, no compartimos información de proveedores ni de costes.", routeRefuse},
		{"de", "Solche internen Informationen teilen wir nicht.", routeRefuse},
		{"hi-en", "Sorry! Order ID bata sakte hai?", routeAsksRef},
		{"pt", "Qual é o número do pedido?", routeAsksRef},
		{"hi-en", "Vendor proposals ke liye aap vendors@workhub.in pe mail kar sakte hai.", routeVendor},
		// Sales talk.
		{"en", "Every plan includes 24/7 support, and I can connect you with our sales team for a demo.", 0},
		{"en", "We never share your data with third parties, and it stays in the EU.", 0},
		{"en", "Our bot can route tickets to the right agent and open a ticket in Zendesk automatically.", 0},
		{"en", "I can't share exact pricing here, but sales can send you a quote today.", 0},
		{"es", "Nunca compartimos sus datos con terceros.", 0},
		{"fr", "Nous ne partageons jamais vos données.", 0},
		{"de", "Wir geben Ihre Daten nicht weiter.", 0},
		{"en", "We work with suppliers across Europe; email sales@acme.com for a quote.", 0},
		{"en", "For vendor and partnership enquiries, please write to partners@acme.com.", routeVendor},
		{"fr", "Pour les fournisseurs, merci d'écrire à achats@acme.fr.", routeVendor},
		// A seller turned away: proposals sent to an inbox, supplier
		// meetings declined (blind D dev, set D round).
		{"fr", "Vous pouvez écrire à contact@delorme-immo.fr pour toute proposition.", routeVendor},
		{"es", "Para propuestas comerciales escribe a compras@hotel.cl, gracias.", routeVendor},
		{"fr", "Je ne fixe pas de rendez-vous commerciaux fournisseurs ici.", routeVendor},
		{"en", "We don't take vendor meetings through this chat.", routeVendor},
		{"en", "No vendor lock-in: you can export your data any time.", 0},
		{"en", "I'll send the proposal to anna@acme.com today.", 0},
	}
	for _, c := range cases {
		if got := botRoutes(c.text, c.lang); got != c.want {
			t.Errorf("%s %q: got %03b, want %03b", c.lang, c.text, got, c.want)
		}
	}
}

// A reference number given when the bot asked for one makes the visitor
// an existing customer; a phone number given for a callback does not, and
// a time given in answer to "your order number?" takes no offer.
func TestReferenceAnswer(t *testing.T) {
	support := func(botQ, visitor string) (sup, offer bool) {
		for _, f := range read(botQ, visitor).findings {
			sup = sup || f.f == fSupport
			offer = offer || (f.f == fIntent && f.reading == "takes the offer with a time")
		}
		return
	}
	if s, o := support("Sorry! Order ID bata sakte hai?", "OD-7781, aaj hi chahiye"); !s || o {
		t.Errorf("order id answer: support %v, offer %v", s, o)
	}
	if s, _ := support("Great! What's the best phone number to reach you?", "612 345 678, after 5pm"); s {
		t.Errorf("a phone number read as an order reference")
	}
}
