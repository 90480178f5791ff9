// Package rules is the "rules" auditor engine (AUDITOR_ENGINE=rules): each
// criterion of a scorecard carries a phrase rule, and the engine judges a
// transcript against it, explaining which words it found (or missed) and
// where.
//
// # Rule syntax
//
// A rule is a JSON object:
//
//	{
//	  "any":  ["buenos días", "good morning"],         // at least one is said
//	  "all":  ["gracias", ["dni", "date of birth"]],   // each item is said: a phrase, or one of a list
//	  "none": ["no es mi problema"],                   // none is said
//	  "speaker": "agent",                              // agent | customer | any (default any)
//	  "within_first": 30, "within_last": 60,           // seconds, for calls with timed segments
//	  "within_first_turns": 3, "within_last_turns": 4, // turns, for chats (and untimed calls)
//	  "exact": false                                   // true: no tolerance for misspellings
//	}
//
// At least one of any, all and none is required; unknown keys, empty lists,
// phrases without words and windows that are not positive are errors
// (CheckRule reports them all). A criterion complies when every condition
// given holds within the scope: segments of the speaker (segments whose
// speaker is unknown, as in a mono recording, count for every speaker) and
// inside the windows. Windows in seconds apply to calls whose segments all
// have start times, windows in turns to everything else (chats, whose pace
// is not comparable to speech); a rule may carry both so one criterion
// serves calls and chats. Both bounds of a kind apply together.
//
// # Matching
//
// Transcript and phrases are compared as sequences of normalised words:
// case folded, accents removed, punctuation ignored ("¿Algo más?" is "algo
// mas"). A phrase word of 4 to 7 letters matches a word within 1 edit
// (insertion, deletion, substitution or transposition of adjacent letters:
// "gracais" is "gracias"), of 8 letters or more within 2; shorter words
// must match exactly. A phrase matches its words in order inside one
// speaker's stretch of consecutive segments, with at most one inserted word
// before each ("buenos eh días"). The scorecard's phrases are indexed once
// (New); an audit then costs time roughly linear in the transcript's length.
package rules
