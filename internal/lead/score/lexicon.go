package score

// The lexicon: what visitors say, and how strongly it supports each facet.
//
// Levels follow one scale across facets so dimensions compare:
//
//	90-100  stated as a fact and specific ("budget is 35 lakh", "I sign", "by Friday")
//	70-89   stated clearly but less specific ("budget is approved", "next month")
//	40-69   implied or partial ("looking at SUVs", "next quarter", "I'm a manager")
//	15-39   curiosity or a weak hint ("how much is it?", "does it support Hindi?")
//	denial  the visitor says it is absent ("no budget", "just browsing", "no rush")
//
// Words are matched after normalisation (lower case, contractions expanded:
// "I'm" is "i am", "don't" is "do not"), so patterns are written that way.

// out is one facet a rule supports, at a level.
type out struct {
	f     facet
	level int
}

func o(f facet, level int) out { return out{f, level} }

type ruleKind uint8

const (
	kindPlain    ruleKind = iota // may be negated by a preceding "not", "no", "never"
	kindDeny                     // the phrase is itself a denial ("no budget")
	kindNative                   // negation words are part of the phrase
	kindSuppress                 // hides other matches of its facets that overlap it
)

// rule is one phrase of the lexicon.
type rule struct {
	pattern string
	reading string // how a match is explained to the sales team
	outs    []out
	kind    ruleKind
	// negLevel is the level of every out when the phrase is negated
	// ("not the decision maker" still says something about authority);
	// 0 makes a negated match a denial.
	negLevel int
	qOnly    bool  // only inside a question
	asked    facet // only when the bot just asked about this facet (0: always)
	askedSet bool
	// capLevel caps the facet's dimension unless the visitor also said
	// something decisive (level 90 or more): "my boss approves" limits a
	// manager's authority.
	capLevel int
	// statement: never inside a question ("is that ok?" accepts nothing).
	statement bool
	// exclude drops a match whose span holds one of these words: "my wife
	// and I will decide" is not someone else deciding.
	exclude []string
	// free marks a wish for the free plan.
	free bool
	// engage marks a denial that still shows interest in the offering
	// ("just browsing", "not this year"): not yet, rather than never.
	engage bool
}

func r(reading, pattern string, outs ...out) rule {
	return rule{pattern: pattern, reading: reading, outs: outs}
}
func (x rule) deny() rule           { x.kind = kindDeny; return x }
func (x rule) native() rule         { x.kind = kindNative; return x }
func (x rule) negAs(level int) rule { x.negLevel = level; return x }
func (x rule) question() rule       { x.qOnly = true; return x }
func (x rule) whenAsked(f facet) rule {
	x.asked, x.askedSet = f, true
	return x
}
func (x rule) capAt(level int) rule { x.capLevel = level; return x }
func (x rule) notYet() rule         { x.engage = true; return x }
func (x rule) statementOnly() rule  { x.statement = true; return x }
func (x rule) freePlan() rule       { x.free = true; return x }
func (x rule) unless(words ...string) rule {
	x.exclude = words
	return x
}
func suppress(pattern string, fs ...facet) rule {
	x := rule{pattern: pattern, kind: kindSuppress}
	for _, f := range fs {
		x.outs = append(x.outs, o(f, 0))
	}
	return x
}

