package intake

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/transcript"
)

// Speech is what the configured speech engine transcribes, so that an
// upload refuses a call it could not transcribe instead of failing it
// minutes later. API processes must be configured as the workers are.
type Speech struct {
	// Engine names the engine (ASR_ENGINE); "" when none is configured:
	// calls are then accepted and wait for a worker that has one.
	Engine string `json:"engine" doc:"The speech engine calls are transcribed with (ASR_ENGINE); empty when none is configured and calls wait for one" example:"pocketsphinx"`
	// Languages are the primary subtags of the languages it transcribes,
	// in order of preference; none means any (the server detects it).
	Languages []string `json:"languages" nullable:"false" doc:"The languages it transcribes (primary BCP 47 subtags); empty means any language" example:"[\"en\"]"`
}

// speaks reports whether calls in lang can be transcribed.
func (s Speech) speaks(lang string) bool {
	return s.Engine == "" || len(s.Languages) == 0 || slices.Contains(s.Languages, transcript.PrimaryLanguage(lang))
}

// callLanguage is the language a new call called file is transcribed in:
// asked, the language the upload gives, else the language of the campaign
// called campaign, campaignLang; either way one the engine speaks. A call
// is never transcribed in a language nobody asked for: a Spanish call on
// an English engine comes out as English nonsense, audited with
// confidence. A language the engine lacks is an Invalid error that names
// it, says where it came from and how to configure an engine that speaks
// it.
//
// A call uploaded without a language in a campaign that lets the server
// detect it (detect) has none ("") when the engine transcribes any
// language: the speech server is sent none, and the language it hears is
// recorded once transcribed. Asked for by the campaign, it is no language
// nobody asked for; an engine restricted to some languages (ASR_LANGUAGES)
// is not left to detect, since it could hear one it does not transcribe.
func (s Speech) callLanguage(file, asked, campaign, campaignLang string, detect bool) (string, error) {
	if asked == "" && detect && s.detects() {
		return "", nil
	}
	lang := cmp.Or(asked, campaignLang)
	if s.speaks(lang) {
		return lang, nil
	}
	remedy := "have the workers and API use an engine that speaks it: ASR_ENGINE=openai with ASR_BASE_URL " +
		"and ASR_MODEL (Whisper speaks about a hundred languages), see docs/engines.md"
	if s.Engine == "openai" {
		remedy = fmt.Sprintf("add %s to ASR_LANGUAGES (or leave it unset for any language) if the speech server "+
			"transcribes it, see docs/engines.md", transcript.PrimaryLanguage(lang))
	}
	details := map[string]any{"file": file, "field": "body.language", "language": lang, "speech_languages": s.Languages}
	if asked == "" {
		details["campaign"] = campaign
		return "", errcode.New(errcode.Invalid, "the call %q was uploaded with no language, so it takes its campaign's "+
			"(%q): %s, which the speech engine (%s) does not transcribe: it transcribes %s. Upload it with the language "+
			"it is spoken in (language=%s if it is in %s), or %s", file, campaign, languageName(lang), s.Engine,
			s.describe(), s.Languages[0], languageName(s.Languages[0]), remedy).With(details)
	}
	return "", errcode.New(errcode.Invalid, "the call %q is in %s, which the speech engine (%s) does not transcribe: "+
		"it transcribes %s. Upload it with the language it is spoken in, or %s", file, languageName(asked), s.Engine,
		s.describe(), remedy).With(details)
}

// detects reports whether the engine detects a call's language: an
// OpenAI-compatible server that transcribes any language.
func (s Speech) detects() bool { return s.Engine == "openai" && len(s.Languages) == 0 }

// String says, in English, what calls are transcribed with and in which
// languages, for the command line and the log.
func (s Speech) String() string {
	switch {
	case s.Engine == "":
		return "no speech engine is configured (ASR_ENGINE=none): calls wait for a worker that has one"
	case len(s.Languages) == 0:
		return fmt.Sprintf("calls are transcribed by %s in any language (the server detects it)", s.Engine)
	}
	return fmt.Sprintf("calls are transcribed by %s in %s", s.Engine, s.describe())
}

// describe names the languages the engine transcribes, in English.
func (s Speech) describe() string {
	names := make([]string, len(s.Languages))
	for i, l := range s.Languages {
		names[i] = languageName(l)
	}
	return strings.Join(names, ", ")
}

// languageName is tag's language in English followed by tag, such as
// "Spanish (es-MX)"; tag alone when unknown.
func languageName(tag string) string {
	t, err := language.Parse(tag)
	if err != nil {
		return tag
	}
	base, _ := t.Base()
	if name := display.English.Languages().Name(base); name != "" {
		return fmt.Sprintf("%s (%s)", name, tag)
	}
	return tag
}
