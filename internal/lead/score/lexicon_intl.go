package score

// The lexicon in Spanish, Portuguese, French, German and Hinglish, and the
// evaluation-stage, support and injection phrases in every language.
//
// Words are written folded (lower case, no accents: "orcamento" matches
// "orçamento", "geschaftsfuhrer" matches "Geschäftsführer") and French
// elisions are split ("d'ici" is "de ici", "n'avons" is "ne avons"). The
// levels follow the scale of lexicon.go, so a Spanish "tenemos un
// presupuesto aprobado" weighs what "we have an approved budget" weighs.

// Money that is no problem, per language: the money word, the verb, the
// negation and the problem word.
const (
	moneyNoProblemES = "dinero|presupuesto|precio|plata|costo|coste no es|sera|supone @det? problema|inconveniente|obstaculo"
	moneyNoProblemPT = "dinheiro|orcamento|preco|verba|custo nao e|eh|sera @det? problema|obstaculo"
	moneyNoProblemFR = "argent|budget|prix|cout|tarif ne? est|sera pas|jamais @det? probleme|souci|obstacle"
	moneyNoProblemDE = "geld|budget|preis|kosten|finanzierung @be? nicht|kein|keine @det? problem|thema|hindernis"
	moneyNoProblemHI = "paisa|paise|budget|price|cost|kharcha|kharche ki|ka? koi? issue|problem|dikkat|tension|chinta nahi|nahin|nai"
)

var intlBudgetRules = []rule{
	// Spanish.
	r("has a budget", "{tenemos|tengo|contamos con|hay} @det? presupuesto|partida", o(fBudget, 75)),
	r("budget approved", "presupuesto @be? ya? aprobado|asignado|reservado|disponible|confirmado|autorizado", o(fBudget, 80)),
	r("willing to pay", "{dispuestos a|dispuesto a|dispuesta a|podemos|puedo|queremos} {pagar|invertir|gastar}", o(fBudget, 70)),
	r("asks the price", "{cuanto cuesta|cuanto vale|cuanto cobran|cuanto sale|que precio|cual es el precio|precio|precios|tarifa|tarifas|costo|coste}", o(fBudget, 30), o(fIntent, 45)),
	r("asks the price", "{cuanto es|cuanto seria|cuanto costaria|cuanto me sale|cuanto nos sale|cuanto saldria|a cuanto}", o(fBudget, 30), o(fIntent, 45)),
	// "presupuesto" and "orçamento" are a budget and a quote: sent, asked
	// for or needed in writing, they are the quote ("me mandáis
	// presupuesto cerrado?", "necesito el presupuesto esta semana", "manda o
	// orçamento").
	r("asks for a quote", "mandar|mandas|mandais|mandan|manden|mandad|mandame|mandarme|mandanos|enviar|envias|enviais|envian|envien|enviad|enviame|enviarme|envianos|pasar|pasas|pasais|pasadme|pasame|pasarme|pedir|solicitar|hacerme|hacernos|manda|mandem|envia|enviem|passa|passar|passem|fazer|faz|fazem|me|nos presupuesto|orcamento", o(fBudget, 55), o(fIntent, 70)),
	r("asks for a quote", "{mandar|mandas|mandais|mandan|manden|mandad|mandame|mandarme|mandanos|enviar|envias|enviais|envian|envien|enviad|enviame|enviarme|envianos|pasar|pasas|pasais|pasadme|pasame|pasarme|necesito|necesitamos|necesitaria|necesitariamos|preciso|precisamos|manda|mandem|envia|enviem|passa|passar|passem} {el|o|los|os} {presupuesto|presupuestos|orcamento|orcamentos}", o(fBudget, 55), o(fIntent, 70)),
	r("asks for a quote", "{presupuesto|orcamento} {formal|cerrado|por escrito|detallado|detalhado|certinho|fechado}", o(fBudget, 55), o(fIntent, 70)),
	r("asks for a quote", "{cotizacion|cotizaciones|propuesta comercial|una propuesta|un presupuesto|me pasen un presupuesto|pasarme un presupuesto}", o(fBudget, 55), o(fIntent, 70)),
	r("too expensive", "{demasiado caro|muy caro|muy cara|demasiado cara|caro para|fuera de nuestro presupuesto|fuera de presupuesto|no nos alcanza}", o(fBudget, 0)).deny(),
	r("no budget", "{sin presupuesto|no tenemos presupuesto|no hay presupuesto|no tengo presupuesto}", o(fBudget, 0)).deny(),
	r("limited budget", "presupuesto @be? ajustado|limitado|pequeno|justo", o(fBudget, 20)).native(),
	// "El dinero no es problema", "o dinheiro não é problema", "l'argent
	// n'est pas le problème", "Geld ist nicht das Problem", "paisa koi
	// issue nahi": the negation belongs to the money, so the visitor
	// is saying the budget is there, not that they have no problem to
	// solve (see moneyNoProblem for the need side).
	r("money is no issue", moneyNoProblemES, o(fBudget, 80)).native(),
	r("money is no issue", moneyNoProblemPT, o(fBudget, 80)).native(),
	r("money is no issue", moneyNoProblemFR, o(fBudget, 80)).native(),
	r("money is no issue", moneyNoProblemDE, o(fBudget, 80)).native(),
	r("money is no issue", moneyNoProblemHI, o(fBudget, 80)).native(),
	r("money is no issue", "{el dinero no importa|el precio no importa|geld spielt keine rolle|budget spielt keine rolle|preis spielt keine rolle|kosten spielen keine rolle|le prix importe peu}", o(fBudget, 80)).native(),
	suppress(moneyNoProblemES, fPain, fNeed, fProblem),
	suppress(moneyNoProblemPT, fPain, fNeed, fProblem),
	suppress(moneyNoProblemFR, fPain, fNeed, fProblem),
	suppress(moneyNoProblemDE, fPain, fNeed, fProblem),
	suppress(moneyNoProblemHI, fPain, fNeed, fProblem),
	suppress("money|budget|cost|costs|price|pricing|fees @be? not|no|never @det? issue|problem|problems|concern", fPain, fNeed, fProblem),
	// Portuguese.
	r("has a budget", "temos|tenho|ha @det? orcamento|verba", o(fBudget, 75)),
	r("budget approved", "orcamento|verba @be? ja? aprovado|aprovada|reservado|reservada|disponivel|liberado|liberada|garantido|garantida", o(fBudget, 80)),
	r("willing to pay", "{dispostos a|disposto a|disposta a|podemos|posso|queremos} {pagar|investir|gastar}", o(fBudget, 70)),
	r("asks the price", "{quanto custa|quanto sai|quanto fica|qual o preco|qual e o preco|qual o valor|preco|precos|valores|planos e precos}", o(fBudget, 30), o(fIntent, 45)),
	r("asks the price", "{quanto e|quanto seria|quanto custaria|quanto cobram|quanto voces cobram|qual seria o valor}", o(fBudget, 30), o(fIntent, 45)),
	r("asks for a quote", "{cotacao|proposta comercial|uma proposta|um orcamento|mandar um orcamento|enviar um orcamento}", o(fBudget, 55), o(fIntent, 70)),
	r("too expensive", "{muito caro|caro demais|muito cara|fora do orcamento|acima do orcamento|nao cabe no orcamento}", o(fBudget, 0)).deny(),
	r("no budget", "{sem orcamento|sem verba|nao temos orcamento|nao temos verba|nao ha verba}", o(fBudget, 0)).deny(),
	r("limited budget", "orcamento|verba @be? apertado|apertada|limitado|limitada|curto|curta", o(fBudget, 20)).native(),
	// French.
	r("has a budget", "{nous avons|on a|j ai|je ai|avons} @det? budget", o(fBudget, 75)),
	r("budget approved", "budget @be? deja? valide|approuve|alloue|prevu|debloque|disponible|vote", o(fBudget, 80)),
	r("willing to pay", "{prets a|pret a|prete a|pouvons|peux|voulons} {payer|investir|depenser|mettre}", o(fBudget, 70)),
	r("asks the price", "{combien ca coute|combien coute|combien cela coute|quel est le prix|quel prix|quels tarifs|vos tarifs|tarif|tarifs|prix}", o(fBudget, 30), o(fIntent, 45)),
	r("asks the price", "{ce est combien|c est combien|ca coute combien|ca fait combien|combien pour|combien ca|combien cela|combien coutent|combien facturez|combien prenez|a combien}", o(fBudget, 30), o(fIntent, 45)),
	// The cost verb in any tense before "combien": "ça coûterait combien",
	// "ça reviendrait à combien", "ça va coûter combien".
	r("asks the price", "{ca|cela|ce|tout|ca va|cela va} {couterait|coutera|coute|couter|reviendrait|reviendra|revient|ferait|fera} .. combien", o(fBudget, 30), o(fIntent, 45)),
	r("has a budget", "{nous avons prevu|on a prevu|je ai prevu|avons prevu|nous prevoyons|on prevoit}", o(fBudget, 70)),
	// "Hors budget média" is the agency fee without the media spend, not
	// a price over budget.
	suppress("hors budget media|medias|pub|publicite|publicitaire|ads|achat|marketing|communication|campagne|campagnes", fBudget),
	r("asks for a quote", "{devis|proposition commerciale|une proposition|une offre|soumission|une soumission|offerte|une offerte}", o(fBudget, 55), o(fIntent, 70)),
	r("too expensive", "{trop cher|trop chere|hors budget|au dessus de notre budget|hors de notre budget}", o(fBudget, 0)).deny(),
	r("no budget", "{pas de budget|aucun budget|sans budget}", o(fBudget, 0)).deny(),
	r("limited budget", "budget @be? serre|limite|reduit|modeste", o(fBudget, 20)).native(),
	// German.
	r("has a budget", "{wir haben|haben wir|ich habe|es gibt} @det? budget", o(fBudget, 75)),
	r("budget approved", "budget @be? ist? bereits? freigegeben|genehmigt|eingeplant|vorhanden|bewilligt|reserviert", o(fBudget, 80)),
	r("budget approved", "{budget steht|budget liegt bei|budget von|budget betragt}", o(fBudget, 80)),
	r("willing to pay", "{bereit zu|bereit} {zahlen|investieren|ausgeben}", o(fBudget, 70)),
	r("asks the price", "{was kostet|wie viel kostet|wieviel kostet|was kosten|preis|preise|kosten|preisliste|konditionen}", o(fBudget, 30), o(fIntent, 45)),
	r("asks the price", "{wie teuer|was wurde .. kosten|mit welchen kosten|was verlangen sie|was nehmen sie}", o(fBudget, 30), o(fIntent, 45)),
	// "Wie hoch ist das Schulgeld?", "wie rechnet ihr ab, pro Wort?", "wie
	// funktioniert das abrechnungstechnisch?": the price asked by its
	// amount or its billing.
	r("asks the price", "wie hoch {ist|sind|liegt|liegen|ware|waren} .. {schulgeld|gebuhr|gebuhren|beitrag|beitrage|kosten|preis|preise|miete|honorar|honorare|pauschale|tagessatz|monatsbeitrag|jahresbeitrag|kursgebuhr|kursgebuhren|studiengebuhr|studiengebuhren|rate|raten|anzahlung}", o(fBudget, 30), o(fIntent, 45)),
	r("asks the price", "{wie rechnet ihr ab|wie rechnen sie ab|wie rechnet ihr das ab|wie rechnen sie das ab|abrechnungstechnisch|wie wird abgerechnet|wie wird das abgerechnet}", o(fBudget, 30), o(fIntent, 45)),
	r("asks for a quote", "{angebot|kostenvoranschlag|ein angebot|ein konkretes angebot|offerte|eine offerte|richtofferte}", o(fBudget, 55), o(fIntent, 70)),
	r("too expensive", "{zu teuer|viel zu teuer|ausserhalb des budgets|uber unserem budget|sprengt das budget}", o(fBudget, 0)).deny(),
	r("no budget", "{kein budget|keine mittel|kein geld}", o(fBudget, 0)).deny(),
	r("limited budget", "budget @be? knapp|begrenzt|klein|gering", o(fBudget, 20)).native(),
	// Hinglish.
	r("has a budget", "budget {hai|rakha hai|ready hai|set hai|approved hai|fix hai}", o(fBudget, 75)),
	r("willing to pay", "{kharch kar sakte|pay kar sakte|invest kar sakte|de sakte}", o(fBudget, 70)),
	r("asks the price", "{kitne ka|kitne ki|price kya|cost kya|charges kya|kitna lagega|kitna padega}", o(fBudget, 30), o(fIntent, 45)),
	r("asks the price", "{kya charge|kya price|kya rate|kya cost|kya fees|charge kya|rate kya|fees kya|kitna charge|kitni fees|kitne paise}", o(fBudget, 30), o(fIntent, 45)),
	r("asks for a quote", "quote|quotation|proposal {bhejo|bhejiye|bhej do|bhej dijiye|chahiye|bhejna}", o(fBudget, 55), o(fIntent, 70)),
	r("too expensive", "{bahut mehenga|bahut mehnga|mehenga hai|mehnga hai|zyada mehenga}", o(fBudget, 0)).deny(),
}