var budgetRules = []rule{
	r("budget approved", "budget @be? already? approved|allocated|sanctioned|earmarked|available|confirmed|ready", o(fBudget, 80)),
	r("budget approved", "approved|allocated|sanctioned|earmarked budget", o(fBudget, 80)),
	r("budget approved", "{budget is in place|budget in place}", o(fBudget, 80)),
	r("budget can be found", "budget|money|funds @be? can|will be? arranged|managed|found|sorted|made", o(fBudget, 65)),
	r("budget set aside", "{set aside|kept aside|reserved for|earmarked for}", o(fBudget, 70)),
	r("has a budget", "have|got|has @det? budget", o(fBudget, 75)),
	r("has a budget", "budget @be? there|hai", o(fBudget, 70)),
	r("money is no issue", "money|budget|cost|price|pricing|fees @be? not|no|never {an|a|the|} issue|problem|concern|constraint", o(fBudget, 80)).native(),
	r("money is no issue", "no budget|money|cost|price issue|issues|problem|problems|constraint|constraints", o(fBudget, 80)).native(),
	r("money is no issue", "{cost|price|money|budget|fees} {does not|do not|will not} matter", o(fBudget, 80)).native(),
	r("money is no issue", "{money|price|cost} is no object", o(fBudget, 80)).native(),
	r("commits money", "{token|booking amount|advance payment|down payment|downpayment|upfront|deposit|part payment}", o(fBudget, 80), o(fIntent, 80)),
	r("price accepted", "price|fee|fees|cost|pricing|premium|rate|amount|that|it|this @be? fine|ok|okay|affordable|reasonable|acceptable|justified|theek|thik|sahi|worth", o(fBudget, 70)).whenAsked(fBudget).statementOnly(),
	r("price accepted", "price|fee|fees|cost|pricing|premium|amount @be? fine|ok|okay|affordable|reasonable|acceptable|theek|thik|sahi", o(fBudget, 70)).statementOnly(),
	r("price accepted", "that|it|this works", o(fBudget, 65)).whenAsked(fBudget).statementOnly(),
	r("price accepted", "{is justified|worth it|pays for itself|worth the money}", o(fBudget, 65), o(fPriority, 55)),
	r("price within budget", "{within|in|inside} {my|our|the} {budget|range}", o(fBudget, 75)).statementOnly(),
	r("price within budget", "within what {i|we} {planned|budgeted|expected|had in mind}", o(fBudget, 75)),
	r("can afford it", "can|could afford", o(fBudget, 70)),
	r("willing to pay", "willing|ready|happy|able|prepared to pay|spend|invest", o(fBudget, 70)),
	r("willing to pay", "can|will spend|invest", o(fBudget, 60)),
	r("already paying for a tool", "we|i @be? already|currently paying|pay", o(fBudget, 65)),
	r("already paying for a tool", "we|i {pay|are paying} for @det? current|existing|old", o(fBudget, 65)),
	r("financing arranged", "loan @be? already? {pre approved|preapproved|approved|sanctioned|ready|arranged}", o(fBudget, 80)),
	r("plans to finance", "take|taking|get|getting|apply|applying @det? home|car|bike|education|personal? loan", o(fBudget, 50)),
	r("asks about financing", "{emi|emis|installment|installments|instalment|instalments|financing|finance option|loan option}", o(fBudget, 40), o(fIntent, 40)),
	r("asks about financing", "{financiacion|financiamiento|financiamento|financement|taux de financement|finanzierung|ratenzahlung|ratenkauf|leasing|mensualidades|cuotas|parcelamento|parcelas|mensualites}", o(fBudget, 40), o(fIntent, 40)),
	r("asks for a quote", "{quote|quotation|quotations|proposal|estimate|pricelist|price list|rate card|price sheet}", o(fBudget, 55), o(fIntent, 70)),
	r("asks the price", "{how much|kitna|kitne|kitni}", o(fBudget, 35), o(fIntent, 50)),
	r("asks the price", "what @be? {the|your|} price|prices|pricing|cost|costs|fee|fees|charges|premium|rate|rates", o(fBudget, 35), o(fIntent, 50)),
	r("asks the price", "what does|will it|this|that cost", o(fBudget, 35), o(fIntent, 50)),
	r("asks the price", "price|prices|pricing|cost|costs|fee|fees|charges|premium|rate|rates|plans|tariff", o(fBudget, 30), o(fIntent, 45)).question(),
	r("asks the price", "price|pricing|fee|fees|cost|rate kya|batao|bataye|bataiye|bata", o(fBudget, 30), o(fIntent, 45)),
	r("wants a free plan", "free plan|version|tier|account|option", o(fBudget, 20)).freePlan(),
	r("wants a free plan", "{start with|use|try|go with} @det? free", o(fBudget, 20)).freePlan(),
	r("limited budget", "budget @be? tight|limited|low|small", o(fBudget, 20)).native(),
	r("limited budget", "tight|limited|small|low budget", o(fBudget, 20)).native(),
	r("budget not fixed yet", "budget @be? not yet? fixed|decided|finalised|finalized|clear|set", o(fBudget, 20)).native(),
	r("no budget", "no|zero budget|money|funds", o(fBudget, 0)).deny(),
	r("no budget", "budget nahi", o(fBudget, 0)).deny(),
	r("budget used up", "budget @be? already? spent|exhausted|used|over|finished|frozen|gone", o(fBudget, 0)).deny().notYet(),
	r("too expensive", "{too|a bit|quite|a little|very|too|so|} expensive|costly|pricey", o(fBudget, 0)).deny(),
	r("too expensive", "{too much|a lot|lot} for me|us", o(fBudget, 0)).deny(),
	r("outside budget", "{out of|beyond|over|above|not in|not within} @det? budget", o(fBudget, 0)).deny(),
	r("can not spend", "can|could not spend|afford|pay", o(fBudget, 0)).deny(),
}

