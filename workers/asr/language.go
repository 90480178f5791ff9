package asr

import (
	"strings"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// languageCode returns the BCP 47 tag of a language a transcription server
// detected: servers answer with an ISO 639 code ("es") or, as OpenAI and
// Whisper do, an English name ("spanish"). It returns "" for anything else.
func languageCode(said string) string {
	said = strings.ToLower(strings.TrimSpace(said))
	if isLanguageCode(said) {
		if _, err := language.ParseBase(said); err == nil {
			return said
		}
		return ""
	}
	return languageNames()[said]
}

// languageNames maps the English names of languages (lower-case) to their
// two-letter codes, with the other names Whisper answers with.
var languageNames = sync.OnceValue(func() map[string]string {
	names := map[string]string{"castilian": "es", "valencian": "ca", "flemish": "nl", "haitian": "ht",
		"letzeburgesch": "lb", "pushto": "ps", "panjabi": "pa", "moldavian": "ro", "moldovan": "ro", "sinhalese": "si",
		"mandarin": "zh", "myanmar": "my", "cantonese": "yue", "hawaiian": "haw", "javanese": "jv", "nynorsk": "nn"}
	namer := display.English.Languages()
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			code := string([]rune{a, b})
			base, err := language.ParseBase(code)
			if err != nil || base.String() != code {
				continue
			}
			if name := strings.ToLower(namer.Name(base)); name != "" {
				if _, taken := names[name]; !taken {
					names[name] = code
				}
			}
		}
	}
	return names
})