var intlAuthorityRules = []rule{
	// Spanish.
	r("decides", "{yo decido|decido yo|la decision es mia|tengo la ultima palabra|yo firmo|firmo yo|yo apruebo|decidimos nosotros}", o(fAuthority, 95), o(fEconomic, 90)).negAs(30),
	r("runs the business", "{mi propia empresa|mi propio negocio|mi negocio|mi tienda|mi agencia|mi clinica|mi despacho|mi restaurante|mi estudio|soy dueno|soy duena|soy el dueno|soy la duena|soy propietario|soy propietaria}", o(fAuthority, 85), o(fEconomic, 85)),
	r("heads a function", "{dirijo|lidero|soy responsable|soy el responsable|soy la responsable|estoy a cargo}", o(fAuthority, 75), o(fEconomic, 60)),
	r("someone else decides", "{consultarlo con|hablarlo con|consultar con|hablar con|lo decide|decide mi|aprobacion de|lo tiene que aprobar|tiene que aprobarlo} @det? @boss", o(fAuthority, 35), o(fEconomic, 45), o(fProcess, 40)).capAt(45),
	// Portuguese.
	r("decides", "{eu decido|decido eu|a decisao e minha|eu assino|eu aprovo|quem decide sou eu|quem decide e eu}", o(fAuthority, 95), o(fEconomic, 90)).negAs(30),
	r("runs the business", "{minha propria empresa|minha empresa|meu negocio|minha loja|minha agencia|minha clinica|meu escritorio|meu restaurante|sou dono|sou dona|sou o dono|sou a dona|sou proprietario|sou proprietaria}", o(fAuthority, 85), o(fEconomic, 85)),
	r("heads a function", "{eu dirijo|eu lidero|sou responsavel|sou o responsavel|sou a responsavel}", o(fAuthority, 75), o(fEconomic, 60)),
	r("someone else decides", "{falar com|conversar com|consultar|alinhar com|aprovacao do|aprovacao da|quem decide e} @det? @boss", o(fAuthority, 35), o(fEconomic, 45), o(fProcess, 40)).capAt(45),
	// French.
	r("decides", "{je decide|ce est moi qui decide|la decision me revient|la decision me appartient|je signe|je valide|ce est moi qui signe|je suis decisionnaire}", o(fAuthority, 95), o(fEconomic, 90)).negAs(30),
	r("runs the business", "{ma propre entreprise|mon entreprise|ma societe|ma boutique|mon agence|mon cabinet|mon commerce|mon restaurant|ma clinique|je suis proprietaire|je suis le patron|je suis la patronne|je suis gerant|je suis gerante}", o(fAuthority, 85), o(fEconomic, 85)),
	r("heads a function", "{je dirige|je pilote|je suis responsable|je suis en charge|je suis le responsable|je suis la responsable}", o(fAuthority, 75), o(fEconomic, 60)),
	r("manages", "{je gere|je m occupe|je me occupe}", o(fAuthority, 60), o(fEconomic, 40)),
	r("someone else decides", "{en parler a|en parler avec|voir avec|valider avec|consulter|accord de|validation de|decide} @det? @boss", o(fAuthority, 35), o(fEconomic, 45), o(fProcess, 40)).capAt(45),
	r("someone else decides", "{presenter|soumettre|montrer|proposer|faire valider} .. {a|au|aux|par} @det? @boss", o(fAuthority, 35), o(fEconomic, 45), o(fProcess, 45)).capAt(45),
	// German.
	r("decides", "{ich entscheide|ich unterschreibe|die entscheidung liegt bei mir|entscheide ich|ich gebe frei|ich bin entscheider|ich bin entscheiderin|ich habe die entscheidung}", o(fAuthority, 95), o(fEconomic, 90)).negAs(30),
	r("runs the business", "{meine eigene firma|meine firma|mein unternehmen|mein geschaft|mein laden|meine agentur|meine praxis|meine kanzlei|mein restaurant|ich bin inhaber|ich bin inhaberin|ich bin der inhaber|ich bin die inhaberin}", o(fAuthority, 85), o(fEconomic, 85)),
	r("heads a function", "{ich leite|ich verantworte|ich fuhre|ich bin verantwortlich|ich bin zustandig}", o(fAuthority, 75), o(fEconomic, 60)),
	r("someone else decides", "{abstimmen mit|sprechen mit|rucksprache mit|freigabe durch|freigabe von|entscheidet|muss erst} @det? @boss", o(fAuthority, 35), o(fEconomic, 45), o(fProcess, 40)).capAt(45),
	r("someone else decides", "{vorlegen|vorstellen|prasentieren|abstimmen|klaren|besprechen} .. {mit|bei} @det? @boss", o(fAuthority, 35), o(fEconomic, 45), o(fProcess, 45)).capAt(45),
	// Hinglish.
	r("decides", "{main decide karunga|main decide karungi|mai decide karunga|mai decide karungi|main hi decide|decision main lunga|decision main lungi|main sign karunga|final main karunga|mera decision}", o(fAuthority, 95), o(fEconomic, 90)).negAs(30),
	r("runs the business", "{mera business|meri company|meri shop|meri dukaan|mera store|meri agency|meri clinic|mera clinic}", o(fAuthority, 85), o(fEconomic, 85)),
	r("heads a function", "{main head|mai head|main handle karta|main handle karti|mai handle karta|mai handle karti|main dekhta hoon|main dekhti hoon|mai dekhta hu|mai dekhti hu}", o(fAuthority, 70), o(fEconomic, 55)),
}

var intlNeedRules = []rule{
	// Spanish.
	r("states a need", "{necesitamos|necesito|necesitan|nos hace falta|nos falta|requerimos|buscamos|busco|estamos buscando|estoy buscando}", o(fNeed, 70), o(fPain, 45)),
	r("wants", "{queremos|quiero|quisiera|quisieramos|nos gustaria|me gustaria|nos interesa|me interesa|estamos interesados|estoy interesado|estoy interesada}", o(fNeed, 65)),
	r("no longer works for them", "{ya no es rentable|ya no son rentables|no es rentable|no son rentables|ya no funciona para|no nos funciona}", o(fPain, 75), o(fNeed, 65)).native(),
	r("struggling", "{no damos abasto|no llegamos|no podemos responder|no podemos atender|no alcanzamos|saturados|saturadas|desbordados|desbordadas|colapsados|abrumados|perdemos clientes|perdiendo clientes|perdemos ventas|perdiendo ventas|perdemos leads|perdemos reservas}", o(fPain, 85), o(fNeed, 75)).native(),
	r("states a problem", "{problema|problemas|el reto|nuestro reto|el desafio|dolor de cabeza|cuello de botella}", o(fPain, 65), o(fNeed, 60)),
	r("repetitive questions", "{mismas preguntas|preguntas repetitivas|preguntas frecuentes|siempre preguntan|las mismas dudas}", o(fPain, 75), o(fNeed, 65)),
	r("slow or manual process", "{manualmente|a mano|tardamos|demoramos|fuera de horario|fuera del horario}", o(fPain, 60), o(fNeed, 55)),
	// Portuguese.
	r("states a need", "{precisamos|preciso|precisam|necessitamos|procuramos|estamos procurando|estou procurando|buscamos|estamos buscando}", o(fNeed, 70), o(fPain, 45)),
	r("wants", "{queria|queriamos|queremos|quero|gostaria|gostariamos|gostava de|gostavamos de|temos interesse|tenho interesse|estamos interessados|estou interessado|estou interessada}", o(fNeed, 65)),
	r("no longer works for them", "{nao e rentavel|nao sao rentaveis|deixou de ser rentavel|deixaram de ser rentaveis|nao compensa mais|ja nao compensa}", o(fPain, 75), o(fNeed, 65)).native(),
	r("struggling", "{nao damos conta|nao conseguimos responder|nao conseguimos atender|sobrecarregados|sobrecarregada|sobrecarregado|atolados|perdemos clientes|perdendo clientes|perdemos vendas|perdendo vendas|perdemos leads|perdendo leads}", o(fPain, 85), o(fNeed, 75)).native(),
	r("states a problem", "{problema|problemas|o desafio|nosso desafio|dor de cabeca|gargalo}", o(fPain, 65), o(fNeed, 60)),
	r("repetitive questions", "{mesmas perguntas|perguntas repetitivas|perguntas frequentes|sempre perguntam}", o(fPain, 75), o(fNeed, 65)),
	r("slow or manual process", "{manualmente|na mao|demora|demoramos|fora do horario}", o(fPain, 60), o(fNeed, 55)),
	// French.
	r("states a need", "{il nous faut|il me faut|nous faut|nous faudrait|il nous faudrait|nous avons besoin|on a besoin|je ai besoin|avons besoin|besoin de|besoin une|besoin un|nous cherchons|je cherche|nous recherchons|je recherche|on cherche}", o(fNeed, 70), o(fPain, 45)),
	r("wants", "{nous voulons|je veux|voulons|nous voudrions|voudrions|je voudrais|nous aimerions|aimerions|je aimerais|nous souhaitons|je souhaite|souhaitons|interesse|interessee|interesses|nous interesse|me interesse|cherchons|recherchons}", o(fNeed, 65)),
	r("wants", "{on veut|on voudrait|on aimerait|on souhaite|on souhaiterait|nous souhaiterions|je souhaiterais|on envisage|nous envisageons|je envisage}", o(fNeed, 65)),
	r("states a need", "{il nous les faut|il nous le faut|il nous la faut|il me les faut|il me le faut|il me la faut|on doit|nous devons}", o(fNeed, 65), o(fPain, 40)),
	// "On doit d'abord en parler" is a step, not a need.
	suppress("{on doit|nous devons|je dois} .. {en parler|parler|voir|valider|consulter|reflechir|demander|presenter|verifier|attendre|discuter}", fNeed),
	r("no longer works for them", "{ne sont plus|ne est plus|ne sont pas|ne est pas|pas} {rentables|rentable|efficaces|efficace|satisfaisants|satisfaisant}", o(fPain, 75), o(fNeed, 65)).native(),
	r("struggling", "{debordes|debordee|deborde|submerges|submergee|noyes|surcharges|nous perdons des clients|perdons des clients|perdons des ventes|perdre des clients|perdre des ventes|nous ne arrivons pas|on ne arrive pas|ne suivons plus}", o(fPain, 85), o(fNeed, 75)).native(),
	r("losing business", "perdons|perdre|perdu|ratons|rater|manquons .. clients|patients|commandes|ventes|demandes|appels|reservations|rendez", o(fPain, 85), o(fNeed, 75)),
	r("states a problem", "{probleme|problemes|le defi|notre defi|casse tete|goulot}", o(fPain, 65), o(fNeed, 60)),
	r("repetitive questions", "{memes questions|questions repetitives|questions frequentes|toujours les memes}", o(fPain, 75), o(fNeed, 65)),
	r("slow or manual process", "{manuellement|a la main|hors des heures|en dehors des heures}", o(fPain, 60), o(fNeed, 55)),
	// German.
	r("states a need", "{wir brauchen|ich brauche|brauchen wir|benotigen|wir suchen|ich suche|suchen wir|bedarf an|bedarf fur}", o(fNeed, 70), o(fPain, 45)),
	// Spoken forms: "danach brauch ich ja Physio", "ich brauch so
	// schnell wie möglich einen Termin", and the polite subjunctive "wir
	// bräuchten es ab dem 1.".
	r("states a need", "{ich brauch|brauch ich|ich brauchte|brauchte ich|wir brauchten|brauchten wir}", o(fNeed, 65), o(fPain, 40)),
	suppress("{brauch ich|brauchen wir|brauche ich} {nich|net}", fNeed, fPain),
	r("wants", "{wir mochten|ich mochte|mochten|wir wollen|ich will|wir wurden gerne|ich wurde gerne|wir hatten gerne|interessiert|interesse an|brauchen|benotigen|suchen}", o(fNeed, 65)),
	r("states a need", "{wir mussen|mussen wir|ich muss|muss ich}", o(fNeed, 60), o(fPain, 40)),
	suppress("{wir mussen|mussen wir|ich muss|muss ich} .. {abstimmen|besprechen|klaren|prufen|nachdenken|fragen|warten|uberlegen|rucksprache|intern|erst|zuerst}", fNeed),
	r("no longer works for them", "{nicht mehr rentabel|nicht rentabel|lohnt sich nicht|rechnet sich nicht|nicht mehr effizient|nicht effizient}", o(fPain, 75), o(fNeed, 65)).native(),
	r("struggling", "{uberlastet|uberfordert|kommen nicht hinterher|kommen kaum hinterher|schaffen es nicht|verlieren kunden|verlieren anfragen|verlieren umsatz|verlieren leads}", o(fPain, 85), o(fNeed, 75)).native(),
	r("losing business", "verlieren|verloren|verpassen|verpasst .. kunden|patienten|anfragen|auftrage|buchungen|bestellungen|gaste|umsatz|leads|anrufe|termine", o(fPain, 85), o(fNeed, 75)),
	r("no one answers", "{niemand .. ans telefon|niemand geht ran|keiner geht ran|personne ne repond|personne pour repondre|nadie contesta|nadie responde|ninguem atende|ninguem responde|koi phone nahi|koi reply nahi}", o(fPain, 75), o(fNeed, 65)).native(),
	r("states a problem", "{problem|probleme|herausforderung|engpass}", o(fPain, 65), o(fNeed, 60)),
	r("repetitive questions", "{gleichen fragen|selben fragen|immer wieder|wiederkehrende fragen|haufige fragen}", o(fPain, 75), o(fNeed, 65)),
	r("slow or manual process", "{manuell|von hand|ausserhalb der geschaftszeiten|nach feierabend}", o(fPain, 60), o(fNeed, 55)),
	// Hinglish.
	r("states a need", "{humein chahiye|hume chahiye|mujhe chahiye|zarurat hai|zaroorat hai|dhoondh rahe|dhund rahe|dekh rahe hain ek}", o(fNeed, 70), o(fPain, 45)),
	r("wants", "{join|enroll|enrol|admission|subscribe|signup|sign up|book|buy|purchase|order|install|setup|set up|switch|upgrade|kharidna|lagwana} {karna hai|karni hai|karna tha|karna chahte|karna chahta|karna chahti|lena hai|leni hai|chahiye}", o(fNeed, 65)),
	r("compares vendors", "{bhi check kar|bhi dekh rahe|bhi dekh raha|bhi dekh rahi|bhi compare|compare kar raha|compare kar rahi|compare kar rahe|dusre options|doosre options|baaki options|aur options}", o(fEval, 60), o(fNeed, 50), o(fProcess, 50)),
	// Overwhelmed ("Instagram lo llevo yo pero no llego a todo", "con dos
	// críos no doy abasto", "não dou conta", "on n'arrive plus à suivre",
	// "wir kommen nicht hinterher"): a pain, not a fault of something
	// bought ("no llegó" is a parcel that did not arrive).
	r("struggling", "{no llego a todo|no llegamos a todo|no llego a tiempo|no doy abasto|no damos abasto|nao dou conta|nao damos conta|nao estou dando conta|je ne m en sors pas|on ne s en sort pas|on n arrive plus|je n arrive plus|komme nicht hinterher|kommen nicht hinterher|komme nicht mehr hinterher|kommen nicht mehr hinterher}", o(fPain, 75), o(fNeed, 65)).native(),
	r("struggling", "{komme|kommen|kommt} .. .. {nicht hinterher|nicht mehr hinterher|kaum hinterher|kaum noch hinterher}", o(fPain, 75), o(fNeed, 65)).native(),
	suppress("{no llego a|no llegamos a}", fProblem),
	// "Puedo empezar el lunes", "I can start on the 1st", "posso começar
	// segunda", "je peux commencer tout de suite": an applicant's
	// availability, not a purchase started.
	suppress("{puedo|podria|posso|poderia|je peux|je pourrais|i can|i could|ich kann|ich konnte} {empezar|comenzar|incorporarme|comecar|commencer|start|anfangen|join}", fIntent, fNeed),
	// German "Stück" counted ("ca 8 Stück", "500 Stück", "pro Stück") is
	// pieces, not English "stuck".
	suppress("{#n|pro|je} stuck", fProblem, fPain, fNeed),
	// "Irgendwann im Herbst", "irgendwann Ende März": a vague date, not
	// "later" (the date after it is read on its own).
	suppress("irgendwann {i am|in|am|anfang|ende|mitte}", fTimeline, fPriority),
	r("no longer works for them", "{profit nahi|loss ho raha|loss mein|kaam nahi aa raha}", o(fPain, 75), o(fNeed, 65)).native(),
	r("struggling", "{handle nahi ho|manage nahi ho|reply nahi kar|bahut saare|bahut sare|bahut zyada}", o(fPain, 80), o(fNeed, 70)).native(),
	r("many enquiries", "{muchas|muchisimas|cientos de|miles de|muitas|centenas de|milhares de|beaucoup de|des centaines de|des milliers de|viele|hunderte|tausende} .. preguntas|consultas|mensajes|llamadas|solicitudes|perguntas|mensagens|ligacoes|pedidos|questions|demandes|messages|appels|fragen|anfragen|nachrichten|anrufe", o(fPain, 60), o(fNeed, 60)),
	// Denials, every language.
	r("just browsing", "{solo estoy mirando|solo mirando|solo curiosidad|solo por curiosidad|solo quiero informacion|solo informacion|so estou olhando|so olhando|so curiosidade|so quero informacao|je regarde juste|juste pour voir|juste par curiosite|simple curiosite|ich schaue nur|nur neugierig|nur informieren|nur mal schauen|nur mal gucken|bas dekh raha|bas dekh rahi|bas jaankari|bas idea|sirf idea|idea chahiye tha|idea lena tha|idea le rahe|idea le raha|idea le rahi|just wanted an idea|just getting an idea|so queria saber|solo queria saber|solo queria preguntar|just wanted to know|just wanted to ask|je voulais juste savoir|je voulais seulement savoir|wollte nur wissen|wollte nur fragen|bas jaanna tha|bas puchna tha|just to get an idea|solo para hacerme una idea|so para ter uma ideia|juste pour avoir une idee|nur um eine idee}", o(fNeed, 0), o(fPain, 0)).deny().notYet(),
	r("just browsing", "{je me renseigne|on se renseigne|nous nous renseignons|je me informe|je me renseignais|pour me renseigner|ich informiere mich|wir informieren uns|erstmal informieren|nur informieren|me estoy informando|solo me informo|solo estoy preguntando|estou me informando|so me informando|so pesquisando|so perguntando|abhi bas dekh|bas pooch raha|bas pooch rahi|bas puch raha|bas puch rahi}", o(fNeed, 0), o(fPain, 0)).deny().notYet(),
	r("no need", "{no lo necesitamos|no necesitamos|nao precisamos|pas besoin|aucun besoin|brauchen wir nicht|kein bedarf|zarurat nahi|zaroorat nahi}", o(fNeed, 0), o(fPain, 0)).deny(),
}