var authorityRules = []rule{
	r("says they are the decision maker", "i am not? the|a|an? final? decision maker|makers", o(fAuthority, 95), o(fEconomic, 90)).negAs(25),
	r("decides", "i will|can|alone|myself? decide|approve|sign|finalise|finalize", o(fAuthority, 95), o(fEconomic, 90)).negAs(30),
	r("decides", "i make|take the|all? decision|decisions|call", o(fAuthority, 95), o(fEconomic, 90)).negAs(30),
	r("decides", "i have the final say|word|call", o(fAuthority, 95), o(fEconomic, 90)).negAs(30),
	r("decides", "{it is|that is} my call|decision", o(fAuthority, 95), o(fEconomic, 90)).negAs(30),
	r("decides", "{decision|call} @be? mine|mera|meri", o(fAuthority, 95), o(fEconomic, 90)).negAs(30),
	r("owns the budget", "i own|control|hold|manage @det? .. budget|budgets|p", o(fAuthority, 95), o(fEconomic, 95), o(fBudget, 60)).negAs(30),
	r("has sign-off", "i have|hold {sign off|signing authority|signoff|sign|final authority}", o(fAuthority, 95), o(fEconomic, 95)).negAs(30),
	r("signs the contracts", "i sign|signs @det? contracts|contract|cheques|checks|po|pos|orders", o(fAuthority, 95), o(fEconomic, 95)).negAs(30),
	r("runs the business", "i run|own a|an|my|our|the|this", o(fAuthority, 90), o(fEconomic, 90)),
	r("owns the business", "we own @det? #n?", o(fAuthority, 80), o(fEconomic, 80)),
	r("runs the business", "{my own|apna|apni|apne} business|company|firm|agency|brokerage|practice|shop|store|clinic|startup|brand", o(fAuthority, 85), o(fEconomic, 85)),
	r("joint decision with spouse", "my wife|husband|spouse|partner and i|me", o(fAuthority, 80), o(fEconomic, 75)),
	r("joint decision", "{we will decide|we decide|decide together}", o(fAuthority, 75), o(fEconomic, 70)),
	r("buying for themselves", "{for myself|for me and my|for my family|for my parents|for my son|for my daughter|for my kids|for my wife|for my husband|for my mother|for my father|for my home}", o(fAuthority, 65), o(fEconomic, 60)),
	r("buying for themselves", "apne|apni|mere|meri bete|beti|bachche|bachon|family|parents|liye", o(fAuthority, 65), o(fEconomic, 60)),
	r("buying for themselves", "{i want to|i plan to|i am planning to|i am looking to|planning to} buy|purchase|book|enrol|enroll|join|get|invest", o(fAuthority, 50), o(fEconomic, 45)),
	// Dependence: someone else decides.
	r("someone else decides", "check|discuss|consult|confirm|speak|talk|ask|clear {with|to|by|} my|our|the @boss", o(fAuthority, 35), o(fEconomic, 45), o(fProcess, 40)).capAt(45),
	r("someone else decides", "@superior .. decide|decides|decided|approve|approves|approval|finalise|finalize|finalises|finalizes|sign|signs", o(fAuthority, 35), o(fEconomic, 50)).capAt(45).unless("i", "we", "me"),
	r("someone else decides", "@boss se|ko baat|puch|pooch|puchna|poochna", o(fAuthority, 35), o(fEconomic, 45)).capAt(45),
	r("someone else decides", "@boss .. final|decide|decision|approve karenge|karega|karegi|karta|karte|karti|lenge|lega|degi|denge", o(fAuthority, 35), o(fEconomic, 45)).capAt(45),
	r("needs approval", "need|needs|require|requires|get|take|seek approval|permission|signoff", o(fAuthority, 35), o(fEconomic, 40), o(fProcess, 50)).capAt(45),
	r("has to make a case internally", "make|build|present|put @det? business? case", o(fAuthority, 40), o(fEconomic, 40), o(fProcess, 45), o(fChampion, 55)).capAt(50),
	r("researching for someone else", "{on behalf of|for one of our clients|for a client|for our client|for my boss|for my manager}", o(fAuthority, 35), o(fEconomic, 30)).capAt(40),
	r("researching for someone else", "my boss|manager|ceo|founder|doctor|owner|principal asked|told me", o(fAuthority, 40), o(fEconomic, 40)).capAt(45),
	r("someone else decides", "take|taking|bring|put it|this to @det? @superior", o(fAuthority, 35), o(fEconomic, 50), o(fProcess, 45)).capAt(45),
	r("does not know who decides", "{not sure|do not know|no idea} .. who", o(fAuthority, 25), o(fEconomic, 15)).native().capAt(30),
	suppress("need|needs to check|ask|talk|discuss|think|consult|confirm|speak|take|run|save|wait", fNeed),
	suppress("save|saving|saved for @det? down payment|deposit|downpayment", fBudget, fIntent),
	suppress("need|needs to make|build @det? business? case", fNeed),
	suppress("{sign up|signed up|signing up|signup}", fAuthority, fEconomic),
}

