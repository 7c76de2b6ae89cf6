package score

// Concept tables shared by every language: the same buying concept
// (approval of the money, a request to book or visit, a commitment to
// buy, collecting competing offers) written once per language as a short
// list of verbs and nouns rather than as whole sentences, so that the
// phrasings nobody wrote down yet still combine. Words are folded as in
// lexicon_intl.go.

var conceptRules = []rule{
	// Approval of the money: "the board approved the venue spend", "a verba
	// de treinamento já está aprovada", "crédito preaprobado por el banco",
	// "das Budget wurde freigegeben".
	r("budget approved", "{budget|budgets|spend|spending|funds|funding|money|verba|orcamento|presupuesto|partida|credito|financiamiento|financiamento|financement|pret|finanzierung|kredit|loan|mittel|enveloppe} .. .. {approved|sanctioned|preapproved|aprobado|aprobada|aprovado|aprovada|preaprobado|preaprobada|preaprovado|preaprovada|autorizado|autorizada|liberado|liberada|approuve|approuvee|valide|validee|accorde|accordee|genehmigt|freigegeben|bewilligt|zugesagt|pass|sanction}", o(fBudget, 80)).unless(pendingWords...),
	r("budget approved", "{approved|sanctioned|aprobo|aprobaron|aprovou|aprovaram|approuve|valide|genehmigt|freigegeben|bewilligt} .. {budget|spend|spending|funds|funding|verba|orcamento|presupuesto|partida|credito|budget|mittel|enveloppe}", o(fBudget, 80)).unless(pendingWords...),
	r("approval obtained", "{got|have|received|secured|tengo|tenemos|temos|tenho|avons|ai|haben|habe} .. {sign off|signoff|approval|go ahead|green light|aprobacion|visto bueno|luz verde|aprovacao|sinal verde|accord|feu vert|validation|freigabe|genehmigung|zusage}", o(fBudget, 75), o(fProcess, 70)).unless(pendingWords...),
	// Approval of the purchase itself, not only of its money: "a diretoria
	// já aprovou contratar escritório externo", "the board approved hiring
	// an agency", "la direction a validé le recrutement d'un cabinet".
	r("purchase approved", "{approved|aprobo|aprobaron|aprovou|aprovaram|approuve|valide|genehmigt|freigegeben|bewilligt} .. {hiring|to hire|outsourcing|contratar|contratacion|contratacao|engager|recruter|beauftragen|beauftragung|the purchase|la compra|a compra|achat|kauf}", o(fBudget, 75), o(fProcess, 60)).unless(pendingWords...),
	// Only the choice of provider is left: "só falta escolher qual", "solo
	// falta elegir", "il reste à choisir le prestataire", "we just need to
	// pick a vendor", "wir müssen nur noch auswählen".
	r("choosing the provider", "{so falta escolher|falta escolher|solo falta elegir|falta elegir|solo nos falta elegir|reste a choisir|il reste a choisir|just need to pick|only need to pick|just need to choose|only need to choose|nur noch auswahlen|nur noch entscheiden welche|bas choose karna}", o(fEval, 60), o(fNeed, 55)),
	r("approval obtained", "{approval|sign off|go ahead|green light} {mil gaya|mil gayi|mil chuka|mil chuki|aa gaya|aa gayi|ho gaya|ho gayi}", o(fBudget, 75), o(fProcess, 70)).native(),

	// Asking for an appointment, a visit, a viewing or a test: a request to
	// buy when the visitor has a need (a clinic visit, a viewing, a class).
	// "Let's book", "can we book" with nothing after: the bot named what is
	// booked ("entao bora marcar", "¿podemos agendar?", "on peut caler ça").
	r("asks to book", "{vamos|podemos|pode|quero|queria|quer|gostaria de|vamos a|quiero|quiere|quisiera|podriamos|on peut|pouvons nous|je voudrais|lass uns|konnen wir|wollen wir} {marcar|agendar|reservar|caler|reserver|buchen|festmachen|fixar|fechar}", o(fIntent, 80), o(fNeed, 40)),
	r("asks for an appointment", "{dar|darme|darnos|dame|danos|pedir|coger|sacar|tomar|agendar|marcar|reservar|fixar} @det? {cita|hora|turno|consulta|visita|horario|avaliacao|valoracion|revision|sesion|sessao|clase|aula|limpieza|limpeza|prueba|exame|examen}", o(fIntent, 80), o(fNeed, 40)),
	r("asks for an available slot", "{vous avez|avez vous|auriez vous|tienen|teneis|tiene|tienes|tem|voces tem|vcs tem|haben sie|habt ihr|hast du|aapke paas|do you have|have you got|got any|any chance of} .. {creneau|creneaux|disponibilite|disponibilites|place|places|hueco|huecos|cita|mesa|sitio|plaza|plazas|horario|horarios|termin|termine|slot|slots|availability|room|rooms|table|spot|spots|appointment|appointments}", o(fIntent, 75), o(fNeed, 50)),
	r("asks for an available slot", "{fit me in|fit us in|squeeze me in|squeeze us in|get me in|see me|see us} {on|this|today|tomorrow|next|before|at}", o(fIntent, 80), o(fNeed, 50)),
	r("asks for an appointment", "{podeis dar|pueden dar|puede dar|podria dar|podrian dar|pode marcar|podem marcar|pode agendar|podem agendar|consigo marcar|consigo agendar} .. {cita|hora|turno|consulta|visita|horario}", o(fIntent, 80), o(fNeed, 40)),
	r("asks to visit", "{on peut|nous pouvons|je peux|peut on|pouvons nous|puis je|pourrions nous|pourrait on|est ce que on peut|est ce que je peux} {venir|passer|visiter|essayer|faire un essai}", o(fIntent, 80), o(fNeed, 40)),
	r("asks to visit", "{konnen wir|kann ich|durfen wir|darf ich|konnten wir|konnte ich} .. {vorbeikommen|besichtigen|anschauen|ansehen|probefahren|probe fahren|vorbei kommen|kommen}", o(fIntent, 80), o(fNeed, 40)),
	// The business asked to come ("Wann könnt ihr vorbeikommen?", "könnte
	// jemand nächste Woche vorbeikommen?") or for a call or a visit in the
	// Brazilian "consegue" form ("consegue uma call essa semana?",
	// "consegue visita ainda esse mês?").
	r("asks to visit", "{konnt ihr|konnen sie|konnten sie|konnte jemand|kann jemand|kommt ihr|kommen sie|wann konnt ihr|wann konnen sie} .. {vorbeikommen|vorbeischauen|vorbei kommen|rauskommen|vorbei}", o(fIntent, 80), o(fNeed, 40)),
	r("asks to meet", "{consegue|conseguem|conseguimos|consegues|da pra|da para} {uma|um|} {call|reuniao|visita|conversa|chamada|demo|demonstracao}", o(fIntent, 80), o(fNeed, 40)),
	// "Consegue marcar-me para terça?", "can I get in Tuesday after 5?",
	// "can you fit me in?": an appointment asked for.
	r("asks to book", "{consegue|conseguem|consegues|podem|pode} {marcar|agendar|reservar|encaixar}", o(fIntent, 80), o(fNeed, 40)),
	r("asks to book", "{can i get in|could i get in|can we get in|could we get in|can you fit me in|could you fit me in|can you squeeze me in|could you squeeze me in}", o(fIntent, 80), o(fNeed, 40)),
	r("asks to visit", "{visit|campus visit|site visit|demo|test drive|trial class|appointment|viewing|tour} {kar sakte|kar sakta|kar sakti|karna hai|karwa do|karwa dijiye|book kar|fix kar|kar lete|karenge|kar lenge|ho sakta|ho sakti|ho payega|possible hai|mil sakta|mil sakti}", o(fIntent, 80), o(fNeed, 40)),
	r("asks to visit", "{aa sakte|aa sakta|aa sakti|aa jaaye|aa jaun|aa jau|milne aa|aake dekh}", o(fIntent, 75), o(fNeed, 40)),
	r("asks to visit", "{can i|can we|could i|could we|may i|may we} come {for|in|and|to|tomorrow|today|on|this|next}", o(fIntent, 80), o(fNeed, 40)),
	r("asks to test it", "{lo puedo probar|la puedo probar|puedo probarlo|puedo probarla|podemos probarlo|prueba de manejo|posso testar|posso fazer um test drive|test drive|probefahrt|essai routier|faire un essai}", o(fIntent, 80), o(fNeed, 45)),
	// Reserving the date or an option on it.
	r("reserves it", "{poser une option|mettre une option|bloquer la date|reserver la date|bloquear la fecha|reservar la fecha|apartar la fecha|segurar a data|reservar a data|bloquear a data|option auf|termin blocken|datum reservieren|hold the date|put a hold|date block|date hold}", o(fIntent, 85), o(fNeed, 50)),
	r("asks to meet", "{podemos|podriamos|puedo|podemos|podemos|posso|podemos|pouvons nous|peut on|on peut|konnen wir|konnten wir|can we|could we} {hacer|tener|fazer|ter|faire|avoir|haben|machen|have|do|set up|jump on|hop on} @det? {llamada|reunion|videollamada|demo|ligacao|chamada|reuniao|demonstracao|appel|reunion|visio|demo|telefonat|termin|gesprach|call|meeting|demo}", o(fIntent, 80), o(fNeed, 35)),
	r("wants to close", "{para cerrarlo|para cerrar el trato|cerrar el trato|para fechar|fechar negocio|pour conclure|pour signer|conclure le contrat|zum abschluss|um abzuschliessen|to close the deal|to sign off|deal final karne}", o(fIntent, 85), o(fNeed, 50)),
	r("asks for the contract", "{enviar|mandar|enviarme|mandarme|envoyer|schicken|senden|send} .. {proposta formal|propuesta formal|contrato|contract|contrat|vertrag}", o(fIntent, 80), o(fBudget, 55)),

	r("commits to buy", "{nehme ich|nehmen wir|ich nehme|wir nehmen} {das|die|den} {paket|angebot|zimmer|termin|option|tarif|kurs}", o(fIntent, 85), o(fNeed, 60)),
	// A commitment to buy: "I'll do the package", "lo cierro ese día",
	// "kal book karunga".
	r("commits to buy", "{i will|we will} {do|take|go with|book} the|this|that package|plan|option|one|offer|deal|course|room|slot", o(fIntent, 85), o(fNeed, 60)),
	r("commits to buy", "{lo cierro|la cierro|lo cerramos|lo compro|la compro|me lo llevo|me la llevo|nos lo llevamos|fechamos|eu fecho|je le prends|je la prends|on le prend|on la prend|nous le prenons|book karunga|book karungi|book karenge|book kar lunga|book kar lungi|book kar lenge|final karenge|final kar denge|confirm karenge|confirm kar denge}", o(fIntent, 85), o(fNeed, 60)),

	// "Is Saturday", "agle Monday": Hinglish for this or next week's day.
	r("this week", "{is|iss|agle|aane wale|aane wala|pra|para} @weekday", o(fTimeline, 95)),
	// A booking for a named day ("can you fit me in on Friday?"); a bare
	// "on Sunday" may ask opening hours.
	r("books a day", "{fit me in|fit us in|squeeze me in|get me in|see me|see us|come in|come by|book me|book us|book it} on @weekday", o(fTimeline, 90)),

	// Pain in the body, for clinics: "j'ai mal au dos", "me duele la
	// muela", "dard ho raha hai".
	r("hurt or unwell", "{hurts|hurting|painful|sore|toothache|backache|is killing me|killing me|j ai mal|je ai mal|me duele|me duelen|dolor de|me doi|doi muito|dor de|dor nas|tut weh|tun weh|schmerzen|douleur|douleurs|dard hai|dard ho|dard ho raha|dard rehta}", o(fPain, 70), o(fNeed, 65)),

	// Something they already bought or hold, in every language: "mera
	// order", "meine Bestellung", "ma police", "mi póliza", "mi
	// mensualidad", "mon abonnement". With a problem
	// it is a support request (override.go).
	r("existing customer", "{my|our|mi|mis|nuestro|nuestra|meu|minha|nosso|nossa|mon|ma|mes|notre|nos|mein|meine|meinen|meiner|unser|unsere|unseren|mera|meri|mere|hamara|hamari|humara|humari} {order|orders|pedido|encomenda|commande|bestellung|lieferung|sendung|paket|colis|parcel|package|delivery|envio|entrega|livraison|policy|poliza|apolice|police|versicherung|vertrag|contrato|contrat|claim|siniestro|sinistro|sinistre|schadensfall|invoice|factura|fatura|facture|rechnung|bill|refund|reembolso|remboursement|erstattung|ticket|reclamacion|reclamacao|reclamation|reklamation|garantia|garantie|warranty|mensualidad|mensualidades|cuota|mensalidade|mensalidades|cotisation|abonnement|mitgliedsbeitrag|abo|membership|suscripcion|assinatura}", o(fSupport, 100)),

	// Our contract running out or still running ("wenn unser Vertrag
	// irgendwann ausläuft", "nuestro contrato vence en marzo", "unser
	// Vertrag mit der jetzigen Firma läuft noch", "our contract with the
	// current vendor ends June 30") is the current provider's: when the
	// visitor may switch, not a request about something bought here.
	suppress("{our|my|unser|unsere|nuestro|mi|nosso|meu|notre|mon|hamara|humara} {contract|vertrag|contrato|contrat} .. .. {ends|expires|runs|auslauft|auslaeuft|endet|ablauft|lauft|termina|vence|acaba|finaliza|expira|termine|finit|expire|khatam}", fSupport),
	suppress("{contract|vertrag|contrato|contrat} {mit|con|com|avec|with} .. {jetzigen|aktuellen|bisherigen|derzeitigen|actual|atual|actuel|actuelle|current|present|existing}", fSupport),
	// Wanting something one has put right, every language: a need whose
	// object is a repair of "it" ("lo necesito solucionado ya", "preciso
	// disso resolvido hoje", "I need it fixed by Friday", "ich brauche das
	// heute behoben") is a service request about something already
	// bought, not a purchase.
	r("wants it put right", "{need|needs|want|necesito|necesitamos|quiero|queremos|preciso|precisamos|quero|queremos|brauche|brauchen|will|faut|veux|voudrais} .. {it|this|that|lo|la|esto|eso|isso|disso|isto|das|es|le|ca} .. "+putRight, o(fSupport, 100), o(fProblem, 100)),
	r("wants it put right", "{lo|la|le} {necesito|necesitamos|quiero|queremos|quero|queremos|veux|voudrais} .. "+putRight, o(fSupport, 100), o(fProblem, 100)),
	r("wants it put right", "{theek|thik|sahi} {karo|kar do|kijiye|karwa do|karwao|hona chahiye|chahiye}", o(fSupport, 100), o(fProblem, 100)),

	// A business of the same kind as this one, named as a rival: "une
	// agence concurrente", "somos una empresa de la competencia".
	r("competitor", "{agence|entreprise|societe|boite|empresa|agencia|firma|agentur|unternehmen|company|agency|business|firm} {concurrente|concurrent|competidora|de la competencia|concorrente|da concorrencia|konkurrierende|der konkurrenz|competitor|competing|rival}", o(fCompetitor, 100)),
	// Weighing the business against the visitor's own ("votre positionnement
	// par rapport à nous", "how you compare to us", "im Vergleich zu uns"):
	// the other side of the comparison is a rival, not a buyer's shortlist.
	r("competitor", "{par rapport a nous|compare a nous|compared to us|compared with us|compare to us|versus us|comparado con nosotros|en comparacion con nosotros|frente a nosotros|comparado conosco|comparado a nos|em comparacao conosco|im vergleich zu uns|verglichen mit uns|humse compare|hamare comparison}", o(fCompetitor, 100)),
	r("competitor", "{on est|nous sommes|somos|wir sind|we are|hum} {vos concurrents|votre concurrent|sus competidores|su competencia|seus concorrentes|sua concorrencia|ihre konkurrenz|ihr wettbewerber|your competitor|your competitors|aapke competitor}", o(fCompetitor, 100)),

	// Losing business, every language: a losing verb and what is lost.
	r("losing business", "{perdemos|perdiendo|perdimos|perder|perdendo|perdemos|perdi|perdemos} .. {citas|cita|pacientes|clientes|pedidos|llamadas|mensajes|oportunidades|ventas|reservas|consultas|alumnos|leads|consultas|vendas|agendamentos|ligacoes|mensagens|oportunidades|alunos|encomendas}", o(fPain, 85), o(fNeed, 75)),
	r("losing business", "{customers|patients|leads|orders|bookings|clients|sales|calls|enquiries|inquiries|appointments} .. {lost|slipping|going elsewhere|go elsewhere|drop off}", o(fPain, 80), o(fNeed, 70)),

	// Collecting competing offers or asking elsewhere: evaluation stage.
	r("collects competing offers", "{vergleichsangebote|vergleichsangebot|angebote einholen|angebote ein|hole .. angebote|sammle .. angebote|comparatif|comparaison|je compare|nous comparons|on compare|plusieurs devis|autres devis|levantando opcoes|levantando orcamentos|cotando|varios orcamentos|outros orcamentos|pidiendo presupuestos|varios presupuestos|otros presupuestos|comparando precios|comparando opciones|options dene|options dekh|quotes compare|compare kar|getting quotes|collecting quotes|other quotes|several quotes|shopping around}", o(fEval, 60), o(fNeed, 50), o(fProcess, 50)),
	r("asked elsewhere", "{aur|ek aur|dusre|doosre|dusri|doosri} .. {clinic|jagah|company|vendor|shop|dealer|agency|school|hospital|hotel|provider} .. {poocha|pucha|puchha|dekha|baat ki|check kiya|quote liya}", o(fEval, 60), o(fNeed, 50), o(fProcess, 50)),
	r("asked elsewhere", "{otra clinica|otro proveedor|otra agencia|outra clinica|outro fornecedor|outra agencia|une autre clinique|un autre prestataire|une autre agence|einer anderen praxis|einem anderen anbieter|another clinic|another provider|another vendor|other clinics|other providers|other vendors}", o(fEval, 55), o(fNeed, 45), o(fProcess, 45)),
	// Comparing with other providers, in general words: "we're comparing a
	// few venues", "ich vergleiche noch mit einem anderen Büro", "vou
	// comparar com a Stone", "2-3 agencies se baat chal rahi hai".
	r("compares providers", "{comparing|compare|comparer|comparo|comparamos|comparando|comparar|vergleiche|vergleichen|compara|comparer|comparons} .. {few|several|other|others|another|plusieurs|autres|autre|otros|otras|otro|otra|outros|outras|outro|outra|mehreren|anderen|anderem|weiteren|com|mit|with}", o(fEval, 60), o(fNeed, 45)),
	r("compares providers", "{agencies|agency|companies|vendors|clinics|dealers|installers|firms} se baat {chal|ho|kar}", o(fEval, 60), o(fNeed, 45)),
	// Talking to others of the same trade, whatever the trade is called:
	// "talking to a few architects", "we're seeing two other firms",
	// "hablando con otras dos academias", "allen me bhi baat ki hai".
	r("compares providers", "{talking to|talking with|speaking to|speaking with|meeting|seeing|looking at|considering|also asked|also talked to|hablando con|viendo|mirando|conversando com|falando com|vendo|je vois|je rencontre|en contact avec|spreche mit|sprechen mit|treffen} {a few|several|other|another|two other|three other|a couple of|some other|otras|otros|otra|otro|varias|varios|outras|outros|outra|outro|varias|d autres|plusieurs|un autre|une autre|anderen|mehreren|einem anderen|einer anderen}", o(fEval, 60), o(fNeed, 45)),
	// The same comparison in the other languages' everyday forms: asked
	// others too ("on a demandé aussi à deux autres agences", "pedimos a
	// otras dos empresas", "hab noch bei zwei anderen angefragt"), a
	// benchmark of providers ("on fait un benchmark de 4 prestataires"),
	// also looking at named rivals ("estoy mirando también Factorial y
	// Sesame", "je regarde aussi X"), and what sets this business apart
	// ("¿qué os diferencia?", "qu'est-ce qui vous différencie ?").
	r("compares providers", "{demande|demandons|consulte|consultons|contacte|sollicite|pregunte|preguntamos|pedi|pedimos|consulte|consultamos|contacte|contactamos|perguntei|perguntamos|consultei|consultamos|cotei|cotamos|angefragt|gefragt|nachgefragt} .. {autres|otras|otros|outras|outros|anderen|weiteren|others|other}", o(fEval, 60), o(fNeed, 45)),
	r("compares providers", "{benchmark|benchmarking} .. {prestataires|fournisseurs|agences|societes|entreprises|proveedores|agencias|empresas|fornecedores|agencias|anbieter|anbietern|agenturen|providers|vendors|agencies|companies}", o(fEval, 60), o(fNeed, 45)),
	r("compares providers", "{mirando|viendo|evaluando|considerando|olhando|vendo|avaliando|considerando|regarde|regardons|evalue|evaluons|schaue|schauen|anschauen|dekh} {tambien|tambem|aussi|auch|bhi}", o(fEval, 55), o(fNeed, 40)),
	r("compares vendors", "{que os diferencia|que les diferencia|que los diferencia|que vos diferencia|o que vos diferencia|o que os diferencia|o que diferencia voces|qu est ce qui vous differencie|qui vous differencie|ce qui vous distingue|qu est ce qui vous distingue|what sets you apart|what makes you different|was macht euch anders|was macht ihr anders|was macht sie anders|was zeichnet euch aus|was zeichnet sie aus}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)),
	// How this business differs, asked ("¿en qué os diferenciáis de
	// Doctoralia?", "wie unterscheidet ihr euch von X?", "em que vocês se
	// diferenciam?", "en quoi vous distinguez-vous ?"), and rivals already
	// looked at ("wir haben uns auch die Montessori-Schule angeschaut",
	// "también hemos visto X", "on a aussi visité", "we also looked at").
	r("compares vendors", "{en que|que} {os|les|se|te|vos} {diferenciais|diferencian|diferencias|distinguis|distinguen}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)).question(),
	r("compares vendors", "{em que|no que} {voces|vcs|vc|se} {se|} {diferenciam|diferem|distinguem}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)).native().question(),
	r("compares vendors", "en quoi vous {differenciez|distinguez|etes differents|etes differentes}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)).question(),
	r("compares vendors", "{wie|was|worin} {unterscheidet|unterscheiden} {ihr|sie|euch} {euch|sich|}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)).question(),
	r("compares vendors", "{how do you differ|how are you different|how is yours different}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)).question(),
	r("compares providers", "{haben|habe|hatten} {uns|} auch .. .. {angeschaut|angesehen|besichtigt}", o(fEval, 55), o(fNeed, 40)),
	r("compares providers", "{hemos visto tambien|hemos mirado tambien|hemos visitado tambien|tambien hemos visto|tambien hemos mirado|tambien hemos visitado|tambem vimos|tambem visitamos|tambem olhamos|vimos tambem|visitamos tambem|on a aussi regarde|on a aussi visite|nous avons aussi visite|nous avons aussi regarde|we also looked at|we also visited|we also toured|i also looked at|i also visited}", o(fEval, 55), o(fNeed, 40)),
	// A rival's price told ("ek dusre consultant ne 45k bola tha",
	// "WeWork wale 12.5k per seat bata rahe the", "Bench quoted me $299"):
	// offers being compared.
	r("compares providers", "{ne|wale|wala|wali} _? #n .. {bola|bataya|bata|bol|quote}", o(fEval, 60), o(fNeed, 45)).native(),
	r("compares providers", "{quoted me|quoted us|offered me|offered us} .. {#n|less|more|cheaper}", o(fEval, 60), o(fNeed, 45)),
	r("compares providers", "{bhi baat ki|bhi baat kar|bhi baat hui|bhi pucha|bhi poocha|bhi puchha|bhi quote liya|bhi enquiry ki|bhi visit kiya}", o(fEval, 60), o(fNeed, 45)),
	r("compares providers", "{trying to decide|still deciding|deciding which|will decide after|decide after|je magasine|on magasine|je continue de magasiner|magasiner|en train de magasiner}", o(fEval, 55), o(fNeed, 40)),

	// A trial session of a class, a lesson or a service: "me anoto a la
	// de prueba", "uma aula experimental", "un cours d'essai", "eine
	// Probestunde" (read with the Probe- compounds), "demo class".
	r("asks for a trial", "{clase de prueba|clases de prueba|la de prueba|clase gratis|clase gratuita|sesion de prueba|aula experimental|aula teste|aula de teste|aula gratis|aula gratuita|cours de essai|seance de essai|lecon de essai|cours gratuit|seance gratuite|demo class|trial class|free class|trial session|trial lesson|demo session|trial lena|trial le sakte}", o(fEval, 65), o(fNeed, 55), o(fIntent, 55)),

	// Looking at alternatives to this business or to the current one: "ich
	// schau mir grad ein paar Alternativen an", "estou vendo outras
	// opções", "je regarde les alternatives", "alternatives dekh raha hoon".
	r("compares providers", "{schau mir|schaue mir|schauen uns|sehe mir|sehen uns|schau|schaue|schauen|sehe|suche|suchen|looking at|looking for|exploring|checking out|buscando|mirando|viendo|procurando|olhando|vendo|regarde|regardons|cherche|cherchons|dekh|dekhna|dekhne|dekh raha|dekh rahi|dekh rahe} .. {alternativen|alternatives|alternativas|alternatief|andere optionen|outras opcoes|otras opciones|d autres options|dusre options|other options}", o(fEval, 60), o(fNeed, 45)),
	r("collects competing offers", "{montando um comparativo|fazendo um comparativo|fazer um comparativo|haciendo una comparativa|armando una comparativa|haciendo un comparativo|armando un comparativo|preparo un comparatif|je prepare un comparatif}", o(fEval, 60), o(fNeed, 50), o(fProcess, 50)),

	// Choosing between options of their own ("estamos entre Açores e
	// Madeira", "torn between the two").
	r("compares options", "{estamos entre|estoy entre|dudamos entre|hesitamos entre|on hesite entre|nous hesitons entre|schwanken zwischen|torn between|deciding between|choosing between}", o(fEval, 60), o(fNeed, 50)),
}

// putRight are the participles of a repair: fixed, solved, corrected.
const putRight = "{fixed|sorted|resolved|corrected|repaired|solucionado|solucionada|resuelto|resuelta|arreglado|arreglada|corregido|corregida|resolvido|resolvida|consertado|consertada|corrigido|corrigida|arrumado|regle|reglee|resolu|repare|corrige|gelost|behoben|repariert|korrigiert|erledigt}"

// pendingWords make an approval a condition still to be met ("the budget
// has to be approved", "tengo que pedir aprobación", "das Budget muss
// noch freigegeben werden"), not one obtained.
var pendingWords = []string{"to", "need", "needs", "must", "que", "precisa", "preciso", "necesita", "necessite", "muss", "mussen",
	"doit", "faut", "pending", "once", "if", "si", "se", "wenn", "sobald", "falls", "yet", "until", "hasta", "bis", "ate",
	"jusque", "noch", "baaki", "hona", "hoga", "jayega", "pedir", "conseguir", "get", "seek", "obtenir", "demander", "einholen", "waiting"}
