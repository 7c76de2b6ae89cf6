package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The chat scenario's knowledge base is a shop's product handbook, made up
// but written like the real thing: every product has five sections
// (overview, specifications, delivery, returns and warranty, care), each a
// short paragraph under its own heading, so each section is one passage
// (the chunker never lets a passage straddle a heading). Product names are
// a brand, a product type and a model code, and the questions ask about
// one product's section the way a visitor would. Everything is derived
// from fixed seeds: the same flags give the same files and questions.

// sectionsPerProduct is also the number of topics a question can ask about.
const sectionsPerProduct = 5

// productsPerFile sets the file size (about 80 KiB of Markdown, 200
// passages per file).
const productsPerFile = 40

var (
	brands = []string{"Aurora", "Nimbus", "Cedar", "Harbor", "Juniper", "Solstice", "Pinecrest", "Meridian", "Willow",
		"Summit", "Lumen", "Riverstone", "Halcyon", "Orchard", "Kestrel", "Saffron", "Tidewater", "Bramble", "Everly",
		"Northgate"}
	productTypes = []productType{
		{"electric kettle", "kitchen", true, "lid hinge", "litres"},
		{"toaster", "kitchen", true, "crumb tray", "slices"},
		{"blender", "kitchen", true, "blade assembly", "litres"},
		{"coffee grinder", "kitchen", true, "burr set", "grams"},
		{"rice cooker", "kitchen", true, "inner pot", "cups"},
		{"cast iron skillet", "kitchen", false, "helper handle", "centimetres across"},
		{"chef's knife", "kitchen", false, "blade guard", "centimetre blade"},
		{"desk lamp", "office", true, "LED panel", "lumens"},
		{"office chair", "office", false, "gas lift", "kilograms of load"},
		{"standing desk", "office", true, "height motor", "kilograms of load"},
		{"monitor arm", "office", false, "tension spring", "kilograms of load"},
		{"backpack", "outdoor", false, "shoulder strap", "litres"},
		{"rain jacket", "outdoor", false, "storm hood", "grams"},
		{"hiking boots", "outdoor", false, "insole", "grams per pair"},
		{"tent", "outdoor", false, "pole set", "persons"},
		{"water bottle", "outdoor", false, "sealing ring", "millilitres"},
		{"air purifier", "home", true, "HEPA filter", "square metres"},
		{"space heater", "home", true, "thermostat dial", "square metres"},
		{"ceiling fan", "home", true, "regulator", "millimetre sweep"},
		{"robot vacuum", "home", true, "side brush", "minutes of run time"},
		{"bluetooth speaker", "audio", true, "charging port", "hours of playback"},
		{"wireless headphones", "audio", true, "ear cushion", "hours of playback"},
		{"smart thermostat", "home", true, "wall plate", "zones"},
		{"duvet", "bedroom", false, "cover", "tog"},
		{"memory foam pillow", "bedroom", false, "pillow case", "centimetres high"},
	}
	audiences = []string{"small flats", "busy families", "students", "home offices", "first-time buyers",
		"people who cook every day", "weekend hikers", "shared workspaces", "guest rooms", "daily commuters"}
	features = []string{"quiet operation", "a long warranty", "low power use", "the compact size", "easy cleaning",
		"the sturdy build", "the simple controls", "fast results", "the recycled materials", "the low price",
		"the soft finish", "repairable parts"}
	adjectives = []string{"best-selling", "entry-level", "premium", "compact", "heavy-duty", "lightweight", "award-winning",
		"most popular", "budget", "professional"}
	colours   = []string{"charcoal", "white", "sage green", "navy", "terracotta", "sand", "graphite", "mustard", "sky blue", "red"}
	materials = []string{"brushed stainless steel", "recycled polypropylene", "anodised aluminium", "oiled beech wood",
		"ripstop nylon", "tempered glass", "organic cotton", "cast iron", "bamboo fibre", "powder-coated steel"}
	cities     = []string{"Pune", "Mumbai", "Delhi", "Bengaluru", "Chennai", "Hyderabad", "Kolkata", "Ahmedabad", "Jaipur", "Kochi"}
	warehouses = []string{"Pune", "Bhiwandi", "Gurugram", "Hosur", "Chakan"}
	countries  = []string{"Singapore, Dubai and Sri Lanka", "the United Kingdom and Ireland", "Nepal and Bhutan",
		"the United States and Canada", "Australia and New Zealand", "Germany, France and the Netherlands"}
	cleaners    = []string{"bleach", "steel wool", "dishwasher tablets", "solvents", "furniture polish", "vinegar"}
	accessories = []string{"travel pouch", "spare fuse", "cleaning brush", "wall bracket", "carry strap", "measuring cup",
		"set of spare screws", "USB-C cable"}
)