var needRules = []rule{
	// Pain: a problem that costs them something.
	r("struggling", "struggl*|drowning|swamped|overwhelmed|overloaded|flooded|buried|overload*", o(fPain, 85), o(fNeed, 75)),
	r("cannot keep up", "{can not|could not|unable to} keep|cope|handle|manage|respond|reply|answer|follow|scale|reach|attend|get", o(fPain, 85), o(fNeed, 75)).native(),
	r("dropped calls", "drop|drops|dropped|dropping|miss|misses|missing @det? lot? of? calls|enquiries|leads|chats|messages", o(fPain, 75), o(fNeed, 65)),
	r("cannot keep up", "nahi ho|kar pata|paata|pa|paate|pate|sakte", o(fPain, 80), o(fNeed, 70)).native(),
	r("cannot keep up", "{follow up|reply|jawab} nahi", o(fPain, 80), o(fNeed, 70)).native(),
	r("losing business", "losing|lose|lost|loses customers|sales|leads|deals|money|revenue|patients|bookings|business|students|clients|orders|conversions", o(fPain, 85), o(fNeed, 75)),
	r("losing business", "book|go|buy with|to others|competitors|someone", o(fPain, 80), o(fNeed, 70)),
	r("customers leave", "customers|people|users|patients|visitors|they|buyers|clients leave|leaving|bounce|churn|quit|abandon", o(fPain, 80), o(fNeed, 70)),
	r("wasting time", "waste|wastes|wasting|wasted", o(fPain, 75), o(fNeed, 65)),
	r("wasting time", "spend|spends|spending|spent hours|half|most", o(fPain, 75), o(fNeed, 65)),
	r("states a problem", "main|biggest|big|real|huge|major|key|the|our challenge|challenges|problem|problems|issue|pain|headache|bottleneck|struggle", o(fPain, 80), o(fNeed, 70)),
	r("states a problem", "problem|problems|challenge|challenges|issue|issues|pain|headache|nightmare|bottleneck|frustrat*|complain*", o(fPain, 65), o(fNeed, 60)),
	r("repetitive questions", "same question|questions|thing|things|queries|sawal|cheez|query", o(fPain, 75), o(fNeed, 65)),
	r("repetitive questions", "keep|keeps asking|calling|coming|messaging|writing", o(fPain, 70), o(fNeed, 60)),
	r("repetitive questions", "{repetitive|repeated|repetition|again and again|baar baar}", o(fPain, 65), o(fNeed, 55)),
	r("slow or manual process", "{manual|manually|slow|delayed|delay|delays|backlog|clunky|outdated|always busy|on hold}", o(fPain, 60), o(fNeed, 55)),
	r("slow or manual process", "not working", o(fPain, 60), o(fNeed, 55)).native(),
	r("errors and rework", "{error|errors|mistake|mistakes|mis|wrong|incorrect|inaccurate|typos|rework|mix up|mixups}", o(fPain, 65), o(fNeed, 55)),
	r("missed appointments", "{no shows|noshows|no show|missed|miss out|missing out}", o(fPain, 70), o(fNeed, 60)).native(),
	r("costing them money", "{costing|costs|cost} us", o(fPain, 75), o(fNeed, 65)),
	r("constant calls", "{all day|the whole day|whole day|all the time|every few minutes|non stop|nonstop|round the clock|day and night|constantly|continuously}", o(fPain, 65), o(fNeed, 55)),
	r("hurt or unwell", "{hurt|injured|injury|sprain|sprained|fracture|swelling|aching|ache|bleeding|fever|infection|can barely|cannot walk|can not walk}", o(fPain, 70), o(fNeed, 65)).native(),
	r("leads go cold", "go|goes|going|went|gone|turn|turning cold", o(fPain, 75), o(fNeed, 65)),
	r("converts badly", "{convert|converts|converting|perform|performs|performing|work|works} {badly|poorly}", o(fPain, 75), o(fNeed, 65)),
	r("errors and rework", "{error|errors|mistake|mistakes|mis|wrong|incorrect|inaccurate|typos|rework|mix up|mixups}", o(fPain, 65), o(fNeed, 55)),
	r("missed appointments", "{no shows|noshows|no show|missed|miss out|missing out}", o(fPain, 70), o(fNeed, 60)).native(),
	r("costing them money", "{costing|costs|cost} us", o(fPain, 75), o(fNeed, 65)),
	r("constant calls", "{all day|the whole day|whole day|all the time|every few minutes|non stop|nonstop|round the clock|day and night|constantly|continuously}", o(fPain, 65), o(fNeed, 55)),
	r("hurt or unwell", "{hurt|injured|injury|sprain|sprained|fracture|swelling|aching|ache|bleeding|fever|infection|can barely|cannot walk|can not walk}", o(fPain, 70), o(fNeed, 65)).native(),
	r("leads go cold", "go|goes|going|went|gone|turn|turning cold", o(fPain, 75), o(fNeed, 65)),
	r("converts badly", "{low|poor|bad} {conversion|conversions|conversion rate}", o(fPain, 75), o(fNeed, 65)),
	r("customers drop off", "{drop off|drops off|dropping off|dropoff|drop out|drops out}", o(fPain, 75), o(fNeed, 60)),
	r("states a problem", "{blocker|blockers|blocking|roadblock}", o(fPain, 75), o(fNeed, 65)),
	r("staff burning out", "{burn out|burning out|burnout|attrition}", o(fPain, 75), o(fNeed, 60)),
	r("getting worse", "{getting worse|worsening|suffering|dropped|stuck|bleeding}", o(fPain, 70), o(fNeed, 60)),
	r("many enquiries", "bahut|bohot|hundreds|thousands|lots|tons of? _? leads|calls|queries|sawal|enquiries|inquiries|messages|chats|tickets|questions|emails", o(fPain, 60), o(fNeed, 60)),
	suppress("no problem|worries|issues", fPain, fNeed),
	suppress("not a|an problem|issue", fPain, fNeed),

	// Need: wanting or looking for something.
	r("exactly what they need", "exactly|just what {we|i} {need|want|wanted|needed|are looking for|am looking for}", o(fNeed, 90), o(fPain, 70), o(fChampion, 50)),
	r("states a need", "need|needs|needed|require|requires|required|requirement|chahiye|zaroorat|zarurat", o(fNeed, 70), o(fPain, 45)),
	r("looking for", "looking|searching|shopping for|to", o(fNeed, 70)),
	r("looking for", "looking at|into", o(fNeed, 60)),
	r("in the market", "{in the market for|exploring options|evaluating options|considering}", o(fNeed, 60)),
	r("wants", "{want|wants|wanted|wish|would like}", o(fNeed, 65)),
	r("wants", "{lena hai|leni hai|karwana hai|karana hai|lagwana hai|chahta|chahti|chahte}", o(fNeed, 70)),
	r("wants", "karna hai", o(fNeed, 45)),
	r("wants", "{bechna hai|bechna chahte|lagana hai|banana hai|shuru karna|start karna}", o(fNeed, 60)),
	r("interested", "interested|interest|keen in|on|to", o(fNeed, 60)),
	r("interested", "interested", o(fNeed, 50)),
	r("planning", "planning|plan to|a|an|for", o(fNeed, 60)),
	r("thinking about it", "thinking about|of", o(fNeed, 40)),
	r("it would help", "would|will|could {help|be useful|save}", o(fNeed, 60), o(fPain, 40)),
	r("asks for help", "help me|us", o(fNeed, 50)),
	r("asks for help", "can|could|would {you|it|this|a bot|a chatbot|the bot|this tool|a tool|your bot|your product} help", o(fNeed, 45)).question(),
	// Asking for a meeting is intent more than need: it does not say what
	// problem the meeting is about.
	r("asks to meet", "{book|schedule|arrange|fix|set up} @det? demo|call|meeting|test|site|visit|appointment|consultation|tour|callback|walkthrough|slot", o(fNeed, 35), o(fIntent, 80)),
	r("asks to meet", "demo|call|meeting|appointment|callback please", o(fNeed, 35), o(fIntent, 80)),
	r("asks to meet", "demo|call|meeting dikhao|dikhaiye|dikha|chahiye|karo|kijiye|karwa", o(fNeed, 35), o(fIntent, 80)),
	r("asks to be contacted", "{call me|contact me|reach me|whatsapp me|callback|get back to me|get in touch}", o(fNeed, 35), o(fIntent, 70)),
	r("asks for material", "send|share|email me? @det|your? few? brochure|options|details|information|info|case|catalogue|catalog|deck|portfolio", o(fNeed, 40), o(fIntent, 40)),
	r("asks what is offered", "do|does|can|will you|it|your|they offer|have|provide|support|sell|do|handle|integrate|work|repair|take|answer|deliver|ship|accept|install|cover", o(fNeed, 35)).question(),
	r("asks what is offered", "what|which .. packages|plans|options|features|integrations|courses|programs|programmes|services|models|products|treatments|cars", o(fNeed, 35)).question(),
	r("asks how it works", "how does it|this work", o(fNeed, 30)),
	r("compares with another tool", "{different from|difference between|compared to|compare to|better than|vs|versus}", o(fNeed, 30), o(fCriteria, 40)).question(),
	r("asks what is offered", "is there @det? option|way|plan|package|feature", o(fNeed, 30)).question(),

	// Denials.
	r("just browsing", "just|only|simply|bas browsing|looking|checking|exploring|curious|seeing|researching|wondering|window|dekh|asking", o(fNeed, 0), o(fPain, 0)).deny().notYet(),
	r("just browsing", "just|only|simply collecting|gathering|getting info|information|details|ideas", o(fNeed, 0), o(fPain, 0)).deny().notYet(),
	r("just browsing", "{sirf|bas} jaankari|jankari|information|info", o(fNeed, 0), o(fPain, 0)).deny().notYet(),
	r("just browsing", "{out of curiosity|purely curious|por curiosidad|por curiosidade|par curiosite|aus neugier|curiosity ke liye}", o(fNeed, 0), o(fPain, 0)).deny().notYet(),
	// Doing it themselves for now: not buying yet.
	r("will do it themselves", "{do it myself|doing it myself|do it ourselves|doing it ourselves|handle it myself|hacerlo yo mismo|hacerlo nosotros mismos|fazer eu mesmo|fazer sozinho|le faire moi meme|le faire nous memes|selbst machen|selber machen|khud kar lunga|khud kar lungi|khud karunga|khud karungi}", o(fNeed, 0), o(fPain, 0)).deny().notYet(),
	r("just browsing", "dekh raha|rahi|rahe|rha|rhi", o(fNeed, 0), o(fPain, 0)).deny().notYet(),
	r("just browsing", "just want|wanted|trying to understand|know|see|learn|check|get", o(fNeed, 0), o(fPain, 0)).deny().notYet(),
	r("no need", "no real? need|challenge|challenges|problem|problems|pain|requirement|requirements", o(fNeed, 0), o(fPain, 0)).deny(),
	r("nothing specific", "nothing specific|particular|much", o(fNeed, 0), o(fPain, 0)).deny(),
	r("things are fine", "things|everything @be? mostly? fine|good|ok|okay|working", o(fPain, 0)).deny(),
	r("no plans", "no plans|plan", o(fNeed, 0), o(fTimeline, 0)).deny().notYet(),
}

