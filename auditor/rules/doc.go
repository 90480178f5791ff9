// Package rules is the "rules" auditor engine (AUDITOR_ENGINE=rules): each
// criterion of a scorecard carries a phrase rule, and the engine judges a
// transcript against it, explaining which words it found (or missed) and
// where, how it decided, and how sure it is. This documentation is the
// reference of the rule language.
//
// # Rules
//
// A rule is a JSON object:
//
//	{
//	  "any":  ["buenos días", "good morning"],         // at least one is said
//	  "all":  ["gracias", ["dni", "date of birth"]],   // each item is said: a phrase, or one of a list
//	  "none": ["no es mi problema"],                   // none is said
//	  "speaker": "agent",                              // agent | customer | any (default any)
//	  "within_first": 30, "within_last": 60,           // seconds, for calls with timed segments
//	  "within_first_turns": 3, "within_last_turns": 4, // turns of anyone, for chats (and untimed calls)
//	  "within_first_own_turns": 2,                     // the speaker's own first turns (chats and calls)
//	  "within_last_own_turns": 3,                      // the speaker's own last turns (chats and calls)
//	  "after_customer_turns": 1,                       // only after the customer's first turn
//	  "applies_if": ["my account", "mi pedido"],       // not applicable when none is said,
//	  "applies_if_speaker": "customer",                // … by this speaker (default any), negated or not
//	  "applies_if_own": ["i can see your booking"],    // … or one of these by the rule's own speaker
//	  "before": ["i've moved your"],                   // any/all count only when said before one of these
//	  "against": ["someone will be in touch"],         // one said makes it not met, even with any said,
//	  "unless": ["{timeframe}", "{ref}"],              // … unless its turn also says one of these
//	  "pressed": ["but when"],                         // the other party, after what met it, puts it in doubt
//	  "restates": ["so you're", "quieres"],            // a sentence with one that repeats the other party meets any
//	  "settled": ["thanks", "eso era todo"],           // the other party's last turns: a hint that any is met
//	  "hints": ["as i said"],                          // weak signals, see Confidence
//	  "cues": ["well", "honestly", "people"],          // weaker: cues_together of them in one turn are a hint
//	  "cues_together": 2,                              // 2 to 10 (default 2)
//	  "replies": ["how rude"],                         // the other party's reply to a turn: a hint about it
//	  "reply_cues": ["unbelievable"],                  // … a cue of the turn it answers
//	  "unprompted": ["jaja*", "lol", "😂"],             // a hint when the other party had said none before
//	  "tone": {"model": "respect", "fails_at": 0.8, "review_at": 0.6}, // a trained model scores the turns, see Tone
//	                                                   // (with any: {"model": "empathy", "review_at": 0.5, "meets_at": 0.8})
//	  "negation": true,                                // a negated phrase does not count (default)
//	  "exact": false,                                  // true: no tolerance for misspellings
//	  "absence_confidence": 0.8, "not_applicable_confidence": 0.7, "hint_confidence": 0.6
//	}
//
// At least one of any, all and none is required (but in a channels rule:
// see Channels); unknown keys, empty lists,
// phrases without words, bad phrase syntax, windows that are not positive
// and confidences outside 0..1 are errors, each reported with its field
// (rule.any[2]) and what is wrong (CheckRule reports them all, so a
// scorecard is refused at publication with every problem listed). A
// criterion is met when every condition given holds within the scope:
// segments of the speaker (segments whose speaker is unknown, as in a mono
// recording, count for every speaker) and inside the positions. Windows in
// seconds apply to calls whose segments all have start times; windows in
// anyone's turns to everything else (chats, whose pace is not comparable
// to speech), so a rule may carry both and serve calls and chats. Windows
// in the speaker's own turns apply to both (in a 40-second call, the last
// 60 seconds are the whole call; the agent's last two turns are not), and
// so does after_customer_turns: "after the customer states the problem".
//
// Order and opposites: with before, what any and all look for counts only
// when the speaker says it before first saying one of before's phrases:
// verification asked before the agent acts on the account ("I've moved
// your payment date", «ya le cambié la dirección»); asked afterwards it is
// too late, and the verdict is not met, quoting both. With applies_if, one
// of before's phrases also makes the criterion apply (acting on an account
// is dealing with it). against lists what says the opposite of any: a
// vague promise or a refusal ("someone will be in touch", «no hay nada que
// pueda hacer») makes the criterion not met even when a phrase of any was
// said, unless the same turn says one of unless ("… within 48 hours",
// "reference INC-4432"). Rules with before or unless name their speaker.
//
// Restating and settling: a speaker may meet an "any" criterion without
// its words by restating what the other party has just said, the active
// listening an empathy criterion asks for: a sentence of the speaker, in
// scope, that says one of restates ("so you're…", «entonces…»,
// «querés…») and repeats at least two of the other party's words from
// their turns right before (words of five letters or more, or with a
// digit; the phrase's own words aside), as in "So a camper and the dog on
// Rosslare–Cherbourg in August" after "a camper and a dog … Rosslare to
// Cherbourg … August". The verdict is met, quoting the sentence, and is
// calibrated apart (SignalRestated). settled lists what the other party
// says, in their last two turns, when the interaction ends settled
// ("perfect, thanks", «no, eso era todo»), negated or not: with nothing
// of any said, one is a hint that the criterion is met (see Confidence;
// SignalSettled), since a customer who ends thanking was more often helped
// in words the rule does not know. It is named in the explanation, not
// quoted as evidence: evidence is the speaker's own words. Rules with
// restates or settled name their speaker and have any.
//
// # Phrases
//
// A phrase is words said in order, by one speaker, within one stretch of
// that speaker's consecutive turns:
//
//	thank you for calling      plain words
//	refund*                    a wildcard: any word starting with "refund" (a stem of 3 letters or more)
//	le|te atiende              alternatives for one word
//	(ha quedado|han) registrado  a group: alternatives of one or more words, in
//	                           parentheses; the phrase stands for each ("ha quedado
//	                           registrado", "han registrado"), at most 64 in all;
//	                           groups do not nest
//	=idiota                    this word exactly: no tolerance for misspellings ("idioma" is not it)
//	referencia {ref}           a slot: something of a kind rather than given words
//	refund NEAR/5 {amount}     both, within 5 words of each other, in either order
//	call BEFORE/6 record*      the first, then the second within 6 words
//
// Slots recognise, in the words as they were written:
//
//	{ref}         a reference code: INC-4432, RF/2201, AB12CD34, #88231, 00451 (five digits or more)
//	{amount}      money: 49,99 €, $1,250, £49.99, 20 euros, USD 40, 49.99
//	{timeframe}   when: en 48 horas, within 3 to 5 working days, an hour, 24-48h, mañana antes de
//	              las 12, by Friday, el viernes, next week, esta tarde, end of the day, a date
//	{date}        a calendar date: 15 de marzo, March 15th, 15/03/2026, 2026-03-15
//	{name}        a given name: a known first name, or a capitalised word inside a sentence
//	{agent_name}  the agent's name as the chat's speaker labels give it ("Agente Lucía", or a bare
//	              "Connor" opposite "Customer"); nothing when no label names the agent
//	{number}      a number in digits
//
// A term (the words between operators) has at most 31 items. Operators are
// upper case, so "near" and "before" remain words; a chain such as
// "a NEAR/3 b NEAR/3 c" joins each term to what came before.
//
// # Matching
//
// Transcript and phrases are compared as sequences of normalised words:
// case folded, accents removed, punctuation ignored ("¿Algo más?" is "algo
// mas"), apostrophes joined ("don't" is "dont"), and a pictograph is a
// word of its own ("🙄"). A phrase word of 6 to 8
// letters matches a word within 1 edit (insertion, deletion, substitution
// or transposition of adjacent letters: "gracais" is "gracias"), of 9
// letters or more within 2; shorter words ("diga" is not "día"), =words and the words of an
// "exact" rule must match exactly. One inserted word may stand before each
// word of a phrase ("buenos eh días"), but never a negation ("I don't
// understand" is not "I understand"), never before a name ("soy de
// Movistar" is not "soy {name}"), never before an =word ("es un
// =pesado" is not "es un trámite pesado") and never across the end of a
// sentence ("Se puede. Lo busco" is not «se lo buscó»).
//
// A negation ("no", "not", "never", "can't", "nunca", "tampoco"…) among the
// four words before a phrase, in its clause, undoes it: "no puedo
// ayudarle" is not an offer of help, "I can't help you with anything
// else" is not one either, "there are no stupid questions" is not an
// insult. Punctuation and "but"/"pero" end a clause, and so does a phrase
// that starts with a first-person subject ("not good, I'm sorry" is an
// apology even unpunctuated). A "no" that is a courtesy of its own ("no
// problem", "no worries", «no pasa nada») negates nothing after it ("no
// worries cheers" is a farewell). A phrase that starts with a negation
// ("no es mi problema") is said as written.
//
// Words inside double quotation marks ("…", “…”, «…», „…“) that close
// in the same turn are someone else's words, quoted: a phrase found only
// there is not said ("being told «no es mi problema» is not acceptable"
// is an apology, not a brush-off). Single quotes are also apostrophes and
// do not quote.
//
// Speech has no quotation marks, so what a speaker reports someone else
// saying does not count against them either, for none, hints and cues: a
// phrase that follows, within six words of its turn, a reporting word
// ("told", "said", "and I quote", «dijeron», «le dijo», «que le hayan
// respondido»), with no first-person subject between. Said by the speaker
// ("as I said", "I've already told you", «ya le dije», «ya le he
// contestado») the words are their own.
//
// The scorecard's phrases are indexed once (New); an audit then costs time
// roughly linear in the transcript's length.
//
// # Confidence
//
// Every verdict says how it was reached (scoring.Assessment):
//
//   - evidence: what decides it was said, and is quoted; confidence 0.95,
//     or 0.85 when the words said differ from the phrase (a misspelling, an
//     inserted word).
//   - absence: nothing the rule looks for was said; confidence
//     absence_confidence (default 0.7). A criterion found not applicable
//     (applies_if) is met as not applicable (scoring.Verdict.NotApplicable:
//     its weight leaves the score) with not_applicable_confidence (default 0.7).
//   - conflict: signals point both ways: a phrase said but negated, or said
//     outside the positions where it counts (confidence 0.6); or, when
//     nothing decisive was said, a hint, which turns the verdict absence
//     would give (met for "none", not met for "any"/"all") with
//     hint_confidence (default 0.6). Cues are weaker signs of tone, none
//     telling on its own: cues_together different cues said in one turn
//     ("well", "honestly" and "people" in one reply) act as one hint.
//     What the other party says back tells on a turn too: a reply ("how
//     rude", "no me hable así") said in the turn right after a turn in
//     scope is a hint about it, and a reply cue ("unbelievable",
//     "increíble") counts as one of the cues of the turn it answers (at
//     most one per turn: "Well, that's how it works." answered
//     "Unbelievable." is two cues). Some signs tell only when they answer
//     nothing like themselves: an unprompted phrase is a hint when the
//     other party had said none of the unprompted phrases before it (an
//     agent who laughs, "jaja", "lol", "😂", at a customer who had not
//     laughed laughs at them, not with them; once the customer has
//     laughed, laughter is shared, and no cue either); no negation undoes
//     one ("no son suyas jeje"). Rules with replies or
//     unprompted phrases name their speaker.
//
// Those figures are the rule's own, its prior. Audit replaces them, for the
// criteria of a scorecard the embedded calibration table has counted, by
// the estimated probability that an analyst agrees with the verdict (see
// Calibration): how often analysts agreed with verdicts of the same cell on
// the development set (eval/cases/dev). A cell is the criterion (its id and
// its rule's fingerprint: the same id with other rules is another
// criterion), what decided the verdict (a Signal: not applicable, a phrase
// or a violation said as written or loosely, a conflict, absence, a hint,
// hints in several turns, a reply, an unprompted phrase, cues, the tone
// model), whether it is met, then the interaction's language, its kind,
// and the phrase that decided it. Each is smoothed toward the wider cell
// around it (Calibration.Strength verdicts' worth), so a phrase seen three
// times, all agreed, stays near its criterion's figure instead of giving
// 1. The table is fitted by `go run ./cmd/auditeval -fit`, never by hand;
// package eval's tests fail when it is not the one the set and the rules
// give. A campaign's own criteria, and default ones it has edited, keep
// their rule's figures. The tone model's score is not a feature: the model
// is trained on the development set, so its score there says more than it
// would on interactions it never saw.
//
// # Tone
//
// Phrases find rudeness worded as the lexicon words it; a writer's own
// words slip past ("reckon we'll both live through it"). A rule with
// "none" may also name a trained model of package tone, which scores each
// of the speaker's turns in scope from 0 to 1 (how disrespectful it
// reads: the whole turn or its most telling sentence, whichever is
// higher; quoted words left out, and so are the words the speaker
// reports someone else saying, as for phrases: "they answered not our
// problem"; turns of fewer than three words are not judged):
//
//	"tone": {"model": "respect", "fails_at": 0.75, "review_at": 0.55}
//
// model names an embedded model ("respect": an agent's disrespect, trained
// on Spanish and English lines by cmd/traintone); fails_at (above 0, at
// most 1) is the score from which a turn fails the criterion; review_at
// (optional, not above fails_at; by default fails_at) the score from
// which it is a conflict. The rule's speaker must be named. The model is
// asked only when no phrase of none was said and the verdict would be
// met: a turn at or above fails_at makes it not met, a turn at or above
// review_at leaves it met; either way the basis is conflict, the
// confidence hint_confidence (so an analyst confirms), and the
// explanation quotes the turn's most telling sentence with its score and
// the pairs of words that weighed most ("The agent's turn 5 reads as
// disrespectful (0.97, mostly "read the", "if you"): "If you had read the
// instructions…""). Errors name the field (rule.tone.fails_at).
//
// A rule with "any" (and no "none") may name a model of its class the
// other way round: phrases find empathy worded as the lists word it, and
// a writer's own acknowledgement ("smart to get in early!", «se va rápido
// el presupuesto») slips past. The model is asked only when nothing of any
// was said and nothing else turned the verdict (a hint, a reply, restating
// or settling):
//
//	"tone": {"model": "empathy", "review_at": 0.5, "meets_at": 0.8}
//
// model names an embedded model ("empathy": an agent's acknowledging the
// customer's situation or restating it, trained on the development cases'
// agent turns the empathy labels quote, by cmd/traintone); review_at
// (required) is the score from which a turn puts the absence in doubt: the
// verdict stays not met, a conflict ("The tone model reads the agent's
// turn 3 as possibly meeting it (0.62, …)"); meets_at (optional, not below
// review_at; without it, never) the score from which the turn meets the
// criterion. Either way the basis is conflict, the confidence
// hint_confidence, the turn is the evidence, and the calibration table
// counts the verdict apart (SignalTone).
//
// # Channels
//
// A call's audio tells who spoke when without a word recognised
// (transcript.Channels, measured by package talk). A rule may instead
// judge those figures, with "channels" as its only key, an object of
// limits every one of which must hold:
//
//	{"channels": {"max_silence_seconds": 30}}    // no silence longer than 30 s
//	{"channels": {"max_agent_talk_ratio": 0.7}}  // the agent talks at most 70 % of the talk
//
// The limits: max_silence_seconds (the longest stretch in which nobody
// spoke), max_silence_share (the share of the call in which nobody spoke,
// 0 to 1), max_agent_talk_ratio and min_agent_talk_ratio (the agent's
// talk time over both sides', 0 to 1; min not above max),
// max_overtalk_seconds (the total of the stretches in which both sides
// spoke) and max_hold_seconds (the longest hold). Seconds are above 0 and
// at most a day. Errors name the field (rule.channels.max_agent_talk_ratio)
// and what it takes.
//
// The verdict's basis is evidence and its confidence that of a phrase said
// as written (0.95): a measured figure is as deterministic as words found.
// A figure within the measurement's margin of its limit (1 s, or 0.02 of
// a share: a frame at each edge of a stretch, a pause bridged or not) is a
// conflict of confidence 0.6, for an analyst to confirm. A figure not
// measured (a chat, a call not analysed, or a per-side figure of a mono
// call) is met with basis absence and confidence 0.5, never guessed: an
// analyst judges it. The explanation gives each figure against its limit,
// and where the longest stretch was ("The longest silence was 34 s
// (01:02–01:36): not within the at most 30 s allowed."); there is nothing
// said to quote as evidence.
//
// Verdicts below the service's review threshold (AUDIT_REVIEW_CONFIDENCE)
// are marked for an analyst's review, and the hybrid engine asks a
// language model about them.
package rules