type productType struct {
	name, category string
	electric       bool
	part           string // the part that wears out
	unit           string // what its capacity is measured in
}

type product struct {
	name  string // "Aurora electric kettle AK-1042"
	short string // "Aurora electric kettle"
	code  string
	typ   productType
	r     *rand.Rand
}

func products(n int) []product {
	r := rand.New(rand.NewPCG(7, 11))
	out := make([]product, n)
	for i := range out {
		b := brands[r.IntN(len(brands))]
		t := productTypes[r.IntN(len(productTypes))]
		code := fmt.Sprintf("%c%c-%d", b[0], strings.ToUpper(t.name)[0], 1000+i)
		out[i] = product{name: b + " " + t.name + " " + code, short: b + " " + t.name, code: code, typ: t,
			r: rand.New(rand.NewPCG(uint64(i), 13))}
	}
	return out
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// handbookFiles returns Markdown files holding about `passages` passages:
// one section per passage, productsPerFile products per file.
func handbookFiles(passages int) []upload {
	ps := products((passages + sectionsPerProduct - 1) / sectionsPerProduct)
	var files []upload
	for start := 0; start < len(ps); start += productsPerFile {
		var b strings.Builder
		part := start/productsPerFile + 1
		fmt.Fprintf(&b, "# Product handbook, part %d\n\n", part)
		left := passages - start*sectionsPerProduct
		for _, p := range ps[start:min(start+productsPerFile, len(ps))] {
			for s := range min(sectionsPerProduct, left) {
				writeSection(&b, p, s)
			}
			left -= sectionsPerProduct
		}
		files = append(files, upload{name: fmt.Sprintf("handbook-%03d.md", part), data: []byte(b.String())})
	}
	return files
}

type upload struct {
	name string
	data []byte
}

var sectionTitles = [sectionsPerProduct]string{"Overview", "Specifications", "Delivery", "Returns and warranty", "Care and troubleshooting"}

// writeSection writes one product section: a heading and four or five
// sentences drawn from that topic's templates, in varying order.
func writeSection(b *strings.Builder, p product, section int) {
	r, t := p.r, p.typ
	n := func(lo, hi int) int { return lo + r.IntN(hi-lo+1) }
	var sents []string
	switch section {
	case 0:
		c := r.Perm(len(colours))[:n(2, 4)]
		names := make([]string, len(c))
		for i, k := range c {
			names[i] = colours[k]
		}
		sents = []string{
			fmt.Sprintf("The %s is our %s %s for %s.", p.name, pick(r, adjectives), t.name, pick(r, audiences)),
			fmt.Sprintf("It was introduced in %d and replaced the earlier %s-%d model.", n(2016, 2025), p.code[:2], n(100, 999)),
			fmt.Sprintf("Customers choose it for %s and %s.", pick(r, features), pick(r, features)),
			fmt.Sprintf("It comes in %d colours: %s and %s.", len(names), strings.Join(names[:len(names)-1], ", "), names[len(names)-1]),
			fmt.Sprintf("Every unit is assembled in our %s workshop and checked by hand before it is packed.", pick(r, cities)),
		}
	case 1:
		sents = []string{
			fmt.Sprintf("The %s weighs %d.%d kilograms and measures %d by %d by %d centimetres.", p.name, n(0, 12), n(0, 9), n(10, 90), n(10, 60), n(5, 40)),
			fmt.Sprintf("Its body is made of %s with %s details.", pick(r, materials), pick(r, materials)),
			fmt.Sprintf("The capacity is %d %s.", n(2, 60), t.unit),
			fmt.Sprintf("The box contains the %s, a %s, a quick start guide and the warranty card.", t.name, pick(r, accessories)),
		}
		if t.electric {
			sents = append(sents, fmt.Sprintf("It draws %d watts from a standard 230 volt socket and has a %d.%d metre cord.", n(5, 2000), n(1, 2), n(0, 9)))
		} else {
			sents = append(sents, fmt.Sprintf("It needs no power and is rated for %d years of daily use.", n(3, 15)))
		}
	case 2:
		lo := n(2, 5)
		sents = []string{
			fmt.Sprintf("The %s ships from our %s warehouse within %d business days of your order.", p.name, pick(r, warehouses), n(1, 3)),
			fmt.Sprintf("Standard delivery inside India takes %d to %d days; express delivery to %s takes %d days.", lo, lo+n(2, 4), pick(r, cities), n(1, 2)),
			fmt.Sprintf("Delivery is free on orders above %d rupees; below that a flat fee of %d rupees applies.", n(5, 30)*100, n(4, 15)*10),
			fmt.Sprintf("International delivery is available to %s and takes %d to %d days.", pick(r, countries), n(7, 10), n(12, 21)),
			"You receive a tracking link by e-mail and text message as soon as the parcel leaves the warehouse.",
		}
	case 3:
		sents = []string{
			fmt.Sprintf("You can return the %s within %d days of delivery if it is unused and in its original packaging.", p.name, []int{7, 10, 14, 30}[r.IntN(4)]),
			fmt.Sprintf("Opened items can be returned within %d days only when they are faulty.", n(7, 15)),
			fmt.Sprintf("Refunds reach the original payment method within %d business days after we receive the parcel.", n(3, 10)),
			fmt.Sprintf("The %s has a %d-year warranty that covers manufacturing defects but not accidental damage.", p.short, n(1, 5)),
			"To claim the warranty, write to support with your order number and a photo of the fault.",
		}
	case 4:
		sents = []string{
			fmt.Sprintf("Clean the %s with a soft damp cloth and never use %s.", p.name, pick(r, cleaners)),
			fmt.Sprintf("A worn %s can be replaced at home; the spare part code is %s-SP%d.", t.part, p.code, n(1, 9)),
			fmt.Sprintf("Replacement parts cost %d rupees and ship within %d days.", n(2, 40)*50, n(2, 7)),
		}
		if t.electric {
			sents = append(sents,
				fmt.Sprintf("If the %s does not turn on, check the fuse in the plug and try another socket before you contact support.", t.name),
				fmt.Sprintf("A blinking %s light means the %s needs attention.", pick(r, []string{"red", "orange", "blue"}), t.part))
		} else {
			sents = append(sents,
				fmt.Sprintf("Store it in a dry place away from direct sunlight, and check the %s every %d months.", t.part, n(2, 12)))
		}
	}
	r.Shuffle(len(sents)-1, func(i, j int) { sents[i+1], sents[j+1] = sents[j+1], sents[i+1] }) // the first one names the product
	sents = sents[:n(4, len(sents))]
	fmt.Fprintf(b, "## %s: %s\n\n%s\n\n", p.name, sectionTitles[section], strings.Join(sents, " "))
}

// questionTemplates are what visitors ask, by section.
var questionTemplates = [sectionsPerProduct][]string{
	{"What is the %s good for?", "Which colours does the %s come in?", "When did the %s come out?"},
	{"How much does the %s weigh?", "What is the %s made of?", "What comes in the box with the %s?", "How many watts does the %s use?"},
	{"How long does delivery of the %s take?", "Is delivery free for the %s?", "Can you ship the %s abroad?"},
	{"How long is the warranty on the %s?", "Can I return the %s after opening it?", "How long does a refund for the %s take?"},
	{"How do I clean the %s?", "My %s does not turn on, what should I do?", "Where can I get spare parts for the %s?"},
}

// chatQuestions returns n questions about the products of a handbook of
// `passages` passages; three in ten leave out the model code, as people do.
func chatQuestions(passages, n int) []string {
	ps := products((passages + sectionsPerProduct - 1) / sectionsPerProduct)
	r := rand.New(rand.NewPCG(23, 29))
	out := make([]string, n)
	for i := range out {
		pi := r.IntN(len(ps))
		s := r.IntN(sectionsPerProduct)
		if pi*sectionsPerProduct+s >= passages {
			s = 0
		}
		p := ps[pi]
		name := p.name
		if r.IntN(10) < 3 {
			name = p.short
		}
		out[i] = fmt.Sprintf(pick(r, questionTemplates[s]), name)
	}
	return out
}