var timelineRules = []rule{
	r("wants it immediately", "asap|immediately|urgent|urgently|today|tonight|tomorrow|turant|jaldi|fauran", o(fTimeline, 95), o(fPriority, 90)),
	r("wants it immediately", "{right away|at the earliest|as soon as possible|as early as possible}", o(fTimeline, 95), o(fPriority, 85)),
	r("wants it immediately", "need|needed|want|start|it|this right now", o(fTimeline, 90), o(fPriority, 80)),
	r("this week", "this|next|coming week|weekend", o(fTimeline, 95)),
	r("this week", "is|agle|agla hafte|hafta", o(fTimeline, 95)),
	r("this week", "by|this|next|coming|before @weekday", o(fTimeline, 95)),
	r("within days", "within|in @det? few|couple {of|} days", o(fTimeline, 95)),
	r("this month", "{this month|month end|isi mahine|is mahine}", o(fTimeline, 90)),
	r("this month", "end of @det? month", o(fTimeline, 90)),
	r("next month", "{next month|agle mahine|few weeks|couple of weeks|coming weeks}", o(fTimeline, 80)),
	r("next month", "within|in @det? month", o(fTimeline, 80)),
	r("this quarter", "this quarter", o(fTimeline, 75)),
	r("this quarter", "end of @det? quarter", o(fTimeline, 75)),
	r("next quarter", "{next quarter|few months|couple of months|coming months}", o(fTimeline, 55)),
	r("this year", "{this year|is saal}", o(fTimeline, 45)),
	r("later this year", "{later this year|year end}", o(fTimeline, 35)),
	r("later this year", "end of @det? year", o(fTimeline, 35)),
	r("next year", "{next year|agle saal|next financial year|next fy|next academic year|next session|next intake|next batch|next semester|next season}", o(fTimeline, 25)),
	r("next year", "within|in @det? year", o(fTimeline, 25)),
	r("years away", "{few years|couple of years}", o(fTimeline, 10)),
	// "Daqui a uns anos", "en unos años", "dans quelques années", "in ein
	// paar Jahren", "kuch saal mein": a few years, in every language.
	// "Übernächstes Jahr", "the year after next": two years off.
	r("years away", "{ubernachstes jahr|ubernachsten jahr|ubernachsten jahres|ubernachste jahr|year after next}", o(fTimeline, 10)),
	r("years away", "{daqui a uns anos|daqui uns anos|daqui alguns anos|daqui a alguns anos|em alguns anos|dentro de uns anos|en unos anos|en algunos anos|dentro de unos anos|dentro de algunos anos|dans quelques annees|ici quelques annees|in ein paar jahren|in einigen jahren|in wenigen jahren|kuch saal mein|kuch saalon mein|kuch saal baad|kuch saalon baad}", o(fTimeline, 10)),
	r("someday", "{someday|some day|eventually|future}", o(fTimeline, 10)),
	r("later", "{later|afterwards|baad mein|baad me|after some time}", o(fTimeline, 15)),
	r("later", "baad {sochenge|dekhenge|decide karenge|batayenge}", o(fTimeline, 15)),
	r("has a deadline", "{deadline|deadlines|due date|closing date|last date|closes on}", o(fTimeline, 70), o(fPriority, 75)),
	r("before an event", "before|till|until @det? .. peak|season|sale|launch|festival|diwali|holi|christmas|wedding|exams|exam|placements|filing|audit|holidays|admission|admissions|semester|intake|event|rush|renewal|deadline", o(fTimeline, 70)),
	r("before an event", "ahead of @det? .. peak|season|sale|launch|festival|diwali|holi|christmas|wedding|exams|exam|placements|filing|audit|holidays|admission|admissions|semester|intake|event|rush|renewal|deadline", o(fTimeline, 70)),
	r("before an event", "se pehle|pahle", o(fTimeline, 70)),
	r("asks when it can start", "when|kab .. start|starting|begin|begins|live|hoga|hogi", o(fTimeline, 45)).question(),
	r("no rush", "{no rush|no hurry|no urgency|not in a rush|not in a hurry}", o(fTimeline, 0), o(fPriority, 0)).deny().notYet(),
	r("not urgent", "{not urgent|not a priority|jaldi nahi|can wait}", o(fTimeline, 0), o(fPriority, 0)).deny().notYet(),
	r(readNotNow, "{not now|not right now|not for now|abhi nahi|abhi nhi}", o(fTimeline, 0), o(fPriority, 0)).deny().notYet(),
	r("timeline not decided", "{not decided|undecided|no timeline|no fixed timeline}", o(fTimeline, 15)).native(),
	// "We haven't set a timeline", "sin fecha todavía", "koi date fix
	// nahi": no date yet, in every language.
	r("timeline not decided", "{not|havent|hasnt|no|never} {set|fixed|decided|picked|agreed} {a|any|the|on a|on any|} {timeline|date|dates|deadline}", o(fTimeline, 15)).native(),
	r("timeline not decided", "{no date yet|no dates yet|no fixed date|sin fecha|sin fechas|no hay fecha|no tenemos fecha|sem data|sem datas|nao temos data|pas de date|pas encore de date|aucune date|keine frist|kein datum|noch kein termin|noch keinen termin|date fix nahi|dates fix nahi|date final nahi|date decide nahi}", o(fTimeline, 15)).native(),
}

