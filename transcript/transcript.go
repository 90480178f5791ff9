// Package transcript is the one form every interaction takes once its words
// are known: a call after transcription, a chat at intake. The auditors
// read only this form.
package transcript

import "strings"

// Speakers of a segment. Chats keep the participant's own label in
// Segment.Name; Speaker is always one of these.
const (
	Agent    = "agent"
	Customer = "customer"
	Unknown  = "unknown"
)

// Segment is one utterance. Times are seconds from the start of the
// recording; chat turns may have none.
type Segment struct {
	Start   *float64 `json:"start,omitempty"`
	End     *float64 `json:"end,omitempty"`
	Speaker string   `json:"speaker" enum:"agent,customer,unknown"`
	// Name is the participant's label as the source gave it ("Cliente", "Ana").
	Name string `json:"name,omitempty"`
	Text string `json:"text"`
	// Quality is how sure the speech engine was of the segment's words,
	// from 0 to 1 (see the engines in workers/asr); nil for chats and
	// engines that give no such signal.
	Quality *float64 `json:"quality,omitempty" minimum:"0" maximum:"1" doc:"How sure the speech engine was of the segment's words, from 0 to 1 (PocketSphinx: the mean of its words' posteriors; an OpenAI-compatible server: exp(avg_logprob) × (1 − no_speech_prob)); absent for chats and engines without that signal"`
}

// Transcript is the text of an interaction with its timed, attributed segments.
type Transcript struct {
	Text     string    `json:"text"`
	Segments []Segment `json:"segments"`
	// Engine names what produced it: "pocketsphinx", "openai:<model>", "chat".
	Engine string `json:"engine"`
	// Language is a BCP 47 tag such as "en" or "es", when known.
	Language string `json:"language,omitempty"`
	// Quality is how far a call's words can be trusted (Assess); nil for
	// chats and transcripts stored before it was measured.
	Quality *Quality `json:"quality,omitempty"`
	// Channels is what a call's audio tells of who spoke when, stored
	// apart from the words (package db reads it with them) for the
	// engines' channels rules; nil for chats and calls not analysed.
	Channels *Channels `json:"-"`
}

// PrimaryLanguage returns the language subtag of a BCP 47 tag, lower case:
// "es" for "es-MX".
func PrimaryLanguage(tag string) string {
	lang, _, _ := strings.Cut(strings.ReplaceAll(tag, "_", "-"), "-")
	return strings.ToLower(strings.TrimSpace(lang))
}
