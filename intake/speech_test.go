package intake

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/errcode"
)

func TestCallLanguage(t *testing.T) {
	t.Parallel()
	offline := Speech{Engine: "pocketsphinx", Languages: []string{"en"}}
	whisper := Speech{Engine: "openai"}
	listed := Speech{Engine: "openai", Languages: []string{"fr", "en"}}
	none := Speech{}
	for _, c := range []struct {
		speech          Speech
		asked, campaign string
		detect          bool
		want            string
	}{
		{offline, "", "en-US", false, "en-US"},
		{offline, "en-GB", "es", false, "en-GB"},
		{whisper, "", "es", false, "es"},
		{whisper, "pt-BR", "es", false, "pt-BR"},
		{listed, "", "en", false, "en"},
		{listed, "EN_us", "es", false, "EN_us"},
		{none, "", "es", false, "es"},
		{none, "de", "es", false, "de"},
		// A campaign that lets the server detect it: none is sent, when
		// the engine detects any language; else the campaign's.
		{whisper, "", "es", true, ""},
		{whisper, "pt-BR", "es", true, "pt-BR"},
		{listed, "", "en", true, "en"},
		{offline, "", "en", true, "en"},
		{none, "", "es", true, "es"},
	} {
		got, err := c.speech.callLanguage("call.wav", c.asked, "default", c.campaign, c.detect)
		require.NoError(t, err, c)
		require.Equal(t, c.want, got, c)
	}

	_, err := listed.callLanguage("llamada.mp3", "es-AR", "default", "es", false)
	require.True(t, errcode.Is(err, errcode.Invalid))
	require.EqualError(t, err, `the call "llamada.mp3" is in Spanish (es-AR), which the speech engine (openai) does not transcribe: `+
		"it transcribes French (fr), English (en). Upload it with the language it is spoken in, or add es to ASR_LANGUAGES "+
		"(or leave it unset for any language) if the speech server transcribes it, see docs/engines.md")
	_, err = offline.callLanguage("x.wav", "xx-YY", "default", "es", false)
	require.ErrorContains(t, err, `the call "x.wav" is in xx-YY, which`)
	require.ErrorContains(t, err, "or have the workers and API use an engine that speaks it: ASR_ENGINE=openai with ASR_BASE_URL")

	// No language: the campaign's, which the engine must speak too, never
	// the engine's own in its place.
	_, err = offline.callLanguage("llamada.wav", "", "ventas", "es", false)
	require.True(t, errcode.Is(err, errcode.Invalid))
	require.EqualError(t, err, `the call "llamada.wav" was uploaded with no language, so it takes its campaign's ("ventas"): `+
		"Spanish (es), which the speech engine (pocketsphinx) does not transcribe: it transcribes English (en). Upload it with "+
		"the language it is spoken in (language=en if it is in English (en)), or have the workers and API use an engine that "+
		"speaks it: ASR_ENGINE=openai with ASR_BASE_URL and ASR_MODEL (Whisper speaks about a hundred languages), see docs/engines.md")
	require.Equal(t, map[string]any{"file": "llamada.wav", "field": "body.language", "language": "es", "campaign": "ventas",
		"speech_languages": []string{"en"}}, err.(*errcode.Error).Details)
	_, err = listed.callLanguage("call.mp3", "", "default", "es-MX", false)
	require.ErrorContains(t, err, "Spanish (es-MX), which the speech engine (openai) does not transcribe: it transcribes French (fr), English (en)")
	require.ErrorContains(t, err, "(language=fr if it is in French (fr)), or add es to ASR_LANGUAGES")

	require.Equal(t, "calls are transcribed by pocketsphinx in English (en)", offline.String())
	require.Equal(t, "calls are transcribed by openai in any language (the server detects it)", whisper.String())
	require.Equal(t, "no speech engine is configured (ASR_ENGINE=none): calls wait for a worker that has one", none.String())
}