var priorityRules = []rule{
	r("top priority", "top|first|highest|main|biggest|key priority|priorities", o(fPriority, 95), o(fTimeline, 60)),
	r("top priority", "{number one|no 1|#1} priority", o(fPriority, 95), o(fTimeline, 60)).native(),
	r("top priority", "priority number|no one|1", o(fPriority, 95), o(fTimeline, 60)).native(),
	r("top priority", "{first item|first thing}", o(fPriority, 85)),
	r("critical", "{critical|must fix}", o(fPriority, 85)),
	r("critical", "can not wait", o(fPriority, 85)).native(),
	r("important", "{very|really|extremely|super} important", o(fPriority, 70)),
	r("important", "important {for|to} us", o(fPriority, 70)),
	r("a priority", "priority", o(fPriority, 65)),
	r("leadership is watching", "ceo|board|management|leadership|founders|md reviews|review|mandate|mandated|wants|asked|tracks", o(fPriority, 75)),
	r("low priority", "{low priority|nice to have|not important|not critical|not a focus}", o(fPriority, 0)).deny().notYet(),
}

var buyingRules = []rule{
	// Metrics: numbers are read by code; these are KPI words without one.
	r("names a KPI", "{conversion|conversions|csat|nps|churn|aht|roi|dropoff|attrition|retention|cac|ltv|sla|kpi|kpis|drop off|cost per|first response}", o(fMetrics, 45)),
	r("names a KPI", "response|handle|resolution|turnaround|wait time|times", o(fMetrics, 45)),
	// Decision criteria.
	r("states a must-have", "{must|should|has to|have to|needs to|need to|got to} integrate|support|be|have|work|connect|push|keep|stay|run|sync|comply|handle|offer|include|allow|capture", o(fCriteria, 75)),
	r("integration requirement", "{integrat*|sync with|connect to|connect with|plug into}", o(fCriteria, 60)),
	r("names a system", "@system", o(fCriteria, 50)),
	r("compliance requirement", "soc|soc2|iso|27001|hipaa|gdpr|dpdp|rbi|pci|compliant|compliance|certified|certification|premise|premises|prem|onprem|residency|sso|saml|encryption|privacy|vapt", o(fCriteria, 65)),
	r("compliance requirement", "{data in india|data within india|stay in india|stays in india|hosted in india}", o(fCriteria, 65)),
	r("language requirement", "hindi|multilingual|tamil|telugu|marathi|bengali|gujarati|kannada|malayalam|arabic|spanish|french|languages", o(fCriteria, 55)),
	r("white-label requirement", "{white label|white labelled|white labeled|white labelling|whitelabel|rebrand}", o(fCriteria, 60)),
	r("lists criteria", "{criteria|requirements|mandatory|checklist|must have|must haves|non negotiable}", o(fCriteria, 80), o(fProcess, 50)),
	r("comparing vendors", "{comparing|compare|comparison|versus|vs|shortlist|shortlisting|alternatives|other vendors|few vendors|two vendors|other options}", o(fCriteria, 55), o(fProcess, 55)),
	r("what matters", "{what matters|matters most}", o(fCriteria, 60)),
	// Decision process.
	r("formal tender", "tender|tenders|rfp|rfq|rfi|eoi|bid|bids|bidding", o(fProcess, 85), o(fIntent, 60)),
	r("collects competing quotes", "#n|three|multiple|several|two|few quotations|quotes|proposals|bids", o(fProcess, 70), o(fIntent, 60)),
	r("collects competing quotes", "{collecting|collect|inviting|invite|getting} proposals|quotations|quotes|bids", o(fProcess, 65), o(fIntent, 50)),
	r("procurement step", "procurement|purchase|purchasing|vendor committee|process|team|department|approval|policy|cycle", o(fProcess, 80)),
	r("review step", "{it|legal|security|infosec|procurement|finance|compliance} will {review|check|evaluate|assess|vet|audit}", o(fProcess, 75)),
	r("review step", "security|legal|technical|it|compliance|infosec review|evaluation|audit|assessment|committee|check|clearance", o(fProcess, 75)),
	r("pilot step", "{pilot|pilots|poc|proof of concept|trial period|trial run}", o(fProcess, 75)),
	r("approval step", "{committee|board approval|board meeting|approval from|approval of|approved by}", o(fProcess, 70)),
	r("decision date", "decision|decide|sign|signing|contract|close|closing by|before|this|within|next", o(fProcess, 80)),
	r("evaluation step", "evaluat*|assess*|shortlist*", o(fProcess, 55)),
	r("contract step", "{contract|contracts|msa|sow|invoice|empanelment|purchase order|vendor onboarding|vendor registration|registration process}", o(fProcess, 60)),
	r("discuss internally", "{discuss|decide|check|talk|review|align} {internally|with the team|with my team|with our team}", o(fProcess, 45)),
	r("discuss internally", "{internal discussion|run it by}", o(fProcess, 45)),
	r("process unknown", "{do not know|not sure about|no idea about} .. process", o(fProcess, 0)).deny(),
	// Champion.
	r("pushing for it internally", "pushing|push|advocating|advocate|championing|champion|rooting for? this|it", o(fChampion, 85)),
	r("pushing for it internally", "{i will|i can|i am going to} present|pitch|recommend|propose|sell|introduce|bring|include|convince|loop", o(fChampion, 75)),
	r("brings in colleagues", "{include|bring|add|invite|loop in} our|my @boss", o(fChampion, 75)),
	r("leading the evaluation", "i am leading|driving|owning|heading this|the|it|our", o(fChampion, 80)),
	r("leading the evaluation", "{i am in charge of|i have been tasked|i have been asked}", o(fChampion, 60)),
	r("shared it internally", "i showed|shared|presented|forwarded", o(fChampion, 70)),
	r("buyer already supportive", "{supportive|convinced|agrees|agreed|on board|bought in}", o(fEconomic, 70), o(fChampion, 60)),
	r("colleague is keen", "@pronoun3 @be? {keen|excited|enthusiastic|very keen|really keen}", o(fChampion, 65)),
	r("will pass it on", "i will share|forward|pass|send .. with|to @det? @boss|team|them", o(fChampion, 45)),
	r("will pass it on", "i will {mention|raise|bring up|discuss} it|this", o(fChampion, 45)),
}