var intlTimelineRules = []rule{
	r("wants it immediately", "{cuanto antes|lo antes posible|lo mas pronto posible|de inmediato|inmediatamente|urgente|ya mismo|hoy mismo|o quanto antes|o mais rapido possivel|imediatamente|pra ontem|des que possible|au plus vite|au plus tot|immediatement|tout de suite|urgent|urgente|so schnell wie moglich|schnellstmoglich|sofort|dringend|umgehend|asap|turant|jaldi se jaldi}", o(fTimeline, 95), o(fPriority, 85)),
	// "Por la mañana", "am Morgen": a time of day, not tomorrow.
	suppress("{a la|por la|en la|de la|cada|toda la|todas las|las} manana", fTimeline, fPriority),
	suppress("{am|jeden|guten|einen|den} morgen", fTimeline, fPriority),
	r("wants it immediately", "{hoy|manana|hoje|amanha|aujourd hui|aujourd'hui|demain|heute|morgen|aaj|kal tak|kal hi|kal subah|kal shaam|kal se}", o(fTimeline, 90), o(fPriority, 75)),
	r("this week", "{esta semana|la semana que viene|la proxima semana|proxima semana|semana que vem|para a semana|essa semana|cette semaine|la semaine prochaine|semaine prochaine|diese woche|nachste woche|nachsten woche|nachster woche|kommende woche|kommenden woche|kommender woche|is hafte|agle hafte|agle week|next week tak}", o(fTimeline, 95)),
	r("within days", "{en unos dias|en pocos dias|em poucos dias|dans quelques jours|in ein paar tagen|in wenigen tagen|kuch din mein}", o(fTimeline, 95)),
	r("this month", "{este mes|a fin de mes|fin de mes|finales de mes|final de mes|antes de fin de mes|esse mes|ate o fim do mes|fim do mes|final do mes|ce mois|ce mois ci|fin du mois|la fin du mois|avant la fin du mois|diesen monat|in diesem monat|ende des monats|bis ende des monats|monatsende|is mahine|isi mahine|month end tak}", o(fTimeline, 90)),
	r("next month", "{el mes que viene|el proximo mes|proximo mes|mes que vem|o proximo mes|le mois prochain|mois prochain|nachsten monat|nachster monat|kommenden monat|im nachsten monat|agle mahine|agle month|en unas semanas|em algumas semanas|dans quelques semaines|in ein paar wochen|in einigen wochen}", o(fTimeline, 80)),
	r("this quarter", "{este trimestre|fin de trimestre|final del trimestre|fin del trimestre|este trimestre|fim do trimestre|final do trimestre|ce trimestre|fin du trimestre|dieses quartal|diesem quartal|ende des quartals|bis ende des quartals|quartalsende|is quarter}", o(fTimeline, 75)),
	r("next quarter", "{proximo trimestre|el trimestre que viene|proximos meses|los proximos meses|proximo semestre|trimestre que vem|proximos meses|le trimestre prochain|trimestre prochain|les prochains mois|dans quelques mois|nachstes quartal|nachsten quartal|in den nachsten monaten|in ein paar monaten|agle quarter|kuch mahine}", o(fTimeline, 55)),
	r("this year", "{este ano|neste ano|cette annee|dieses jahr|in diesem jahr}", o(fTimeline, 45)),
	r("later this year", "{a fin de ano|a finales de ano|finales de ano|fin de ano|final de ano|final del ano|fim do ano|final do ano|fin de annee|fin de le annee|ende des jahres|jahresende|zum jahresende|saal ke end|year end tak}", o(fTimeline, 35)),
	r("next year", "{el ano que viene|el proximo ano|proximo ano|ano que vem|annee prochaine|nachstes jahr|nachsten jahr|im nachsten jahr|proximo ejercicio|nuevo ejercicio|proximo ano fiscal|novo ano fiscal|prochain exercice|nouvel exercice|exercice prochain|neuen geschaftsjahr|neues geschaftsjahr|nachsten geschaftsjahr|nachstes geschaftsjahr|agle financial year|agle saal}", o(fTimeline, 25)),
	r("someday", "{um dia|algum dia|un dia|algun dia|one day|someday|some day|eines tages|un jour|ek din|kabhi} {quero|queremos|quiero|me gustaria|gostaria|gostava|gostavamos|gostariamos|i|we|je|nous|ich|wir|main|hum|zaroor}", o(fTimeline, 15)),
	// Still saving for it, in every language: the money is not there yet,
	// the purchase waits for it ("we're saving up", "to juntando ainda",
	// "wir sparen noch fürs Eigenkapital", "pehle savings karni padegi").
	r("still saving for it, later", "{we are saving|i am saving|saving up|save up|still need to save|need to save|have to save|still saving|estoy ahorrando|estamos ahorrando|ir ahorrando|tengo que ahorrar|tenemos que ahorrar|estoy juntando|estamos juntando|to juntando|vou juntando|juntando ainda|preciso juntar|precisamos juntar|estou poupando|estamos poupando|preciso poupar|je commence a economiser|je economise|on economise|nous economisons|wir sparen|sparen noch|sparen erst|noch sparen|ich spare|pehle savings|savings karni|savings karna|paise jod|paise jama}", o(fTimeline, 15)),
	// Interest kept for later ("good to know for later", "lo dejo para más
	// adelante", "je note pour plus tard", "eher für später interessant",
	// "pero para dentro de un tiempo"): the purchase is put off.
	r(readForLater, "{for later|para mas adelante|para dentro de un tiempo|dentro de un tiempo|pour plus tard|fur spater|para mais tarde|para mais adiante|baad ke liye|fica para depois|fica pra depois|deixo para depois|deixo pra depois|lo dejo para despues|lo dejamos para despues|queda para despues}", o(fTimeline, 15)),
	r("later", "{mas adelante|mas tarde|algun dia|en el futuro|mais tarde|mais para frente|futuramente|plus tard|un jour|a le avenir|plus tard dans le annee|spater|irgendwann|in zukunft|zu einem spateren zeitpunkt}", o(fTimeline, 15)),
	r("has a deadline", "{fecha limite|plazo|prazo|data limite|date limite|echeance|frist|stichtag|deadline}", o(fTimeline, 70), o(fPriority, 75)),
	// "Fin septembre au plus tard", "a más tardar el viernes", "by Friday
	// at the latest", "spätestens im April": a deadline; "plus tard" and
	// "más tarde" inside them are not "later".
	r("has a deadline", "{au plus tard|a le plus tard|a mas tardar|lo mas tarde|no mais tardar|o mais tardar|at the latest|spatestens}", o(fTimeline, 70), o(fPriority, 75)).native(),
	// "Avant l'inventaire de fin d'année", "antes de fin de año", "by the
	// end of the year", "bis Jahresende": the year's end is when it must be
	// done, a deadline this year, not "later this year".
	r("by the year's end", "{before|by|avant|antes de|antes del|ate|bis|vor|bis zum} .. {year end|end of the year|end of this year|fin de annee|fin de le annee|la fin de le annee|fin de ano|final de ano|final del ano|finales de ano|fim do ano|final do ano|jahresende|ende des jahres}", o(fTimeline, 55)),
	r("before an event", "{antes de|antes del|antes da|antes do|avant le|avant la|avant les|vor dem|vor der|vor unserem|vor unserer|se pehle} .. lanzamiento|temporada|campana|black|navidad|verano|rebajas|lancamento|natal|temporada|lancement|saison|soldes|noel|ete|rentree|launch|start|saison|weihnachten|sommer|messe|diwali|sale|season|festival", o(fTimeline, 70)),
	// "Not now" refuses the present, which "no rush" does not; with a
	// later date it makes the purchase wait (see deferred in override.go).
	r(readNotNow, "{ahora no puedo|ahora no es el momento|ahorita no|por ahora no|agora nao da|agora nao posso|agora nao e o momento|por enquanto nao|pas maintenant|pas pour l instant|pas pour tout de suite|pas tout de suite|jetzt nicht|im moment nicht|momentan nicht|derzeit nicht|gerade nicht|pas avant|not before|no antes de|nao antes de|nicht vor}", o(fTimeline, 0), o(fPriority, 0)).deny().notYet(),
	r(readNotNow, "{wir warten|warten wir|we will wait|we ll wait|we will hold off|esperaremos|vamos a esperar|vamos esperar|on attend|on va attendre|nous attendons|wait karenge|ruk jate} .. {bis|until|till|hasta|ate|jusque|jusqu|tak|after|despues|depois|apres|nach}", o(fTimeline, 0), o(fPriority, 0)).deny().notYet(),
	r("no rush", "{sin prisa|no hay prisa|no es urgente|sin urgencia|no corre prisa|sem pressa|nao e urgente|sem urgencia|pas presse|rien ne presse|pas urgent|pas de urgence|aucune urgence|keine eile|nicht dringend|eilt nicht|hat zeit|koi jaldi nahi|jaldi nahi}", o(fTimeline, 0), o(fPriority, 0)).deny().notYet(),
	r("asks when it can start", "{cuando podemos empezar|cuanto tarda|quando podemos comecar|quanto tempo leva|quand pouvons nous commencer|combien de temps|wann konnen wir starten|wie lange dauert|kab tak|kitna time}", o(fTimeline, 45)),
}