var disqualifierRules = []rule{
	// Job seekers.
	r("asks for a job", "are you hiring|recruiting", o(fJob, 100)),
	r("asks for a job", "any|there job|jobs|openings|opening|vacancy|vacancies|positions", o(fJob, 100)),
	// "Kaam hai" alone is "it's my line of work" ("tiffin service ka kaam
	// hai"); only asking for work is a job seeker.
	r("asks for a job", "job|naukri|vacancy hai|chahiye|milegi|milega", o(fJob, 100)),
	r("asks for a job", "kaam chahiye|milegi|milega", o(fJob, 100)),
	r("asks for a job", "{looking for|searching for|need|want} @det? job|jobs|internship|employment|placement", o(fJob, 100)),
	r("asks for a job", "apply|applying for|to @det? .. role|position|job|post|opening|vacancy", o(fJob, 100)),
	r("asks for a job", "my|send|share|forward|attach|attached resume|cv|biodata", o(fJob, 100)),
	r("asks for a job", "{fresher|freshers|stipend|ctc|notice period|can join immediately|give internship|give me internship|internship for}", o(fJob, 100)),
	// Students doing coursework (a student enrolling is a customer).
	r("student coursework", "{college|school|university|academic|final year|semester|class|mba|btech|mtech|phd|msc|bsc|bba|mca|bca} project|assignment|thesis|dissertation|homework|research|report|seminar", o(fStudent, 100)),
	r("student coursework", "my|our thesis|dissertation|assignment|homework|research", o(fStudent, 100)),
	r("student coursework", "{research paper|project report|internship certificate|project ke liye}", o(fStudent, 100)),
	r("student coursework", "for my research|project|studies|assignment|thesis", o(fStudent, 80)),
	r("says they are a student", "i am a|an .. student|intern|fresher", o(fStudentMe, 100)),
	// Competitors.
	r("competitor", "{we are|i am} .. competitor|competitors", o(fCompetitor, 100)),
	r("competitor", "competitive|competitor analysis|research|intel|intelligence|benchmarking", o(fCompetitor, 100)),
	r("competitor", "building|developing|launching|built|build @det? .. similar|competing", o(fCompetitor, 100)),
	r("competitor", "sell|offer|make|run|have|own @det? competing", o(fCompetitor, 100)),
	r("same trade", "i am a|an .. too", o(fCompetitor, 100)),
	r("same trade", "i work|am at|for|in a|an .. too", o(fCompetitor, 100)),
	r("fishing for business data", "your {margins|margin|churn|revenue|tech stack|client list|customer list}", o(fFishing, 100)),
	r("fishing for business data", "{what margin|what margins|commission structure|full inventory|inventory list|understand the market|market research|price sheet for all}", o(fFishing, 100)),
	r("fishing for business data", "which|what llm|model|models do you use", o(fFishing, 100)),
	r("fishing for business data", "how many customers|clients|agencies|users|companies|brands use|have|are", o(fFishing, 100)),
	// Spam and vendor pitches.
	r("spam", "{seo services|backlinks|backlink|guest post|guest posts|link building|first page|page ranking|rank your|click here|our telegram|invest in our|returns in|offshore development|outsourcing services|dedicated developers|staff augmentation}", o(fSpam, 100)),
	r("spam", "buy .. followers|likes", o(fSpam, 100)),
	r("spam", "{in exchange for|in return for} .. feature|post|review|promotion|shoutout|story|mention|coverage|exposure|posts|reel|reels", o(fSpam, 100)),
	r("spam", "{i am a recruiter|we are a recruitment|staffing services|recruitment services|pre vetted|prevetted|developers on contract}", o(fSpam, 100)),
	r("vendor pitch", "{we offer|we provide|we specialise|we specialize|we are offering|our services|we can help you|we help companies|we help businesses|we have helped}", o(fSpamWeak, 100)),
	r("vendor pitch", "{your website|your business|your cto|your ceo|your decision maker|your brand|your company}", o(fSpamWeak, 100)),
	r("vendor pitch", "{dear sir|dear team|dear madam|partnership opportunity|business opportunity|collaboration opportunity|limited slots|limited offer|reply urgently|act now|special offer|lowest price|best price|low cost|crypto|cryptocurrency|bitcoin|forex|guaranteed|call now|whatsapp now|dm us|instant approval|instant loan|no documents|no document|lowest interest|pre approved offer|earn from home|work from home}", o(fSpamWeak, 100)).native(),
	r("vendor pitch", "{collaborate|collaboration|partner|partnership|tie up} with you|your", o(fSpamWeak, 100)),
	r("vendor pitch", "{explore|discuss|propose} @det? .. partnership|collaboration|tie up", o(fSpamWeak, 100)),
	r("vendor pitch", "{who handles|who manages|contact for} partnerships|collaborations|marketing|vendor", o(fSpamWeak, 100)),
	r("vendor pitch", "{free trip|free stay|free product|free sample|barter|sponsored post|paid collaboration}", o(fSpamWeak, 100)),
	r("vendor pitch", "i am a|an .. influencer|blogger|youtuber|creator|vlogger", o(fSpamWeak, 100)),
	r("vendor pitch", "{we are an agency|we are a digital marketing agency|we are a marketing agency|we are a software company}", o(fSpamWeak, 100)),
	// Existing customers with a problem.
	r("existing customer", "my order|orders|parcel|package|delivery|shipment|refund|claim|policy|booking|subscription|account|complaint|ticket|payment|invoice|bill", o(fSupport, 100)),
	r("existing customer", "order|policy|claim|ticket|booking|invoice|loan|account|customer number|no|id|#", o(fSupport, 100)).native(),
	r("existing customer", "my emi|emis|loan|card|statement|premium|repayment|fee|fees|deposit|admission|enrolment|enrollment|membership|warranty|installation|service|repair", o(fSupport, 100)),
	r("existing customer", "you {charged|billed|overcharged|sold|sent|delivered|promised|told|gave|installed|fitted|replaced} me|us", o(fSupport, 100)),
	r("existing customer", "i {bought|ordered|paid|purchased|booked|gave} .. {from you|with you|for service|for repair|for servicing}", o(fSupport, 100)),
	r("existing customer", "cancel the|my|our account|subscription|plan|order|booking|policy", o(fSupport, 100), o(fProblem, 100)),
	r("has a problem with it", "{stuck|delayed|damaged|broken|ombudsman|escalate|refund|wrong item|third time|second time|still waiting|no reply|no response|consumer court|where is|twice|double charged|overcharged|reverse|reversal|chargeback|dispute|not credited|failed transaction|deducted}", o(fProblem, 100)).native(),
	r("has a problem with it", "{has not|have not|did not|is not|not|were not|was not} arrived|come|reached|received|processed|resolved|delivered|working|replaced|repaired|fixed|done|get|got|picking|answering|responding", o(fProblem, 100)).native(),
	r("no intent", "{by mistake|unsubscribe|wrong number|remove me|do not contact}", o(fNoIntent, 100)).native(),
	r("no intent", "stop the|your|these emails|messages|calls|mails", o(fNoIntent, 100)),
}