var intlIntentRules = []rule{
	// What they pay today is their current provider or contract, not a
	// promise to pay: "vou comparar com o que pago hoje".
	suppress("{o que|lo que|ce que|what} {pago|pagamos|pagas|paie|payons|pay|paying}", fIntent, fBudget),
	suppress("{o que|lo que|ce que|what} {pago|pagamos|pagas|paie|payons|pay|paying} {hoje|hoy|aujourd hui|today|now|actuellement|atualmente|actualmente}", fIntent, fBudget, fTimeline, fPriority),
	// "Today" as "currently": "nosso backup hoje é num HD externo",
	// "heute machen wir das per Hand" say how things are, not when.
	suppress("{hoje|hoy|heute|aujourd hui|aaj kal} {e|es|ist|est|usamos|temos|tenemos|fazemos|hacemos|nutzen|haben|machen|utilisons|avons|sommes|somos|estamos|fica|esta}", fTimeline, fPriority),
	suppress("{hoje em dia|hoy en dia|hoy dia|heutzutage|de nos jours|aaj kal|these days|nowadays}", fTimeline, fPriority),
	// Asking to meet or be called.
	r("asks to meet", "{agendar|programar|reservar|concertar|coordinar|marcar|fixar|planifier|organiser|reserver|prendre|caler|vereinbaren|buchen|ausmachen} @det? .. llamada|reunion|demo|demostracion|cita|videollamada|reuniao|demonstracao|chamada|ligacao|call|rendez|rdv|appel|visio|demonstration|termin|gesprach|telefonat|beratungsgesprach|videocall", o(fNeed, 35), o(fIntent, 80)),
	r("asks to meet", "llamada|reunion|demo|cita|reuniao|chamada|ligacao|rendez|rdv|appel|termin|gesprach|telefonat|videocall .. {vereinbaren|buchen|ausmachen|agendar|marcar|planifier|caler}", o(fNeed, 35), o(fIntent, 80)),
	r("asks to be contacted", "{llamenme|llameme|me pueden llamar|pueden llamarme|puede llamarme|que me llame|que me llamen|me llamen|contactenme|contactarme|me liguem|me ligue|pode me ligar|podem me ligar|entrem em contato|entre em contato comigo|me contacter|me rappeler|rappelez moi|appelez moi|contactez moi|recontacter|ruckruf|rufen sie mich an|ruft mich an|melden sie sich|kontaktieren sie mich|call kar do|call kariye|call karo|call karna|mujhe call|contact karo}", o(fNeed, 35), o(fIntent, 75)),
	r("asks for sales", "{hablar con ventas|hablar con un comercial|hablar con alguien de ventas|alguien de ventas|el equipo comercial|equipo de ventas|falar com vendas|falar com o comercial|falar com um consultor|equipe comercial|time comercial|parler a un commercial|parler avec un commercial|votre equipe commerciale|service commercial|mit dem vertrieb|mit ihrem vertrieb|vertrieb sprechen|sales se baat|sales team se|someone from sales|talk to sales|speak to sales|speak with sales|talk with sales|sales rep|sales call}", o(fIntent, 80), o(fNeed, 35)),
	// Buying.
	r("wants to buy", "{queremos contratar|quiero contratar|queremos comprar|quiero comprar|contratarlo|contratar el plan|firmar el contrato|firmar este mes|dar de alta|empezar ya|queremos contratar|quero contratar|queremos assinar|quero assinar|fechar o contrato|fechar negocio|fechar com voces|assinar o contrato|nous voulons souscrire|souscrire|signer le contrat|passer commande|nous abonner|wir wollen kaufen|wir mochten kaufen|abschliessen|vertrag unterschreiben|bestellen|buchen wir|kharidna hai|lena hai abhi|sign karna hai|subscribe karna}", o(fIntent, 85), o(fNeed, 60)),
	r("asks for the quote", "{mandame|enviame|pasame|mandeme|envieme|manda|mande|envia|envie|me manda|me envia|me mandem|envoyez|envoyez moi|envoie|envoie moi|schicken sie|senden sie|schick|schickt|send|send me|send over|email me|bhej|bhejo|bhejiye} .. {propuesta|presupuesto|cotizacion|proposta|orcamento|cotacao|devis|proposition|offre|angebot|quote|quotation|proposal|estimate}", o(fIntent, 75), o(fBudget, 55)),
	r("asks for the quote", "{pode cotar|podem cotar|cotar agora|cotiza|cotizame|cotizar|faire un devis|ein angebot machen|quote me|quote us}", o(fIntent, 75), o(fBudget, 55)),
	r("asks how to pay", "{como pago|como puedo pagar|como pagamos|como hago el pago|como faco o pagamento|como faco para pagar|como pagar|comment payer|comment regler|wie bezahle|wie kann ich bezahlen|wie zahlen|how do i pay|how can i pay|how do we pay|payment link|link de pago|link de pagamento|link para pagamento|kaise pay|payment kaise|where do i pay}", o(fIntent, 85), o(fBudget, 70)),
	r("will pay", "{i will pay|we will pay|i can pay|we can pay|i will transfer|pago hoy|pagamos hoy|pago hoje|pagamos hoje|je payerai|ich zahle|wir zahlen|pay kar dunga|pay kar denge}", o(fIntent, 80), o(fBudget, 75)),
	r("will sign", "{buchen sie|bitte buchen|buche ich|reservieren sie|reservez|reservez moi|reservez nous|book it|book me|book us|please book|reservame|reserveme|reserve para mim|pode reservar|puede reservar|book kar do|book kardo|book karo|confirm kar do|we will sign|i will sign|la firmamos|lo firmamos|firmamos|firmo hoy|assinamos|fechamos|quero fechar|queremos fechar|vamos fechar|fechar ate|on signe|nous signons|je signe|unterschreiben wir|wir unterschreiben|sign kar denge|book it|book that|reserve it|lo reservo|la reservo|reservamos|je reserve|nous reservons|wir buchen}", o(fIntent, 85), o(fNeed, 60)),
	r("asks to visit", "{can we|could we|can i|could i|may i|may we} {tour|visit|see it|see the|come see|come by|stop by|come in|drop by|come over|view}", o(fIntent, 80), o(fNeed, 40)),
	r("asks to visit", "{podemos visitar|puedo visitar|podemos ir a ver|puedo pasar|podemos pasar|posso visitar|podemos visitar|posso passar|pouvons nous visiter|puis je passer|peut on visiter|konnen wir vorbeikommen|kann ich vorbeikommen|besichtigen|besichtigung}", o(fIntent, 80), o(fNeed, 40)),
	r("asks for an available slot", "{tienen algo|tienen hueco|tienen disponibilidad|hay disponibilidad|tem vaga|tem horario|tem disponibilidade|avez vous une disponibilite|avez vous un creneau|haben sie einen termin|haben sie zeit|haben sie noch|slot available|any availability|any slots|do you have anything|have anything}", o(fIntent, 75), o(fNeed, 50)),
	r("proposes a day", "@weekday", o(fTimeline, 85)).whenAsked(fIntent),
	r("proposes a day", "@weekday", o(fTimeline, 85)).whenAsked(fTimeline),
	r("this week", "{hasta el|antes del|para el|el|ate|ate a|na|nesta|esta|este|avant|jusque|bis|bis zum|am|diesen|ce|proximo|proxima|prochain|nachsten|kommenden} @weekday", o(fTimeline, 95)),
	r("wants to buy", "{ready to buy|ready to sign|ready to go|want to sign|want to buy|want to purchase|would like to purchase|would like to buy|sign up for the|get started this|start this month|sign this month|sign the contract|send the contract|send over the contract|send me the contract|send an invoice|invoice us}", o(fIntent, 85), o(fNeed, 60)),
}