// allRules is every rule group in one slice; a rule's position is its id.
var allRules = concat(budgetRules, authorityRules, needRules, timelineRules, priorityRules, buyingRules, disqualifierRules, intlRules)

func concat(groups ...[]rule) []rule {
	var all []rule
	for _, g := range groups {
		all = append(all, g...)
	}
	return all
}

// hedges soften what is said in their clause ("maybe next month").
var hedges = map[string]bool{
	"maybe": true, "might": true, "perhaps": true, "possibly": true, "probably": true, "hopefully": true,
	"may": true, "shayad": true, "sometime": true, "someday": true, "guess": true,
	"quizas": true, "quiza": true, "talvez": true, "posiblemente": true, "probablemente": true,
	"provavelmente": true, "possivelmente": true, "peut": true, "probablement": true, "eventuellement": true,
	"vielleicht": true, "wahrscheinlich": true, "eventuell": true, "moglicherweise": true, "evtl": true,
}

// negators turn a following phrase in the same clause into a denial.
var negators = map[string]bool{
	"not": true, "no": true, "never": true, "without": true, "nor": true, "neither": true,
	"nothing": true, "none": true, "hardly": true,
	// Spanish, Portuguese, French, German.
	"nunca": true, "sin": true, "ni": true, "jamas": true, "nada": true, "ningun": true, "ninguna": true,
	"nao": true, "nem": true, "sem": true, "nenhum": true, "nenhuma": true,
	"pas": true, "ne": true, "jamais": true, "aucun": true, "aucune": true, "sans": true, "rien": true,
	"nicht": true, "kein": true, "keine": true, "keinen": true, "keinem": true, "keiner": true, "nie": true,
	"niemals": true, "ohne": true, "nichts": true,
}

// prepositionNegators are the negators that are prepositions: they deny
// the noun phrase they govern, not the clause.
var prepositionNegators = map[string]bool{"without": true, "sin": true, "sem": true, "sans": true, "ohne": true}

// postNegators negate the phrase before them (Hindi word order: "budget
// nahi hai").
var postNegators = map[string]bool{"nahi": true, "mat": true, "nicht": true}