// evalRules are evaluation-stage activity: comparing vendors, asking for a
// trial or pilot, asking what a plan includes, whether it integrates, what
// it costs at their size. They show interest and, with the visitor's own
// context (fFit), a need.
var evalRules = []rule{
	// English.
	r("asks for a trial", "{free trial|trial|pilot|pilot project|proof of concept|poc|test drive|sandbox|try it|try you|try this|trial run|test it|test you|try out|trying out|testing you|testing it}", o(fEval, 65), o(fNeed, 55), o(fIntent, 55)),
	r("compares vendors", "{comparing|compare|evaluating|shortlisting|shortlisted|deciding between|choosing between} .. {you|your|tools|vendors|options|solutions|providers|platforms|alternatives|chatbots|bots|competitors}", o(fEval, 65), o(fNeed, 55), o(fCriteria, 55), o(fProcess, 55)),
	r("compares vendors", "{comparison of|comparison between|side by side|comparativa de|comparacion de|comparativo de|comparatif de|vergleich von} .. {tools|options|vendors|solutions|providers|platforms|software|systems|herramientas|opciones|proveedores|ferramentas|opcoes|fornecedores|outils|solutions|anbietern|tools|losungen}", o(fEval, 65), o(fNeed, 55), o(fCriteria, 55)),
	r("compares vendors", "{compare to|compare with|different from|difference between|better than|cheaper than|compares to|stack up}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)).question(),
	r("compares vendors", "{comparing with|comparing against|compare with|compare against|comparing it with|comparing them with|before deciding|before we decide|before i decide|antes de decidir|antes de decidirnos|avant de decider|bevor wir uns entscheiden|bevor ich mich entscheide}", o(fEval, 60), o(fNeed, 50), o(fProcess, 50)),
	r("compares vendors", "{other|others|otras|otros|outras|outros|autres|andere|anderen|two|three|few|couple of|dos|tres|duas|tres|deux|trois|zwei|drei} .. {options|vendors|companies|providers|schools|agencies|quotes|proposals|projects|clinics|suppliers|opciones|escuelas|proveedores|empresas|propuestas|presupuestos|colegios|clinicas|agencias|opcoes|escolas|fornecedores|propostas|orcamentos|agencias|offres|devis|ecoles|prestataires|fournisseurs|anbieter|angebote|schulen|agenturen|optionen}", o(fEval, 60), o(fNeed, 50), o(fProcess, 50)),
	r("asks what is included", "{incluye|incluido|incluida|incluidos|incluidas|incluso|inclui|incluem|incluidos|inclusos|inclusas|inclus|inclut|compris|comprend|enthalten|inbegriffen|inklusive|inkludiert|mit drin|dabei|included|include|includes|shamil}", o(fEval, 50), o(fNeed, 40)).question(),
	r("asks for samples or material", "{muestras|muestra|amostras|amostra|echantillons|echantillon|muster|samples|sample|folleto|catalogo|ficha tecnica|brochure|prospekt|unterlagen|floor plans|planos|plantas|plaquette|spec sheet|spec sheets|specsheet|specsheets|datasheet|datasheets|data sheet|data sheets|technical sheet|product sheet|fiche technique|fiches techniques|datenblatt|datenblatter|produktdatenblatt|infomaterial|informationsmaterial|broschure|katalog|material informativo|documentation commerciale}", o(fEval, 50), o(fNeed, 40), o(fIntent, 40)),
	// Material the visitor sends ("je vous envoie quand même la plaquette",
	// "te mando el catálogo", "I'll send you our brochure") is a seller's,
	// not material asked for.
	suppress("{je vous envoie|on vous envoie|nous vous envoyons|i will send you|i am sending you|te envio|le envio|les envio|os envio|te mando|le mando|les mando|eu envio|vou enviar|vou mandar|ich schicke ihnen|ich sende ihnen|wir schicken ihnen|wir senden ihnen} .. .. {muestras|muestra|amostras|amostra|echantillons|echantillon|muster|samples|sample|folleto|catalogo|ficha tecnica|brochure|prospekt|unterlagen|floor plans|planos|plantas|plaquette|spec sheet|spec sheets|specsheet|specsheets|datasheet|datasheets|data sheet|data sheets|technical sheet|product sheet|fiche technique|fiches techniques|datenblatt|datenblatter|produktdatenblatt}", fEval, fNeed, fIntent),
	// Whether the business works with something of the visitor's ("do
	// you work with Shopify?", "¿trabajáis con Shopify?", "vocês
	// trabalham com convênio?", "vous travaillez avec Sage ?", "arbeitet
	// ihr mit Trados?") or has done it for others like them ("têm casos
	// de clínicas?", "habt ihr Referenzen?"): weighing the offering.
	r("asks about integrations", "{trabajais con|trabajan con|trabajas con|trabaja con|trabajan ustedes con|trabalham com|trabalha com|voces trabalham com|vcs trabalham com|vous travaillez avec|travaillez vous avec|tu travailles avec|arbeitet ihr mit|arbeiten sie mit|arbeitest du mit|ke saath kaam karte|ke sath kaam karte|pe kaam karte}", o(fEval, 50), o(fNeed, 40), o(fCriteria, 55)).question(),
	r("asks for references", "{case studies|case study|casos de exito|casos de clientes|tienen casos|teneis casos|casos de sucesso|tem casos|tem cases|cases de sucesso|etudes de cas|des references|vos references|referenzen|referenzprojekte|kundenbeispiele|fallbeispiele|references of|client references|customer references}", o(fEval, 50), o(fNeed, 40)).question(),
	r("compares vendors", "{vs|versus|alternative to|alternatives to|compared to|compared with|against} @system|intercom|drift|tidio|zendesk|freshchat|crisp|livechat|ada|botpress|manychat|chatbase|landbot|gorgias|hubspot", o(fEval, 65), o(fNeed, 50), o(fCriteria, 55)),
	r("replacing a tool", "{switch from|switching from|switch away|migrate from|migrating from|moving from|move away|replace our|replacing our|replace the|unhappy with our|not happy with our} .. tool|bot|chatbot|vendor|provider|platform|system|solution|widget|@system|intercom|drift|tidio|zendesk|freshchat|crisp|livechat|ada|gorgias", o(fEval, 60), o(fFit, 60), o(fNeed, 60)).native(),
	r("uses a tool today", "{currently using|we use|we are using|our current|we currently use} .. tool|bot|chatbot|vendor|provider|platform|system|solution|widget|@system|intercom|drift|tidio|zendesk|freshchat|crisp|livechat|ada|gorgias", o(fFit, 60)),
	r("asks what a plan includes", "{what does|what is included|what is in|what do i get|which plan|what plan|which tier|does the|would the|is the} .. {plan|plans|tier|package|starter|pro|business|enterprise|growth}", o(fEval, 55), o(fNeed, 45), o(fIntent, 45)),
	r("asks about integrations", "{integrate with|integrates with|integration with|connect to|connect with|sync with|plug into|work with|works with|api for|webhook} @system", o(fEval, 55), o(fNeed, 45), o(fCriteria, 60)),
	r("asks about a feature for their case", "{can it|could it|does it|will it|can the bot|can your bot|would it} {handle|answer|support|cover|deal with|book|take|qualify|escalate|hand over|hand off|speak|reply|respond}", o(fEval, 45), o(fNeed, 40)).question(),
	r("researching tools", "{researching|research|looking into|exploring|shortlist|scouting} .. {tools|options|solutions|vendors|chatbots|chatbot|platforms|providers|bots|assistants}", o(fEval, 55), o(fNeed, 50)),
	r("researching tools", "{investigando|explorando|pesquisando|recherchons|explorons|recherchieren} .. {herramientas|opciones|soluciones|proveedores|chatbot|chatbots|ferramentas|opcoes|solucoes|fornecedores|outils|solutions|prestataires|tools|losungen|anbieter}", o(fEval, 55), o(fNeed, 50)),
	r("asks about scale", "{how many|up to how many|is there a limit|limit on} {conversations|chats|messages|seats|users|agents|bots|websites|sites|languages}", o(fEval, 45), o(fNeed, 40)),
	// Spanish.
	r("asks for a trial", "{prueba gratis|prueba gratuita|periodo de prueba|una prueba|probarlo|probarla|probar la herramienta|probar el bot|piloto|prueba piloto|prueba de concepto}", o(fEval, 65), o(fNeed, 55), o(fIntent, 55)),
	r("compares vendors", "{comparando|comparar|evaluando|estamos viendo|estamos mirando|decidir entre|elegir entre|alternativas a|alternativa a|frente a|en comparacion con}", o(fEval, 65), o(fNeed, 55), o(fCriteria, 55), o(fProcess, 55)),
	r("uses a tool today", "{usamos|estamos usando|utilizamos|nuestra herramienta actual|nuestro proveedor actual}", o(fFit, 60)),
	r("replacing a tool", "{cambiar de|migrar de|reemplazar|sustituir}", o(fEval, 55), o(fFit, 60), o(fNeed, 55)),
	r("asks what a plan includes", "{que incluye|que trae|cual plan|que plan|los planes|se integra|integracion con|integra con|funciona con|conecta con}", o(fEval, 55), o(fNeed, 45), o(fIntent, 45)),
	// Portuguese.
	r("asks for a trial", "{teste gratis|teste gratuito|periodo de teste|um teste|testar|testar a ferramenta|projeto piloto|piloto|prova de conceito}", o(fEval, 65), o(fNeed, 55), o(fIntent, 55)),
	r("compares vendors", "{comparando|comparar|avaliando|estamos vendo|estamos olhando|decidir entre|escolher entre|alternativas ao|alternativa ao|em comparacao com}", o(fEval, 65), o(fNeed, 55), o(fCriteria, 55), o(fProcess, 55)),
	r("uses a tool today", "{usamos|estamos usando|utilizamos|nossa ferramenta atual|nosso fornecedor atual}", o(fFit, 60)),
	r("replacing a tool", "{trocar de|migrar de|substituir}", o(fEval, 55), o(fFit, 60), o(fNeed, 55)),
	r("asks what a plan includes", "{o que inclui|o que vem|qual plano|que plano|os planos|integra com|integracao com|funciona com|conecta com}", o(fEval, 55), o(fNeed, 45), o(fIntent, 45)),
	// French.
	r("asks for a trial", "{essai gratuit|periode de essai|un essai|essayer|tester|test gratuit|projet pilote|pilote|preuve de concept}", o(fEval, 65), o(fNeed, 55), o(fIntent, 55)),
	r("compares vendors", "{comparons|comparer|evaluons|evaluer|hesitons entre|choisir entre|alternatives a|alternative a|par rapport a}", o(fEval, 65), o(fNeed, 55), o(fCriteria, 55), o(fProcess, 55)),
	r("uses a tool today", "{nous utilisons|on utilise|notre outil actuel|notre prestataire actuel}", o(fFit, 60)),
	r("replacing a tool", "{changer de|migrer de|remplacer}", o(fEval, 55), o(fFit, 60), o(fNeed, 55)),
	r("asks what a plan includes", "{que comprend|que est ce que comprend|quel forfait|quelle offre|les forfaits|s integre|integration avec|compatible avec|fonctionne avec|connecter a}", o(fEval, 55), o(fNeed, 45), o(fIntent, 45)),
	// German.
	r("asks for a trial", "{testversion|kostenlos testen|testphase|probetragen|probetraining|probestunde|probemonat|probeabo|probewoche|probesitzung|probetermin|probelektion|probeunterricht|probeliegen|probeschlafen|probewohnen|testzugang|probeversion|pilotprojekt|pilotphase|pilot|proof of concept|testen|ausprobieren}", o(fEval, 65), o(fNeed, 55), o(fIntent, 55)),
	r("compares vendors", "{vergleichen|vergleich|evaluieren|prufen gerade|schauen uns|entscheiden zwischen|alternative zu|alternativen zu|im vergleich zu}", o(fEval, 65), o(fNeed, 55), o(fCriteria, 55), o(fProcess, 55)),
	r("uses a tool today", "{wir nutzen|wir verwenden|nutzen derzeit|aktuelles tool|aktuellen anbieter}", o(fFit, 60)),
	r("replacing a tool", "{wechseln von|migrieren von|ersetzen|ablosen}", o(fEval, 55), o(fFit, 60), o(fNeed, 55)),
	r("asks what a plan includes", "{was ist enthalten|was beinhaltet|welcher tarif|welches paket|die tarife|integration mit|anbindung an|schnittstelle zu|funktioniert mit|lasst sich}", o(fEval, 55), o(fNeed, 45), o(fIntent, 45)),
	// How this business differs from another, asked in every language
	// ("what's different from X?" is read above): "qual a diferença do de
	// vocês pro X?", "¿en qué se diferencian de X?", "quelle différence
	// avec X ?", "was ist bei euch anders als bei X?", "X se kya alag hai?".
	r("compares vendors", "{que diferencia|cual es la diferencia|diferencia con|diferencia entre|diferencia de|en que se diferencian|en que son diferentes|diferentes de|distinto de|distintos de|mejor que|mas barato que}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)).question(),
	r("compares vendors", "{qual a diferenca|qual e a diferenca|que diferenca|diferenca do|diferenca da|diferenca de|diferenca entre|diferenca pro|diferenca pra|diferenca para|diferente do|diferente da|diferentes de|melhor que|mais barato que}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)).question(),
	r("compares vendors", "{quelle difference|quelle est la difference|difference avec|difference entre|difference par rapport|en quoi etes vous|en quoi vous etes|differents de|different de|mieux que|moins cher que}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)).question(),
	r("compares vendors", "{anders als|unterschied zu|unterschied zum|unterschied zwischen|was unterscheidet|unterscheidet ihr|unterscheiden sie|unterscheidet sich|besser als|gunstiger als|billiger als}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)).question(),
	r("compares vendors", "{se kya alag|se kaise alag|me kya fark|mein kya fark|me kya difference|mein kya difference|kya difference|se better|se behtar|se sasta}", o(fEval, 55), o(fNeed, 35), o(fCriteria, 40)).question(),
	// Hinglish.
	r("asks for a trial", "{trial chahiye|trial milega|trial de sakte|demo trial|test karna hai|try karna hai|pilot karna}", o(fEval, 65), o(fNeed, 55), o(fIntent, 55)),
	r("asks about integrations", "{integrate|integration|connect|sync|link} {hota|hoga|ho sakta|ho jayega|ho jata|karta|karega|kar sakte}", o(fEval, 55), o(fNeed, 45), o(fCriteria, 60)),
	r("compares vendors", "{compare kar rahe|compare karna|dekh rahe hain options|options dekh rahe}", o(fEval, 65), o(fNeed, 55), o(fCriteria, 55)),
}

// fitRules are the visitor's own context: what their business is, the
// team they are buying for, the tool they use. They make an evaluation a
// fitting one.
var fitRules = []rule{
	r("says where they work", "{i work at|i work for|i work in|i am at|trabajo en|trabajo para|trabalho na|trabalho no|trabalho em|je travaille chez|je travaille pour|je travaille dans|ich arbeite bei|ich arbeite fur|ich arbeite in|main kaam karta|kaam karti}", o(fFit, 55)).native(),
	r("describes their business", "{we are a|we are an|we run a|we run an|i run a|i run an|we have a|we have an|our company|our business|our store|our shop|our clinic|our agency|our firm|our team|our website|our site|our support|our customers|our clients|our students|our patients|our guests|our users}", o(fFit, 55)),
	r("describes their business", "{somos una|somos un|tenemos una|tenemos un|nuestra empresa|nuestro negocio|nuestra tienda|nuestra clinica|nuestra agencia|nuestro equipo|nuestra web|nuestros clientes|nuestros pacientes|nuestros alumnos|nuestro sitio}", o(fFit, 55)),
	r("describes their business", "{somos uma|somos um|temos uma|temos um|nossa empresa|nosso negocio|nossa loja|nossa clinica|nossa agencia|nossa equipe|nosso time|nosso site|nossos clientes|nossos pacientes|nossos alunos}", o(fFit, 55)),
	r("describes their business", "{nous sommes une|nous sommes un|on est une|on est un|nous avons une|nous avons un|notre entreprise|notre societe|notre boutique|notre cabinet|notre agence|notre equipe|notre site|nos clients|nos patients|nos eleves}", o(fFit, 55)),
	r("describes their business", "{wir sind ein|wir sind eine|wir haben ein|wir haben eine|unser unternehmen|unsere firma|unser shop|unsere praxis|unsere kanzlei|unsere agentur|unser team|unsere website|unsere kunden|unsere patienten}", o(fFit, 55)),
	r("describes their business", "{hamara|hamari|hamare|humara|humari|humare|apna|apni|mera|meri} business|company|team|store|shop|website|customers|clients|institute|school|coaching|clinic|hospital|agency|restaurant|hotel|firm|startup|factory|office|brand|students|patients|agents|staff", o(fFit, 55)),
	r("describes their business", "{hamare paas|humare paas|hum log|hum ek|hamara ek|hamari ek}", o(fFit, 55)),
	r("buying for their organisation", "{pour notre|pour nos|fur unseren|fur unsere|fur unser|fur unsere|para nuestro|para nuestra|para nuestros|para nuestras|para nosso|para nossa|para nossos|para nossas|for our}", o(fFit, 55)),
}

// supportRules are an existing customer asking for help with what they
// already have.
var supportRules = []rule{
	r("existing customer", "{already a customer|already customers|existing customer|current customer|we are customers|we are a customer|i am a customer|our account|my account|our subscription|my subscription|our current plan|my current plan|our bot|my bot|our widget|my widget|our chatbot|my chatbot|my dashboard|our dashboard|my login|my invoice|our invoice|my password|our workspace|my workspace}", o(fSupport, 100)),
	r("has a problem with it", "{stopped working|stopped answering|stopped responding|not loading|does not load|will not load|is broken|broke|keeps crashing|crashing|can not log in|can not login|can not sign in|unable to log in|unable to login|locked out|reset my password|forgot my password|error message|getting an error|shows an error|throws an error|bug|glitch|was charged twice|charged twice|double charged|not showing|disappeared|is down|went down}", o(fProblem, 100)).native(),
	// Something owed to them never sent: "no me la mandaron", "não
	// recebi", "jamais reçu", "nie erhalten".
	r("has a problem with it", "{no me la mandaron|no me lo mandaron|no me la enviaron|no me lo enviaron|no me las mandaron|no me los mandaron|no me han mandado|no me han enviado|no me ha llegado|no me han llegado|nao me mandaram|nao me enviaram|nao recebi|nunca recebi|ainda nao recebi|jamais recu|pas recu|toujours pas recu|nie erhalten|nicht erhalten|nie bekommen|noch nicht bekommen|nicht bekommen}", o(fProblem, 100)).native(),
	r("asks how to use it", "{how do i|how can i|where do i|where can i|how to} {change|reset|update|cancel|delete|remove|export|download|fix|edit|add a user|invite|turn off|disable|find my|get my|access my}", o(fProblem, 100)),
	r("existing customer", "{we already have your|i already have your|we bought your|i bought your|we bought from you|i bought from you|you installed|your technician|my order|our order|order number|my delivery|my package|my parcel|soy suscriptor|soy suscriptora|sou assinante|je suis abonne|je suis abonnee|ich bin abonnent|ich bin abonnentin|mi pedido|meu pedido|o meu pedido|numero do pedido|numero de pedido|numero de commande|ma commande|mon colis|meine bestellung|bestellnummer|ya tenemos sus|ya tengo su|ja temos|ja tenho o|nous avons deja vos|wir haben bereits ihre}", o(fSupport, 100)),
	r("has a problem with it", "{error|fault|faulty|leaking|not producing|no production|production is zero|not arrived|has not arrived|never arrived|still not|nao chegou|ainda nao chegou|no ha llegado|no llego|todavia no llega|pas arrive|toujours pas|nicht angekommen|noch nicht da|atrasado|atrasada|retrasado|retrasada|en retard|verspatet|reenvio|reembolso|vou cancelar|voy a cancelar|je vais annuler|ich kundige}", o(fProblem, 100)).native(),
	r("existing customer", "{ya somos clientes|soy cliente|somos clientes|mi cuenta|nuestra cuenta|mi suscripcion|nuestra suscripcion|mi factura|nuestra factura|nuestro bot|mi bot|nuestro chatbot|mi panel|ja somos clientes|sou cliente|somos clientes|minha conta|nossa conta|minha assinatura|nossa assinatura|minha fatura|nossa fatura|nosso bot|nosso chatbot|meu painel|deja client|deja clients|nous sommes clients|je suis client|je suis cliente|mon compte|notre compte|mon abonnement|notre abonnement|ma facture|notre facture|notre bot|notre chatbot|mon tableau de bord|bereits kunde|schon kunde|wir sind kunde|wir sind kunden|mein konto|unser konto|mein abo|unser abo|mein abonnement|unser abonnement|meine rechnung|unsere rechnung|unser bot|unser chatbot|mera account|hamara account|mera subscription|hamara bot|mera bot|hamara chatbot|mera invoice}", o(fSupport, 100)),
	// A patient, member or client of this business already, said as such:
	// "soy paciente vuestro", "main aapka purana client hu", "ich bin
	// Patientin bei Ihnen", "I'm an existing patient".
	r("existing customer", "{soy paciente vuestro|soy paciente vuestra|soy paciente suyo|soy paciente suya|soy paciente de ustedes|soy socio de ustedes|soy socia de ustedes|ya soy paciente|ya soy socio|ya soy socia|sou paciente de voces|sou paciente vosso|sou paciente vossa|ja sou paciente|ja sou socio|ja sou socia|je suis patient chez vous|je suis patiente chez vous|je suis deja patient|je suis deja patiente|je suis adherent chez vous|je suis deja adherent|ich bin patient bei ihnen|ich bin patientin bei ihnen|ich bin patient bei euch|ich bin patientin bei euch|ich bin schon patient|ich bin schon patientin|ich bin bereits patient|ich bin bereits patientin|ich bin schon mitglied|ich bin bereits mitglied|i am an existing patient|i am your patient|i am already a patient|i am already a member|i am an existing member|i am already a client|i am an existing client|aapka purana client|aapka purana customer|aapka regular client|aapka regular customer|aapki purani client|aapki purani patient|aapka purana patient|purana client hu|purana client hoon|purana customer hu|purana customer hoon}", o(fSupport, 100)),
	r("has a problem with it", "{no funciona|dejo de funcionar|ha dejado de funcionar|no carga|no responde|no puedo entrar|no puedo acceder|no puedo iniciar sesion|olvide mi contrasena|cobro doble|me cobraron dos veces|un error|da error|nao funciona|parou de funcionar|nao carrega|nao responde|nao consigo acessar|nao consigo entrar|esqueci minha senha|cobranca duplicada|cobrado duas vezes|da erro|ne fonctionne plus|ne fonctionne pas|ne marche plus|ne marche pas|ne charge pas|impossible de me connecter|mot de passe oublie|debite deux fois|une erreur|funktioniert nicht|funktioniert nicht mehr|geht nicht|ladt nicht|kann mich nicht einloggen|kann mich nicht anmelden|passwort vergessen|doppelt abgebucht|eine fehlermeldung|fehlermeldung|kaam nahi kar|chal nahi raha|login nahi ho|error aa raha|band ho gaya}", o(fProblem, 100)).native(),
	r("asks how to use it", "{como cambio|como puedo cambiar|como cancelo|donde encuentro|como faco para|como altero|como cancelo|onde encontro|comment changer|comment modifier|comment annuler|ou trouver|wie andere ich|wie kann ich|wie kundige ich|wo finde ich|kaise change|kaise cancel}", o(fProblem, 100)),
	r("wants to cancel", "{cancelar mi|cancelar la suscripcion|darme de baja|dar de baja|reembolso|devolucion|cancelar minha|cancelar a assinatura|reembolso|estorno|resilier|annuler mon abonnement|remboursement|kundigen|kundigung|ruckerstattung|erstattung|refund chahiye|cancel karna}", o(fSupport, 100), o(fProblem, 100)),
	r("existing customer", "{kundennummer|auftragsnummer|vertragsnummer|rechnungsnummer|commande n|commande no|numero client|numero de client|numero de cliente|numero do cliente|numero de contrato|customer id|customer number|order id}", o(fSupport, 100)).native(),
	r("existing customer", "{nous avons commande|on a commande|je ai commande|avons commande|ai commande|wir haben bestellt|ich habe bestellt|haben bei ihnen bestellt|habe bei ihnen bestellt|hemos pedido|he pedido|hicimos un pedido|fizemos um pedido|fiz um pedido|order kiya tha|order kiya hai}", o(fSupport, 100)),
	// Paperwork on a past purchase: a copy of an invoice, a certificate.
	r("asks for paperwork on a purchase", "{duplicata|copie de la facture|copie de facture|copie de ma facture|rechnungskopie|kopie der rechnung|kopie meiner rechnung|copia de la factura|copia de mi factura|segunda via|copia da fatura|copy of the invoice|copy of my invoice|copy of our invoice|invoice copy|duplicate invoice|invoice ki copy|bill ki copy}", o(fSupport, 100), o(fProblem, 100)),
	// Moving or cancelling an appointment already booked.
	r("changes an existing appointment", "{termin|kontrolltermin|behandlungstermin|arzttermin|untersuchungstermin|rendez vous|rdv|cita|consulta|appointment} .. {verschieben|absagen|umbuchen|stornieren|verlegen|deplacer|decaler|annuler|reporter|cambiar|reprogramar|mover|anular|remarcar|reagendar|desmarcar|reschedule|postpone|move}", o(fSupport, 100), o(fProblem, 100)),
	r("changes an existing appointment", "{verschieben|absagen|umbuchen|stornieren|verlegen|deplacer|decaler|annuler|reporter|cambiar|reprogramar|mover|anular|remarcar|reagendar|desmarcar|reschedule|postpone} .. {meinen|mein|ma|mon|mi|minha|my|our} termin|kontrolltermin|rendez|rdv|cita|consulta|appointment", o(fSupport, 100), o(fProblem, 100)),
	r("has a problem with it", "{funktioniert|klappt|geht|lauft|ladt|startet|offnet|kommt} .. {nicht|nicht mehr|kaum}", o(fProblem, 100)).native(),
	// Locked out, in the visitor's own words: "ich komm nicht mehr in
	// die App rein", and an error the product shows ("Lizenz ungültig",
	// "código inválido", "code invalide", "invalid licence").
	r("has a problem with it", "{komm|komme|kommen} nicht mehr? .. rein", o(fProblem, 100)).native(),
	r("has a problem with it", "{ungultig|ungultige|ungultiger|invalid|invalido|invalida|invalide} .. {lizenz|code|kode|codigo|licence|license|licencia|licenca|passwort|password|contrasena|senha|mot de passe|zugang|key|schlussel|cle|token|otp}", o(fProblem, 100)).native(),
	r("has a problem with it", "{lizenz|code|kode|codigo|licence|license|licencia|licenca|passwort|password|contrasena|senha|zugang|key|schlussel|cle|token|otp} .. {ungultig|ungultige|invalid|invalido|invalida|invalide}", o(fProblem, 100)).native(),
	r("has a problem with it", "{fehler|fehlermeldung|absturz|sturzt ab|abgesturzt|bug|erreur|plantage|plante|falla|fallo|falha|travando|trava|otp nahi|otp nahi aa|login nahi|kaam nahi kar raha|chal nahi rahi}", o(fProblem, 100)).native(),
	r("existing customer", "{client chez vous|cliente chez vous|clients chez vous|ich bin kunde|ich bin kundin|bin kunde bei|bin kundin bei|kunde bei ihnen|kunde bei euch|kundin bei ihnen|cliente de ustedes|clientes de ustedes|cliente de voces|clientes de voces|cliente da|customer of yours|aapke customer|purane customer}", o(fSupport, 100)),
	// Using the business's own product today.
	r("existing customer", "{wir nutzen|ich nutze|wir verwenden|ich verwende|nutzen seit|nous utilisons|on utilise|je utilise|usamos|utilizamos|uso|we use|i use|we have been using|we are using|i have been using} {ihre|eure|euer|ihr|ihren|votre|vos|su|sus|seu|sua|seus|suas|your}", o(fSupport, 100)),
	r("existing customer", "{aapka|aapki|apka|apki} .. {use kar rahe|use karte|use kar raha|use kar rahi|use kar rha}", o(fSupport, 100)),
	// Money taken on a past purchase.
	r("existing customer", "{abgebucht|abbuchung|lastschrift|debite|debitee|preleve|prelevement|cobrado|cobrada|me cobraron|nos cobraron|debitado|debitada|paisa kat|paise kat|payment cut|amount cut|amount deduct|paise deduct}", o(fSupport, 100)),
	// The money asked back, in each language's forms ("quiero que me
	// devolváis el dinero", "devolvam o dinheiro", "remboursez-moi",
	// "I want my money back"): something already paid for.
	r("wants to cancel", "{devolvais|devolveis|devuelvan|devuelvas|devolver|devolvieran|devolvam|devolvem|devolver} {el|o|me|} {dinero|dinheiro|importe|valor}", o(fSupport, 100), o(fProblem, 100)),
	r("wants to cancel", "{remboursez moi|remboursez nous|me rembourser|nous rembourser|my money back|the money back|that money back|our money back|money back asap}", o(fSupport, 100), o(fProblem, 100)).native(),
	r("wants to cancel", "{refund karo|refund kar do|refund kijiye|refund do|paisa wapas|paise wapas|wapas karo|geld zuruck|mein geld zuruck|rembourse|remboursee|etre rembourse|mi dinero|devuelvan|meu dinheiro de volta}", o(fSupport, 100), o(fProblem, 100)),
	r("has a problem with it", "{bricht .. ab|abgebrochen|hangt sich auf|nicht mehr einloggen|nicht einloggen|nicht mehr anmelden|nicht anmelden|ne arrive plus|ne arrive pas a me connecter|impossible de acceder|plus acces|no puedo entrar|no me deja|nao consigo logar|block ho gaya|blocked ho gaya|2 baar cut|do baar cut|double cut|deliver nahi|nahi aaya|nahi aayi|nahi mila|nahi mili}", o(fProblem, 100)).native(),
	// A purchase made here, and what went wrong with it.
	r("existing customer", "{bei ihnen|bei euch|chez vous|con ustedes|en su tienda|com voces|na loja de voces|aapse|aap se|aapke yahan} .. {gekauft|bestellt|gebucht|achete|achetee|commande|reserve|compre|compramos|pedi|comprei|compramos|kharida|kharidi|liya|li thi|liya tha|order kiya}", o(fSupport, 100)),
	r("existing customer", "{votre widget|votre bot|votre chatbot|votre logiciel|votre application|votre appli|votre plateforme|ihr widget|ihr chatbot|ihre software|ihre app|ihr tool|ihre plattform|chatbot von ihnen|bot von ihnen|software von ihnen|widget von ihnen|su widget|su chatbot|su aplicacion|su plataforma|seu widget|seu chatbot|seu aplicativo|sua plataforma|aapka app|aapka software|aapka bot|aapka widget}", o(fSupport, 100)),
	r("has a problem with it", "{kaputt|defekt|beschadigt|reklamation|reklamieren|umtauschen|umtausch|casse|cassee|defectueux|defectueuse|abime|abimee|echanger|sav|roto|rota|defectuoso|defectuosa|devolver|quebrado|quebrada|defeito|trocar|kharab|toot gaya|tut gaya|replace karo|exchange karna|technician bhejo|cooling nahi|souci avec|un souci|ne affiche plus|ne se affiche plus|antwortet .. nicht|reagiert nicht|beheben|reparieren|fix karo|theek karo|reply nahi kar|kaam nahi kar}", o(fProblem, 100)).native(),
}

// disqualifierIntlRules: job seekers, students, competitors and spam in
// the other languages.
var disqualifierIntlRules = []rule{
	// Research asked of the business: an interview with one of its people
	// or a questionnaire to fill in ("would anyone be open to a 30 minute
	// interview?", "¿podría hacerle una entrevista al gerente?", "alguém que
	// eu possa entrevistar", "quelqu'un pourrait répondre à un
	// questionnaire", "könnte ich die Direktion interviewen?", "kisi manager
	// ka interview"): a student's or a researcher's request, not a buyer's
	// (a job interview is the job seeker's, a site survey a buyer's).
	r("asks for a research interview", "{could i|can i|may i|i would like to|i would love to|possa|poderia|pourrais|pourrait|konnte ich|kann ich|darf ich|podria} .. {interview|entrevistar|interviewer|interviewen}", o(fStudent, 90)).native(),
	r("asks for a research interview", "{open to|available for|give me|geben konnte|geben konnten|hacerle} @det? _? _? {interview|entrevista}", o(fStudent, 90)).native(),
	r("asks for a research interview", "{ka interview|ki interview|ka 10 min interview|ka 15 min interview|ka 20 min interview|interview mil|interview ho sakta|repondre a une interview|un entretien avec votre|un entretien avec vos}", o(fStudent, 90)).native(),
	r("student coursework", "{trabajo de grado|trabajo de titulo|trabajo de titulacion|tesina|monografia|trabajo practico|pour la fac|pour mon master|fur meine uni|experteninterview|expertinneninterview}", o(fStudent, 100)),
	r("asks for a questionnaire", "{fill|fill in|fill out|answer|complete|responder|respondam|repondre a|ausfullen|beantworten} @det? _? _? {survey|questionnaire|questionario|cuestionario|encuesta|fragebogen|umfrage}", o(fStudent, 90)).native(),
	r("asks for a questionnaire", "{survey|questionnaire|fragebogen} .. {fill karwa|fill kar|ausfullen|bhar}", o(fStudent, 90)).native(),
	r("spam", "{i noticed your website|i came across your website|i checked your website|rank your website|rank higher|increase your traffic|boost your traffic|more traffic to your|guaranteed results|guaranteed leads|we generate leads|lead generation services|list your business|directory listing|advertise on our|sponsored content|reseller program|affiliate program|white label partnership|loan offer|crypto investment|investment opportunity|earn passive income|get rich|100 percent guaranteed}", o(fSpam, 100)),
	r("asks for a job", "{job opening|job openings|work for you|join your team|part time job|full time job|career opportunities|my resume|my cv|hiring for|looking for work|looking for a position|open positions|open roles|recruiter here|work with your team as}", o(fJob, 100)),
	r("student coursework", "{school project|class project|for my class|for a class|my professor|my teacher|my lecturer|university assignment|uni assignment|course project|for my course|research paper|term paper|case study for my|for my dissertation|for my thesis|group project|semester project|student project}", o(fStudent, 100)),
	r("competitor", "{we build something similar|we are building something similar|we also build|we offer a similar|we run a similar|similar product to yours|in the same space|same space as you|we compete with you|your competitor}", o(fCompetitor, 100)),
	r("existing customer", "{tracking number|where is my|my booking|my reservation|my appointment|my policy|my claim|my warranty|my installation|my technician|my subscription|my membership|my plan renewal|renew my|update my billing|update my card|change my address|i already paid|i was charged|i have been charged|we were charged|you charged|your app|your driver|your courier|your technician}", o(fSupport, 100)),
	r("has a problem with it", "{did not show up|never showed|no show|not received|never received|was not delivered|wrong item|wrong size|damaged|broken on arrival|missing item|still waiting|no one called|nobody called|no response|no reply|not resolved|not fixed|keeps happening|second time|third time|again and again|want a refund|need a refund|request a refund|get a refund|cancel my order|cancel my booking|cancel my subscription|cancel my membership|how do i cancel}", o(fProblem, 100)).native(),
	r("asks for a job", "{busco trabajo|busco empleo|estan contratando|ofertas de empleo|oferta de empleo|vacante|vacantes|mi cv|mi curriculum|hoja de vida|trabajar con ustedes|trabajar en su empresa|practicas profesionales|procuro emprego|procuro trabalho|estao contratando|tem vagas|tem vaga|ha vagas|ha vaga|vagas abertas|vaga aberta|vagas de|vagas para|vaga para|alguma vaga|vaga de emprego|meu curriculo|trabalhar com voces|estagio|recrutez vous|vous recrutez|offre de emploi|offres de emploi|mon cv|candidature spontanee|je cherche un emploi|je cherche un stage|travailler chez vous|alternance|stellenangebot|stellenangebote|offene stellen|bewerbung|bewerben|lebenslauf|praktikumsplatz|suchen sie mitarbeiter|stellen sie ein|bei ihnen arbeiten|naukri chahiye|job chahiye|job milegi|hiring kar rahe}", o(fJob, 100)),
	r("asks for a job", "{vous embauchez|embauchez vous|ma candidature|je cherche un poste|je recherche un poste|postuler|candidater|cherche un emploi|cherche du travail|ausbildungsstelle|ausbildungsplatz|freie stellen|freie stelle|offene stelle|suche arbeit|suche einen job|suche eine stelle|suche eine neue stelle|initiativbewerbung|stelle als|job als|busco un puesto|un puesto de trabajo|candidatarme|me candidatar|vaga de|vacancy hai|job hai kya|job mil|kaam chahiye|naukri}", o(fJob, 100)),
	r("spam", "{seo agentur|seo agency|agence seo|agencia seo|agencia de seo|platz 1 bei google|erste seite bei google|premiere page de google|premiere page google|primera pagina de google|primeira pagina do google|google first page|google 1st page|first page of google|1st page ranking|leads generate kar|generate leads for you|lead generation karte}", o(fSpam, 100)),
	r("vendor pitch", "{aapke|aapki|apke|apki} {business|website|company|brand|hotel|store|shop} {ke liye|ko|ki}", o(fSpamWeak, 100)),
	r("vendor pitch", "{bieten ihnen|ihnen anbieten|vous proposer|vous proposons|les proponemos|le proponemos|oferecemos a voces|propomos}", o(fSpamWeak, 100)),
	r("competitor", "{meme marche que vous|meme secteur que vous|meme creneau que vous|mismo mercado que ustedes|mismo sector que ustedes|mesmo mercado que voces|mesmo setor que voces|gleichen markt wie sie|selben markt wie sie|gleichen branche wie sie|same market as you|same industry as you|same business as you}", o(fCompetitor, 100)),
	r("fishing for business data", "{etude de marche|estudio de mercado|pesquisa de mercado|marktforschung|marktstudie|marktanalyse|market study|market research}", o(fFishing, 100)),
	// What only an applicant says: the pay they expect, their notice
	// period, whether the position is still open, the interview.
	r("asks for a job", "{ist die stelle noch frei|die stelle noch frei|ist die stelle noch|stelle noch zu haben|gehaltsvorstellung|gehaltsvorstellungen|bewerbungsgesprach|vorstellungsgesprach|salary expectation|salary expectations|expected salary|pretension salarial|pretensiones salariales|pretensao salarial|pretensoes salariais|pretention salariale|pretentions salariales|expected ctc|current ctc|is the position still open|is the job still open|is the role still open|el puesto sigue|la vacante sigue|a vaga ainda|le poste est encore|le poste est toujours}", o(fJob, 100)),
	r("asks for a job", "{nebenjob|minijob|aushilfsjob|werkstudentenstelle|teilzeitjob|teilzeitstelle|vollzeitstelle|job etudiant|petit boulot|trabajo de medio tiempo|trabajo a tiempo parcial|meio periodo|bico}", o(fJob, 100)),
	r("competitor", "{nous sommes aussi|on est aussi|nous aussi|wir sind auch|wir auch|somos tambien|tambien somos|tambem somos|somos tambem|we are also|we also} .. {editeur|editeurs|editeurs de|chatbot|solution|anbieter|hersteller|entwickler|proveedores|proveedor|desarrolladores|fornecedores|fornecedor|desenvolvedores|vendor|provider|developers|makers}", o(fCompetitor, 100)),
	r("student coursework", "{tesis|trabajo de fin de grado|tfg|tfm|trabajo final|proyecto de la universidad|proyecto universitario|para la universidad|para mi clase|tarea de|tcc|trabalho da faculdade|trabalho de conclusao|para a faculdade|minha tese|dissertacao|memoire|mon memoire|projet etudiant|projet de fin de etudes|pour mon cours|pour un cours|bachelorarbeit|masterarbeit|hausarbeit|seminararbeit|studienprojekt|fur die uni|fur mein studium|college project|project ke liye|assignment ke liye}", o(fStudent, 100)),
	r("says they are a student", "{soy estudiante|estoy estudiando|sou estudante|sou aluno|sou aluna|je suis etudiant|je suis etudiante|ich bin student|ich bin studentin|ich studiere|main student hoon|mai student hu|student hoon|student hu|student hun|student hoo}", o(fStudentMe, 100)),
	r("competitor", "{anbieter einer ahnlichen|ahnliche software|ahnliches produkt|selbst anbieter|auch anbieter|wir bieten auch|nous aussi proposons|nous proposons aussi|solution concurrente|tambien ofrecemos|tambem oferecemos|hum bhi yahi|somos competencia|somos su competencia|somos competidores|analisis de la competencia|estamos construyendo algo similar|desarrollamos un chatbot|somos concorrentes|somos concorrencia|analise da concorrencia|estamos construindo algo parecido|nous sommes concurrents|nous sommes un concurrent|analyse concurrentielle|veille concurrentielle|nous developpons une solution similaire|wir sind wettbewerber|wir sind ein wettbewerber|wir sind konkurrenten|wettbewerbsanalyse|konkurrenzanalyse|wir entwickeln ein ahnliches|competitor hain|hum bhi chatbot banate}", o(fCompetitor, 100)),
	r("fishing for business data", "{under the hood|your interchange|interchange split|your chargeback rate|chargeback rate|your fraud model|how many engineers|your risk team|internal benchmarking|benchmarking|which provider do you use|what provider do you use|which kyc provider|your revenue share|revenue share|who is your supplier|your suppliers|your vendor list|your conversion rate|your margins|que proveedor usan|quem e o fornecedor|quel fournisseur|welchen anbieter nutzen sie}", o(fFishing, 100)),
	r("fishing for business data", "{welches modell|welche ki|welches llm|wie viele kunden|quel modele|quelle ia|combien de clients|que modelo|que ia usan|quantos clientes|qual ia|kaunsa model|kitne clients|cuantos clientes tienen|que modelo usan|que llm usan|quantos clientes voces tem|que modelo voces usam|combien de clients avez vous|quel modele utilisez vous|wie viele kunden haben sie|welches modell nutzen sie|welches llm}", o(fFishing, 100)),
	r("no intent", "{juste dire bonjour|juste pour dire bonjour|nur hallo sagen|wollte nur hallo|solo saludar|solo queria saludar|so dar um oi|so queria dar um oi|bas hello bolne|bas hi bolne}", o(fNoIntent, 100)).native(),
	r("spam", "{base de datos de|bases de datos de|banco de dados de|base de donnees de|datenbank mit|emails de empresas|email list|email database|database of emails|lista de emails|lista de correos|whatsapp masivo|whatsapp em massa|envio masivo|envios masivos|disparo em massa|mass whatsapp|bulk sms|bulk whatsapp|oferta limitada|oferta por tiempo limitado|promocao imperdivel|contacte con|entre em contato pelo|captamos clientes|generamos leads para|geramos leads para|nous generons des leads|wir generieren leads}", o(fSpam, 100)),
	// Get-rich pitches: "earn $5000 a week" is a pitch only beside other
	// pitch words (a visitor may state their own revenue the same way).
	r("vendor pitch", "{earn|gana|ganhe|gagnez|verdienen|verdienst|kamao|kamaiye} .. {a|per|por|par|pro} {day|week|month|dia|semana|mes|jour|semaine|mois|tag|woche|monat|din|hafte|mahine}", o(fSpamWeak, 100)).native(),
	r("spam", "{crypto signals|trading signals|forex signals|limited spots|vip group|vip signals|t me|telegram group|join my telegram|join our telegram}", o(fSpam, 100)).native(),
	r("spam", "{servicios de seo|posicionamiento web|enlaces|backlinks|servicos de seo|services seo|referencement|seo dienstleistungen|gana dinero|ganhe dinheiro|gagnez de le argent|geld verdienen|haga clic aqui|clique aqui|cliquez ici|klicken sie hier|criptomonedas|criptomoedas|cryptomonnaie|kryptowahrung}", o(fSpam, 100)),
	r("vendor pitch", "{ofrecemos servicios|le ofrecemos|les ofrecemos|somos una agencia|propuesta de colaboracion|colaboracion con ustedes|alianza con ustedes|oferecemos servicos|somos uma agencia|proposta de parceria|parceria com voces|nous proposons|nous offrons nos services|nous sommes une agence|proposition de partenariat|partenariat avec vous|wir bieten|wir sind eine agentur|kooperation mit ihnen|partnerschaft mit ihnen|ihr unternehmen|votre entreprise|sua empresa|collaboration karna|partnership chahiye}", o(fSpamWeak, 100)).native(),
	// "Your website" is a pitch as the object of an audit or an offer to
	// improve it ("wir haben Ihre Website analysiert", "podemos mejorar su
	// sitio web"); a buyer keeps it, reads it, found it ("je garde votre
	// site").
	r("vendor pitch", "{ihre website|ihre webseite|votre site|su sitio web|su pagina web|seu site} .. {analysiert|gepruft|angeschaut|optimieren|verbessern|analyse|audite|optimiser|ameliorer|refaire|analizado|auditado|optimizar|mejorar|analisado|otimizar|melhorar}", o(fSpamWeak, 100)).native(),
	r("vendor pitch", "{analysiert|analysieren|gepruft|optimieren|verbessern|analyse|analyser|audite|optimiser|ameliorer|refaire|analizado|analizamos|auditado|optimizar|mejorar|analisado|analisamos|otimizar|melhorar} .. {ihre website|ihre webseite|votre site|su sitio web|su pagina web|seu site}", o(fSpamWeak, 100)).native(),
	// A limited offer announced by the visitor ("offre spéciale à 299 €
	// valable jusqu'à dimanche", "precio especial solo hasta el domingo",
	// "Sonderpreis nur diese Woche", "special offer only $99"): a seller's
	// pitch, whose price and deadline are not a buyer's budget and date. A
	// buyer asks about an offer ("¿sigue la oferta especial?"); a seller
	// announces one.
	r("vendor pitch", "{offre speciale|offre valable|oferta especial|oferta valida|precio especial|preco especial|prix special|special offer|limited offer|limited time offer|offer valid|offer ends|running a special|promocao valida|promocao exclusiva|promocao so|temos uma promocao|angebot gilt|sonderangebot|sonderpreis|aktionspreis}", o(fSpamWeak, 100)).native().statementOnly().unless("lists", "list", "listas", "lista"),
	// "Quería ver cómo lo hacen ustedes": studying how the business works
	// is a rival's or a researcher's question, not a buyer's.
	r("fishing for business data", "{ver|saber|entender} {como|cómo} lo {hacen|haceis|hacen ustedes|montais|montan|organizais|organizan|gestionais|gestionan|llevais|llevan} {ustedes|vosotros|}", o(fFishing, 100)),
	r("fishing for business data", "{ver|saber|entender|perceber} como {voces fazem|vcs fazem|voces trabalham|voces fazem isso|voces montam|vcs montam|voces organizam|vcs organizam|voces gerem}", o(fFishing, 100)),
	r("fishing for business data", "{voir|savoir|comprendre} comment vous {faites|faites ca|travaillez|vous organisez|gerez|montez}", o(fFishing, 100)),
	r("fishing for business data", "{sehen|wissen|verstehen} wie {ihr|sie} das {macht|machen|handhabt|handhaben}", o(fFishing, 100)),
	r("fishing for business data", "{see|know|understand|learn} how you {do it|guys do it|run it|run things|do things|handle it|organise it|organize it}", o(fFishing, 100)),
	// "I wanted to know", "quería saber", "je voulais savoir": a question
	// is coming, not a need.
	suppress("{want to|wanted to|would like to|wanna|queria|quiero|queriamos|quisiera|me gustaria|gostaria de|queria|quero|je voulais|je voudrais|je veux|ich wollte|ich mochte|ich wurde gerne} {know|ask|check|saber|preguntar|consultar|perguntar|savoir|demander|wissen|fragen|erfragen}", fNeed),
	// "Queria entender como vcs conseguem preço mais baixo", "I want to
	// understand how...", "je voulais comprendre": a question about how
	// the business works is coming, not a need of their own.
	suppress("{want to|wanted to|would like to|wanna|queria|quiero|queriamos|quisiera|me gustaria|gostaria de|quero|queriamos|je voulais|je voudrais|je veux|ich wollte|ich mochte|ich will|wir wollten} {understand|entender|comprender|compreender|perceber|comprendre|verstehen|nachvollziehen}", fNeed),
	suppress("{queria|quiero|queriamos|quisiera} {ver|saber|entender} como lo {hacen|haceis|montais|montan|organizais|organizan|gestionais|gestionan|llevais|llevan}", fNeed),
	suppress("{queria|quero|queriamos|gostaria de} {ver|saber|entender|perceber} como {voces|vcs} {fazem|trabalham|montam|organizam|gerem}", fNeed),
	suppress("{je voulais|je veux|je voudrais} {voir|savoir|comprendre} comment vous {faites|travaillez}", fNeed),
	suppress("{wanted to|want to|would like to} {see|know|understand|learn} how you {do it|guys do it|run it|run things|do things|handle it}", fNeed),
	suppress("{ich wollte|ich will|wir wollten|ich mochte} {sehen|wissen|verstehen} wie {ihr|sie} das {macht|machen|handhabt|handhaben}", fNeed),
	r("competitor", "{hum bhi|hum log bhi|humari bhi|hamari bhi} .. {chalate|banate|bechte|offer karte|provide karte|run karte|bana rahe}", o(fCompetitor, 100)),
	r("competitor", "{hum bhi|hum log bhi} _ .. {chalate|banate|bechte|offer karte|provide karte|run karte|bana rahe}", o(fCompetitor, 100)),
	// Surveying the market, a rival's own words for it: "mache etwas
	// Marktrecherche", "einen Marktüberblick verschaffen",
	// "estou só a fazer benchmark", "un estudio de mercado" (a buyer's
	// "bas market samajh raha hu" is browsing, not this).
	r("competitor", "{marktrecherche|marktforschung|marktuberblick|marktanalyse|estudio de mercado|investigacion de mercado|sondeo de mercado|pesquisa de mercado|estudo de mercado|fazer benchmark|fazendo benchmark|a fazer benchmark|etude de marche|etude du marche|faire un benchmark|fais un benchmark}", o(fCompetitor, 100)),
	r("fishing for business data", "{aapka|aapke|aapki|apka|apke|apki|tumhara|tumhare} .. {margin|margins|tech stack|top clients|client list|revenue|commission|contract rate|supplier|suppliers|vendors|conversion rate}", o(fFishing, 100)),
	r("fishing for business data", "{kaunsa|konsa|kaun sa|kon sa|kaun kaun} .. {tech stack|software|llm|model|supplier|vendor|clients}", o(fFishing, 100)),
	r("fishing for business data", "{vos marges|votre marge|vos principaux clients|votre stack|stack technique|ihre marge|ihre margen|ihre grossten kunden|ihr tech stack|sus margenes|su margen|sus principales clientes|sus mayores clientes|suas margens|sua margem|seus principais clientes|seus maiores clientes}", o(fFishing, 100)),
	// Idle chat: boredom, jokes, small talk with no product in it.
	r("no intent", "{just bored|i am bored|tell me a joke|tell a joke|mir ist langweilig|mir ist nur langweilig|erzahl mal .. witz|erzahl .. witz|einen witz|je me ennuie|raconte moi une blague|une blague|estoy aburrido|estoy aburrida|cuentame un chiste|un chiste|to entediado|estou entediado|estou entediada|me conta uma piada|uma piada|bore ho raha|bore ho rahi|joke sunao|ek joke}", o(fNoIntent, 100)).native(),
}

// injectionRules are instructions to the scorer or the bot. A sentence
// holding one is not evidence of anything else, and a conversation of
// nothing but such attempts has no buying intent.
var injectionRules = []rule{
	r("instruction to the scorer", "ignore|disregard|forget|override|bypass {all|any|the|your|previous|prior|above|earlier|these|those|system|} {previous|prior|above|earlier|} instructions|instruction|prompt|prompts|rules|guidelines|programming", o(fInjection, 100)).native(),
	r("instruction to the scorer", "{system prompt|developer mode|jailbreak|you are now|act as a|act as an|pretend to be|pretend you are|new instructions|from now on you}", o(fInjection, 100)).native(),
	r("instruction to the scorer", "{mark|classify|rate|score|label|qualify|categorise|categorize} {me|this lead|this conversation|this chat|this visitor|my lead|the lead} {as|at|a} .. {sql|mql|hot|qualified|100|sales ready|sales qualified}", o(fInjection, 100)).native(),
	r("instruction to the scorer", "{lead score|my score|the score|lead status|qualification score} {to|of|should be|must be|is} .. {100|sql|hot|high|maximum|max|qualified}", o(fInjection, 100)).native(),
	r("instruction to the scorer", "{modo desarrollador|modo desenvolvedor|mode developpeur|entwicklermodus|prompt del sistema|prompt do sistema|prompt systeme|tu prompt|seu prompt|ton prompt|dein prompt|systemprompt|que reglas te han dado|que modelo eres|qual modelo voce e|quel modele es tu|welches modell bist du|repite tu prompt|muestrame los datos|datos de los ultimos clientes|dados dos ultimos clientes|reveal your|show me your prompt|repeat your prompt|your instructions}", o(fInjection, 100)).native(),
	r("instruction to the scorer", "{ignora|ignore|ignorez|ignoriere|olvida|esquece|oublie|oubliez|vergiss} .. {instrucciones|instrucoes|instructions|anweisungen|reglas|regras|regles|regeln}", o(fInjection, 100)).native(),
	r("instruction to the scorer", "{marca|marcame|clasifica|califica|calificame|marque|classifique|qualifique|classez|marquez|considerez|classe|classer|classe moi|markiere|stufe|bewerte|mark karo|mark kar do} .. {sql|mql|caliente|quente|chaud|qualifie|qualifiziert|hot lead|heissen|heisser|heisse|cliente calificado|lead qualificado|lead quente}", o(fInjection, 100)).native(),
	r("instruction to the scorer", "{sql|mql|hot lead|qualified lead|qualified} .. {mark karo|mark kar do|mark kijiye|mark karna|bana do|likh do|classify karo|daal do}", o(fInjection, 100)).native(),
	r("instruction to the scorer", "{instructions|instruction|rules|prompt|niyam} .. {ignore karo|ignore kar do|ignore kijiye|bhool jao|bhul jao}", o(fInjection, 100)).native(),
}

// intlRules is every rule of this file.
var intlRules = concat(intlBudgetRules, intlAuthorityRules, intlNeedRules, intlTimelineRules, intlIntentRules,
	evalRules, fitRules, supportRules, disqualifierIntlRules, injectionRules, conceptRules)
