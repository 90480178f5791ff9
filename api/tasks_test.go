package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/transcript"
	"github.com/auditd/auditd/workers"
)

// part is one part of a multipart upload: a file when name is set.
type part struct {
	field, name string
	content     []byte
}

func file(name string, content []byte) part {
	return part{field: "files", name: name, content: content}
}
func field(k, v string) part { return part{field: k, content: []byte(v)} }

func multipartBody(t testing.TB, parts ...part) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.name != "" {
			// Written by hand: CreateFormFile would escape the name we test.
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.field, p.name))
			h.Set("Content-Type", "application/octet-stream")
		} else {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p.field))
		}
		w, err := mw.CreatePart(h)
		require.NoError(t, err)
		_, err = w.Write(p.content)
		require.NoError(t, err)
	}
	require.NoError(t, mw.Close())
	return &buf, mw.FormDataContentType()
}

func (b *testBundle) upload(t *testing.T, token string, parts ...part) response {
	t.Helper()
	body, ct := multipartBody(t, parts...)
	return b.do(t, http.MethodPost, "/tasks/upload", token, body, "Content-Type", ct)
}

// uploaded returns the tasks of a successful upload response.
func uploaded(t *testing.T, r response) []map[string]any {
	t.Helper()
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
	require.Equal(t, true, r.Body["success"])
	require.Equal(t, "ACCEPTED", r.Body["code"])
	var out []map[string]any
	for _, v := range r.Body["details"].(map[string]any)["tasks"].([]any) {
		out = append(out, v.(map[string]any))
	}
	return out
}

// tone makes a recording of a sine at freq Hz with ffmpeg; other args
// choose the codec, name's extension the container.
func tone(t testing.TB, name string, freq, seconds int, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	src := fmt.Sprintf("sine=frequency=%d:duration=%d", freq, seconds)
	b, err := exec.Command("ffmpeg", append(append([]string{"-v", "error", "-f", "lavfi", "-i", src}, args...), out)...).CombinedOutput()
	require.NoError(t, err, string(b))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	return data
}

// blobs lists the keys stored in the bundle's blob directory.
func (b *testBundle) blobs(t *testing.T) []string {
	t.Helper()
	var keys []string
	require.NoError(t, filepath.WalkDir(b.blobDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".attrs") {
			return err
		}
		rel, err := filepath.Rel(b.blobDir, p)
		keys = append(keys, filepath.ToSlash(rel))
		return err
	}))
	return keys
}

func (b *testBundle) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), query, args...).Scan(&n))
	return n
}

// requireNothingStored checks that no task, job, event or blob exists.
func (b *testBundle) requireNothingStored(t *testing.T) {
	t.Helper()
	require.Zero(t, b.count(t, "SELECT count(*) FROM tasks"))
	require.Zero(t, b.count(t, "SELECT count(*) FROM river_job WHERE kind = 'transcribe'"))
	require.Zero(t, b.count(t, "SELECT count(*) FROM events"))
	require.Empty(t, b.blobs(t))
}

const chatJSON = `[{"speaker":"Agente","text":"Buenos días, le atiende Ana.","timestamp":"2024-05-02T10:00:00Z"},
{"speaker":"Cliente","text":"Hola, quiero cancelar.","timestamp":"2024-05-02T10:00:07Z"}]`

const chatText = "Agent: Thank you for calling.\nCustomer: Hi, my bill is wrong.\n"

var blobKey = regexp.MustCompile(`^uploads/\d{4}/\d{2}/\d{2}/[0-9a-f-]{36}$`)

func TestUploadCallsAndChats(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// The agent signs in once, so "ana" resolves to her user id.
	ana := b.issuer.claims("sub-ana")
	ana["preferred_username"] = "ana"
	ana["roles"] = []string{"operator"}
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", b.issuer.sign(t, ana), nil).Status)

	files := []struct {
		name, kind, contentType string
		content                 []byte
	}{
		{"call.wav", "call", "audio/wav", tone(t, "a.wav", 440, 1)},
		{"call.mp3", "call", "audio/mpeg", tone(t, "a.mp3", 450, 1, "-c:a", "libmp3lame")},
		{"call.ogg", "call", "audio/ogg", tone(t, "a.ogg", 460, 1, "-c:a", "libopus")},
		{"call.flac", "call", "audio/flac", tone(t, "a.flac", 470, 1)},
		{"call.m4a", "call", "audio/mp4", tone(t, "a.m4a", 480, 1, "-c:a", "aac")},
		{"call.webm", "call", "audio/webm", tone(t, "a.webm", 490, 1, "-c:a", "libopus")},
		{"chat.json", "chat", "application/json", []byte(chatJSON)},
		// A chat is recognised by its content, whatever its name.
		{"chat.log", "chat", "text/plain; charset=utf-8", []byte(chatText)},
	}
	parts := []part{field("campaign", "default"), field("operator", "ana"), field("direction", "inbound")}
	for _, f := range files {
		parts = append(parts, file(f.name, f.content))
	}
	parts = append(parts, field("language", "en"), field("started_at", "2024-05-02T10:00:00Z"), field("external_id", "crm-77"))
	quality := b.issuer.token(t, "qa", "quality")
	tasks := uploaded(t, b.upload(t, quality, parts...))
	require.Len(t, tasks, len(files))

	for i, f := range files {
		task := tasks[i]
		require.Equal(t, f.name, task["file_name"])
		require.Equal(t, f.kind, task["kind"], f.name)
		require.Equal(t, false, task["duplicate"])
		want := "queued"
		if f.kind == "chat" {
			want = "transcribed"
		}
		require.Equal(t, want, task["status"], f.name)

		r := b.do(t, http.MethodGet, "/tasks/"+task["uuid"].(string), quality, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		d := r.Body["details"].(map[string]any)
		require.Equal(t, f.contentType, d["content_type"], f.name)
		require.Equal(t, float64(len(f.content)), d["size_bytes"])
		require.Len(t, d["sha256"], 64)
		require.Equal(t, "default", d["campaign"])
		require.Equal(t, "sub-ana", d["operator_id"], "the username resolves to the user id")
		require.Equal(t, "en", d["language"])
		require.Equal(t, "inbound", d["direction"])
		require.Equal(t, "2024-05-02T10:00:00Z", d["started_at"])
		require.Equal(t, "crm-77", d["customer_ref"], "external_id is customer_ref's former name")
		require.Equal(t, "qa", d["uploaded_by"])
		history := d["history"].([]any)
		require.Len(t, history, 1)
		require.Equal(t, want, history[0].(map[string]any)["to"])
		if f.kind == "call" {
			// Measured at upload, whatever the format (a pipe's probe
			// tells none for WAV, MP3 and Ogg).
			require.InDelta(t, 1.0, d["duration_seconds"], 0.05, f.name)
			require.Equal(t, "/tasks/"+task["uuid"].(string)+"/audio", d["audio_url"])
			require.Nil(t, d["transcript"])
		} else {
			require.Nil(t, d["audio_url"])
			tr := d["transcript"].(map[string]any)
			require.Equal(t, "chat", tr["engine"])
			require.Equal(t, "en", tr["language"])
			segs := tr["segments"].([]any)
			require.Len(t, segs, 2)
			require.Equal(t, "agent", segs[0].(map[string]any)["speaker"])
			require.Equal(t, "customer", segs[1].(map[string]any)["speaker"])
		}
	}
	// Each call's transcription job was inserted with it, on the media queue.
	require.Equal(t, 6, b.count(t, `SELECT count(*) FROM river_job j JOIN tasks t ON t.uuid::text = j.args->>'task_uuid'
		WHERE j.kind = 'transcribe' AND j.queue = 'media' AND t.kind = 'call'`))
	// Each chat's audit job, likewise: chats skip transcription.
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM river_job j JOIN tasks t ON t.uuid::text = j.args->>'task_uuid'
		WHERE t.kind = 'chat' AND j.kind = 'audit'`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM river_job j JOIN tasks t ON t.uuid::text = j.args->>'task_uuid'
		WHERE t.kind = 'chat' AND j.kind <> 'audit'`))
	// Every task's creation is an event for its agent and for quality and above.
	require.Equal(t, len(files), b.count(t, `SELECT count(*) FROM events
		WHERE type = 'task.created' AND user_id = 'sub-ana' AND min_rank = 2 AND data->>'uuid' IS NOT NULL`))
	// One blob per file, under a generated key.
	keys := b.blobs(t)
	require.Len(t, keys, len(files))
	for _, k := range keys {
		require.Regexp(t, blobKey, k)
	}
}

func TestUploadRejects(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")
	fakeWAV := append([]byte("RIFF\x24\x00\x00\x00WAVEjunk"), bytes.Repeat([]byte{0x42}, 4096)...)
	wav := tone(t, "a.wav", 440, 1)

	cases := []struct {
		name   string
		parts  []part
		status int
		code   string
		// want appears in the message.
		want string
	}{
		{"image renamed .wav", []part{file("photo.wav", png)}, 415, CodeUnsupportedMediaType, `"photo.wav"`},
		{"wav header over garbage", []part{file("fake.wav", fakeWAV)}, 415, CodeUnsupportedMediaType, `"fake.wav"`},
		{"text that is no chat", []part{file("notes.txt", []byte("just some notes\nabout nothing"))}, 415, CodeUnsupportedMediaType, `"notes.txt"`},
		{"malformed chat json", []part{file("chat.json", []byte(`[{"speaker":"Agent"}]`))}, 415, CodeUnsupportedMediaType, `"chat.json"`},
		{"NUL in a chat's text", []part{file("chat.json", []byte(`[{"speaker":"Agent","text":"hi\u0000"}]`))}, 415, CodeUnsupportedMediaType, "NUL character"},
		{"no file", []part{field("campaign", "default")}, 400, CodeMissingFields, "no file"},
		{"empty form", nil, 400, CodeMissingFields, "no file"},
		{"unknown campaign", []part{field("campaign", "nope"), file("a.wav", wav)}, 400, CodeValidation, `"nope" does not exist`},
		{"bad direction", []part{file("a.wav", wav), field("direction", "sideways")}, 400, CodeValidation, "inbound or outbound"},
		{"bad started_at", []part{file("a.wav", wav), field("started_at", "yesterday")}, 400, CodeValidation, "RFC 3339"},
		{"bad language", []part{file("a.wav", wav), field("language", "español!")}, 400, CodeValidation, "BCP 47"},
		{"unknown field", []part{field("campain", "default"), file("a.wav", wav)}, 400, CodeValidation, `"campain"`},
		{"field twice", []part{field("operator", "a"), field("operator", "b"), file("a.wav", wav)}, 400, CodeValidation, "twice"},
		{"files without file name", []part{field("files", "x")}, 400, CodeValidation, "no file name"},
		{"NUL in the campaign", []part{field("campaign", "def\x00ault"), file("a.wav", wav)}, 400, CodeValidation, "control characters"},
		{"NUL in the operator", []part{file("a.wav", wav), field("operator", "ana\x00")}, 400, CodeValidation, "control characters"},
		{"newline in the external id", []part{file("a.wav", wav), field("external_id", "a\nb")}, 400, CodeValidation, "one line"},
		{"invalid UTF-8 in the operator", []part{file("a.wav", wav), field("operator", "ana\xff")}, 400, CodeValidation, "UTF-8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := b.upload(t, quality, tc.parts...)
			requireError(t, r, tc.status, tc.code)
			require.Contains(t, r.Body["message"], tc.want)
			// No tool's words reach the client: ffprobe's stderr names
			// heap addresses ("[mp3 @ 0x55d…]").
			require.NotRegexp(t, `@ 0x|0x[0-9a-f]{6,}|ffprobe|Invalid data`, r.RawBody)
			b.requireNothingStored(t)
		})
	}
	t.Run("not multipart", func(t *testing.T) {
		r := b.do(t, http.MethodPost, "/tasks/upload", quality, strings.NewReader(`files=a.wav`), "Content-Type", "application/x-www-form-urlencoded")
		requireError(t, r, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType)
		require.Contains(t, r.Body["message"], `or a recording's link as JSON {"url": …}`)
		// JSON is an upload by URL, whose fields are not the form's files.
		r = b.do(t, http.MethodPost, "/tasks/upload", quality, strings.NewReader(`{"files":[]}`), "Content-Type", "application/json")
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Equal(t, "body.files", detailsAt(r))
	})
	t.Run("operators cannot upload", func(t *testing.T) {
		body, ct := multipartBody(t, file("a.wav", wav))
		r := b.do(t, http.MethodPost, "/tasks/upload", b.issuer.token(t, "op", "operator"), body, "Content-Type", ct)
		requireError(t, r, http.StatusForbidden, CodeForbidden)
		b.requireNothingStored(t)
	})
	t.Run("no token", func(t *testing.T) {
		requireError(t, b.upload(t, "", file("a.wav", wav)), http.StatusUnauthorized, CodeMissingAuthHeader)
	})
}

func TestUploadRefusesACallInALanguageTheEngineLacks(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{client: ClientConfig{Speech: intake.Speech{Engine: "pocketsphinx", Languages: []string{"en"}}}})
	quality := b.issuer.token(t, "qa", "quality")

	// Asked for Spanish: refused, naming the file and the language, and
	// nothing is kept, not even the chat beside it.
	r := b.upload(t, quality, field("language", "es-MX"), file("notes.txt", []byte(chatText)),
		file("llamada.wav", tone(t, "a.wav", 440, 1)))
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.Body["message"], `the call "llamada.wav" is in Spanish (es-MX), which the speech engine (pocketsphinx) does not transcribe: it transcribes English (en)`)
	require.Contains(t, r.Body["message"], "ASR_ENGINE=openai")
	require.Equal(t, map[string]any{"file": "llamada.wav", "field": "body.language", "language": "es-MX",
		"speech_languages": []any{"en"}}, r.Body["details"])
	require.Zero(t, b.count(t, "SELECT count(*) FROM tasks"))
	require.Empty(t, b.blobs(t))

	// A chat in Spanish needs no speech engine.
	tasks := uploaded(t, b.upload(t, quality, field("language", "es"), file("notes.txt", []byte(chatText))))
	require.Equal(t, "chat", tasks[0]["kind"])

	// With no language, a call takes the campaign's, which the engine must
	// speak too: the default campaign is Spanish, so a call uploaded to it
	// with no language is refused, never transcribed as English.
	r = b.upload(t, quality, file("llamada.wav", tone(t, "b.wav", 450, 1)))
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.Body["message"], `the call "llamada.wav" was uploaded with no language, so it takes its campaign's ("default"): `+
		`Spanish (es), which the speech engine (pocketsphinx) does not transcribe: it transcribes English (en). `+
		`Upload it with the language it is spoken in (language=en if it is in English (en))`)
	require.Equal(t, map[string]any{"file": "llamada.wav", "field": "body.language", "language": "es", "campaign": "default",
		"speech_languages": []any{"en"}}, r.Body["details"])
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM tasks"), "only the chat")
	// An English campaign's calls need no language.
	sup := b.issuer.token(t, "sup", "supervisor")
	r = b.json(t, http.MethodPost, "/campaigns", sup, map[string]any{"name": "support", "language": "en-US"})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	tasks = uploaded(t, b.upload(t, quality, field("campaign", "support"), file("call.wav", tone(t, "b.wav", 450, 1))))
	d := b.do(t, http.MethodGet, "/tasks/"+tasks[0]["uuid"].(string), quality, nil).Body["details"].(map[string]any)
	require.Equal(t, "en-US", d["language"])
	tasks = uploaded(t, b.upload(t, quality, field("language", "en-GB"), file("call.wav", tone(t, "c.wav", 460, 1))))
	d = b.do(t, http.MethodGet, "/tasks/"+tasks[0]["uuid"].(string), quality, nil).Body["details"].(map[string]any)
	require.Equal(t, "en-GB", d["language"])

	// A call already uploaded is the existing task, whatever the language.
	tasks = uploaded(t, b.upload(t, quality, field("language", "es"), file("again.wav", tone(t, "c.wav", 460, 1))))
	require.Equal(t, true, tasks[0]["duplicate"])
}

func TestUploadLimits(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{upload: UploadLimits{MaxFileBytes: 100 << 10, MaxFiles: 3, MaxRequestBytes: 250 << 10}})
	quality := b.issuer.token(t, "qa", "quality")
	small := func(freq int) []byte { return tone(t, "s.wav", freq, 1, "-ar", "8000") }   // 16 KB
	medium := func(freq int) []byte { return tone(t, "m.wav", freq, 2, "-ar", "22050") } // 88 KB
	big := tone(t, "big.wav", 440, 3, "-ar", "22050")                                    // 132 KB

	r := b.upload(t, quality, file("small.wav", small(300)), file("big.wav", big))
	requireError(t, r, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	require.Contains(t, r.Body["message"], `"big.wav"`)
	require.Contains(t, r.Body["message"], "100 KiB")
	b.requireNothingStored(t)

	r = b.upload(t, quality, file("1.wav", small(301)), file("2.wav", small(302)), file("3.wav", small(303)), file("4.wav", small(304)))
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.Body["message"], `at most 3 files`)
	require.Contains(t, r.Body["message"], `"4.wav"`)
	b.requireNothingStored(t)

	// Over the request limit, announced: refused before reading.
	body, ct := multipartBody(t, file("a.wav", medium(500)), file("b.wav", medium(510)), file("c.wav", medium(520)))
	r = b.do(t, http.MethodPost, "/tasks/upload", quality, bytes.NewReader(body.Bytes()), "Content-Type", ct)
	requireError(t, r, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	require.Contains(t, r.Body["message"], "250 KiB")
	// Not announced (chunked): refused while reading, naming the file.
	r = b.do(t, http.MethodPost, "/tasks/upload", quality, io.MultiReader(body), "Content-Type", ct)
	requireError(t, r, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	require.Contains(t, r.Body["message"], "250 KiB")
	require.Contains(t, r.Body["message"], `"c.wav"`)
	b.requireNothingStored(t)

	// Within every limit, it works.
	require.Len(t, uploaded(t, b.upload(t, quality, file("1.wav", medium(301)), file("2.wav", medium(302)))), 2)
}

// chatOf writes turns alternating agent and customer, each of chars
// characters (accented, so bytes and characters differ).
func chatOf(turns, chars int) []byte {
	var sb strings.Builder
	line := string([]rune(strings.Repeat("sí, señora ", chars/11+1))[:chars-1]) + "." // no space to trim at the end
	for i := range turns {
		sb.WriteString([]string{"Agente: ", "Cliente: "}[i%2])
		sb.WriteString(line)
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

// largestChat is the largest chat an upload accepts.
func largestChat() []byte {
	return chatOf(transcript.MaxChatTurns, transcript.MaxChatChars/transcript.MaxChatTurns)
}

func TestUploadChatLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	r := b.upload(t, quality, file("many.txt", chatOf(transcript.MaxChatTurns+1, 3)))
	requireError(t, r, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	require.Contains(t, r.Body["message"], `"many.txt"`)
	require.Contains(t, r.Body["message"], "5001 turns; the limit is 5000")
	require.EqualValues(t, transcript.MaxChatTurns, details(r)["limit_turns"])
	b.requireNothingStored(t)

	r = b.upload(t, quality, file("long.txt", chatOf(2, transcript.MaxChatChars/2+1)))
	requireError(t, r, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	require.Contains(t, r.Body["message"], "500002 characters; the limit is 500000")
	require.EqualValues(t, transcript.MaxChatChars, details(r)["limit_characters"])
	b.requireNothingStored(t)

	// At every limit, it is taken and read back whole.
	id := uploaded(t, b.upload(t, quality, file("largest.txt", largestChat())))[0]["uuid"].(string)
	r = b.do(t, http.MethodGet, "/tasks/"+id, quality, nil)
	require.Equal(t, http.StatusOK, r.Status)
	segments := r.Body["details"].(map[string]any)["transcript"].(map[string]any)["segments"].([]any)
	require.Len(t, segments, transcript.MaxChatTurns)
}

func TestUploadTruncatedBody(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	body, ct := multipartBody(t, file("a.wav", tone(t, "a.wav", 440, 1)), file("b.wav", tone(t, "b.wav", 450, 1)))
	cut := body.Bytes()[:body.Len()*3/4] // inside the second file
	r := b.do(t, http.MethodPost, "/tasks/upload", quality, bytes.NewReader(cut), "Content-Type", ct)
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.Body["message"], "ended early")
	b.requireNothingStored(t)
}

func TestUploadDuplicates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	wav := tone(t, "a.wav", 440, 1)
	first := uploaded(t, b.upload(t, quality, file("first.wav", wav)))[0]

	// Again, under another name, beside a new file and itself.
	tasks := uploaded(t, b.upload(t, quality, file("again.wav", wav), file("chat.txt", []byte(chatText)), file("again2.wav", wav)))
	require.Equal(t, first["uuid"], tasks[0]["uuid"])
	require.Equal(t, true, tasks[0]["duplicate"])
	require.Equal(t, "again.wav", tasks[0]["file_name"])
	require.Equal(t, false, tasks[1]["duplicate"])
	require.Equal(t, first["uuid"], tasks[2]["uuid"])
	require.Equal(t, true, tasks[2]["duplicate"])

	// The same new file twice in one request, and in two racing requests.
	wav2 := tone(t, "b.wav", 450, 1)
	tasks = uploaded(t, b.upload(t, quality, file("x.wav", wav2), file("y.wav", wav2)))
	require.Equal(t, tasks[0]["uuid"], tasks[1]["uuid"])
	require.Equal(t, []any{false, true}, []any{tasks[0]["duplicate"], tasks[1]["duplicate"]})

	wav3 := tone(t, "c.wav", 460, 1)
	var wg sync.WaitGroup
	results := make([]response, 4)
	for i := range results {
		wg.Go(func() { results[i] = b.upload(t, quality, file(fmt.Sprintf("race%d.wav", i), wav3)) })
	}
	wg.Wait()
	fresh := 0
	for _, r := range results {
		task := uploaded(t, r)[0]
		require.Equal(t, uploaded(t, results[0])[0]["uuid"], task["uuid"])
		if task["duplicate"] == false {
			fresh++
		}
	}
	require.Equal(t, 1, fresh)

	require.Equal(t, 4, b.count(t, "SELECT count(*) FROM tasks"))
	require.Len(t, b.blobs(t), 4, "duplicates keep no blob")
	require.Equal(t, 3, b.count(t, "SELECT count(*) FROM river_job WHERE kind = 'transcribe'"))
	require.Equal(t, 4, b.count(t, "SELECT count(*) FROM events WHERE type = 'task.created'"))
}

func TestUploadPathTraversalName(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	tasks := uploaded(t, b.upload(t, quality,
		file("../../etc/passwd.wav", tone(t, "a.wav", 440, 1)),
		file(`..\..\windows\win.ini.wav`, tone(t, "b.wav", 450, 1)),
		file("../", []byte(chatText))))
	require.Equal(t, "passwd.wav", tasks[0]["file_name"])
	require.Equal(t, "win.ini.wav", tasks[1]["file_name"])
	require.Equal(t, "upload", tasks[2]["file_name"])
	for _, k := range b.blobs(t) {
		require.Regexp(t, blobKey, k, "keys are generated, never from the name")
	}
	var key string
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT blob_key FROM tasks WHERE file_name = 'passwd.wav'").Scan(&key))
	require.Regexp(t, blobKey, key)
	_, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(b.blobDir)), "etc"))
	require.ErrorIs(t, err, fs.ErrNotExist)
}

func TestUploadFailingHalfWayLeavesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	r := b.upload(t, quality,
		file("1.wav", tone(t, "1.wav", 440, 1)),
		file("2.json", []byte(chatJSON)),
		file("3.wav", []byte("this is not audio at all, whatever its name says")),
		file("4.wav", tone(t, "4.wav", 460, 1)))
	requireError(t, r, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType)
	require.Contains(t, r.Body["message"], `"3.wav"`)
	b.requireNothingStored(t)
	require.Zero(t, b.count(t, "SELECT count(*) FROM transcripts"))
	require.Zero(t, b.count(t, "SELECT count(*) FROM task_transitions"))
}

func TestTaskVisibility(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	alice := b.issuer.token(t, "alice", "operator")
	bob := b.issuer.token(t, "bob", "operator")
	tasks := uploaded(t, b.upload(t, quality, field("operator", "alice"), file("alice.wav", tone(t, "a.wav", 440, 1))))
	id := tasks[0]["uuid"].(string)

	list := func(token, query string) map[string]any {
		r := b.do(t, http.MethodGet, "/tasks"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		return r.Body["details"].(map[string]any)
	}
	require.Equal(t, float64(1), list(alice, "")["total"])
	require.Equal(t, float64(0), list(bob, "")["total"])
	require.Empty(t, list(bob, "")["tasks"])
	require.Equal(t, float64(0), list(alice, "?operator=bob")["total"], "an operator cannot list another's tasks")
	require.Equal(t, float64(0), list(bob, "?operator=alice")["total"])
	require.Equal(t, float64(1), list(quality, "?operator=alice")["total"])

	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks/"+id, alice, nil).Status)
	requireError(t, b.do(t, http.MethodGet, "/tasks/"+id, bob, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/tasks/"+id+"/audio", bob, nil), http.StatusNotFound, CodeNotFound)
	r := b.do(t, http.MethodGet, "/tasks/"+id+"/audio", alice, nil)
	require.Equal(t, http.StatusOK, r.Status)

	requireError(t, b.do(t, http.MethodGet, "/tasks/not-a-uuid", quality, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/tasks/not-a-uuid/audio", quality, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/tasks/6f1c2b5e-8d44-4a57-9b8a-2f0d5c3e1a90", quality, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/tasks", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
	requireError(t, b.do(t, http.MethodGet, "/tasks", b.issuer.token(t, "nobody"), nil), http.StatusForbidden, CodeForbidden)
}

func TestListTasks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	quality := b.issuer.token(t, "qa", "quality")
	_, err := b.pool.Exec(ctx, "INSERT INTO campaigns (name, language) VALUES ('sales', 'en')")
	require.NoError(t, err)

	names := []string{"b_100%.txt", "A-report.txt", "c.txt", "Delta.txt", "e.txt", "F_final.txt"}
	ids := map[string]string{}
	for i, name := range names {
		parts := []part{file(name, fmt.Appendf(nil, "Agent: hello %d\nCustomer: bye\n", i))}
		if i%2 == 1 {
			parts = append(parts, field("campaign", "sales"), field("operator", "olga"))
		}
		ids[name] = uploaded(t, b.upload(t, quality, parts...))[0]["uuid"].(string)
	}
	call := uploaded(t, b.upload(t, quality, file("g.wav", tone(t, "g.wav", 440, 1))))[0]["uuid"].(string)
	// Known creation times, one day apart, in upload order.
	_, err = b.pool.Exec(ctx, `UPDATE tasks SET created_at = '2024-05-01T00:00:00Z'::timestamptz +
		(SELECT count(*) FROM tasks o WHERE o.created_at < tasks.created_at) * interval '1 day'`)
	require.NoError(t, err)
	_, err = db.TaskTransition(ctx, b.pool, ids["c.txt"], db.TaskChange{To: pipeline.Failed, Error: "boom"})
	require.NoError(t, err)

	list := func(query string) (names []string, details map[string]any) {
		t.Helper()
		r := b.do(t, http.MethodGet, "/tasks?"+query, quality, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		details = r.Body["details"].(map[string]any)
		for _, task := range details["tasks"].([]any) {
			names = append(names, task.(map[string]any)["file_name"].(string))
		}
		return names, details
	}
	all, d := list("")
	require.Equal(t, []string{"g.wav", "F_final.txt", "e.txt", "Delta.txt", "c.txt", "A-report.txt", "b_100%.txt"}, all, "newest first by default")
	require.Equal(t, float64(7), d["total"])
	require.Nil(t, d["next"])

	filters := map[string][]string{
		"status=failed":                       {"c.txt"},
		"status=transcribed&kind=chat":        {"F_final.txt", "e.txt", "Delta.txt", "A-report.txt", "b_100%.txt"},
		"kind=call":                           {"g.wav"},
		"campaign=sales":                      {"F_final.txt", "Delta.txt", "A-report.txt"},
		"campaign=nope":                       nil,
		"operator=olga":                       {"F_final.txt", "Delta.txt", "A-report.txt"},
		"from=2024-05-03&to=2024-05-05":       {"Delta.txt", "c.txt"},
		"from=2024-05-03T00:00:00Z&kind=chat": {"F_final.txt", "e.txt", "Delta.txt", "c.txt"},
		"file_name=REPORT":                    {"A-report.txt"},
		"file_name=100%25":                    {"b_100%.txt"},
		"file_name=_":                         {"F_final.txt", "b_100%.txt"},
		"sort=file_name&order=asc":            {"A-report.txt", "b_100%.txt", "c.txt", "Delta.txt", "e.txt", "F_final.txt", "g.wav"},
		"sort=created_at&order=asc&kind=call": {"g.wav"},
	}
	for query, want := range filters {
		got, d := list(query)
		require.Equal(t, want, got, query)
		require.Equal(t, float64(len(want)), d["total"], query)
	}

	// Keyset pages, in both orders and both sorts, see every task once.
	for _, order := range []string{"sort=created_at&order=desc", "sort=file_name&order=asc", "sort=file_name&order=desc"} {
		whole, _ := list(order)
		var paged []string
		cursor := ""
		for range 10 {
			q := order + "&limit=3"
			if cursor != "" {
				q += "&cursor=" + url.QueryEscape(cursor)
			}
			page, d := list(q)
			require.Equal(t, float64(7), d["total"])
			paged = append(paged, page...)
			next, more := d["next"].(string)
			if !more {
				break
			}
			cursor = next
		}
		require.Equal(t, whole, paged, order)
	}
	// skip/limit.
	page, d := list("skip=2&limit=2")
	require.Equal(t, []string{"e.txt", "Delta.txt"}, page)
	require.Equal(t, float64(2), d["skip"])
	require.NotEmpty(t, d["next"])
	page, _ = list("skip=6&limit=2")
	require.Equal(t, []string{"b_100%.txt"}, page)

	_, d = list("sort=file_name&order=asc&limit=2")
	cursor := d["next"].(string)
	for _, bad := range []string{
		"cursor=" + url.QueryEscape(cursor),                           // another ordering
		"sort=file_name&order=desc&cursor=" + url.QueryEscape(cursor), // another direction
		"cursor=garbage",
		"cursor=" + forged(`{"s":"created_at","o":"desc","v":"yesterday","u":"00000000-0000-4000-8000-000000000000"}`),
		"cursor=" + forged(`{"s":"created_at","o":"desc","v":"2026-01-02T03:04:05Z","u":"urn:uuid:00000000-0000-4000-8000-000000000000"}`),
		"sort=file_name&order=asc&cursor=" + forged(`{"s":"file_name","o":"asc","v":"a\u0000","u":"00000000-0000-4000-8000-000000000000"}`),
		"sort=score&order=asc&cursor=" + forged(`{"s":"score","o":"asc","v":"1e999","u":"00000000-0000-4000-8000-000000000000"}`),
		"limit=0", "limit=501", "skip=-1", "status=lost", "sort=rank", "from=yesterday", "min_score=101", "max_score=x", "passed=maybe",
	} {
		requireError(t, b.do(t, http.MethodGet, "/tasks?"+bad, quality, nil), http.StatusBadRequest, CodeValidation)
	}
	require.NotEmpty(t, call)
}

// forged is a cursor written by hand rather than returned by the service.
func forged(c string) string { return base64.RawURLEncoding.EncodeToString([]byte(c)) }

func TestTaskAudioRanges(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	wav := tone(t, "a.wav", 440, 1)
	tasks := uploaded(t, b.upload(t, quality, file("call.wav", wav), file("chat.txt", []byte(chatText))))
	path := "/tasks/" + tasks[0]["uuid"].(string) + "/audio"

	r := b.do(t, http.MethodGet, path, quality, nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "audio/wav", r.Header.Get("Content-Type"))
	require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
	require.Equal(t, "bytes", r.Header.Get("Accept-Ranges"))
	require.Equal(t, fmt.Sprint(len(wav)), r.Header.Get("Content-Length"))
	require.Contains(t, r.Header.Get("Content-Disposition"), `filename=call.wav`)
	require.Equal(t, string(wav), r.RawBody)
	require.Equal(t, "no-store", r.Header.Get("Cache-Control"), "a recording is personal data")

	r = b.do(t, http.MethodGet, path, quality, nil, "Range", "bytes=100-199")
	require.Equal(t, http.StatusPartialContent, r.Status)
	require.Equal(t, fmt.Sprintf("bytes 100-199/%d", len(wav)), r.Header.Get("Content-Range"))
	require.Equal(t, string(wav[100:200]), r.RawBody)

	r = b.do(t, http.MethodGet, path, quality, nil, "Range", "bytes=-50")
	require.Equal(t, http.StatusPartialContent, r.Status)
	require.Equal(t, string(wav[len(wav)-50:]), r.RawBody)

	r = b.do(t, http.MethodGet, path, quality, nil, "Range", fmt.Sprintf("bytes=%d-", len(wav)+10))
	requireError(t, r, http.StatusRequestedRangeNotSatisfiable, CodeRangeNotSatisfiable)
	require.Equal(t, fmt.Sprintf("bytes */%d", len(wav)), r.Header.Get("Content-Range"))
	require.Contains(t, r.Body["message"], fmt.Sprintf("bytes=0-%d", len(wav)-1))
	require.Equal(t, "no-store", r.Header.Get("Cache-Control"))

	etag := b.do(t, http.MethodGet, path, quality, nil).Header.Get("ETag")
	require.Equal(t, http.StatusNotModified, b.do(t, http.MethodGet, path, quality, nil, "If-None-Match", etag).Status)
	r = b.do(t, http.MethodGet, path, quality, nil, "If-Match", `"not-it"`)
	requireError(t, r, http.StatusPreconditionFailed, CodePreconditionFailed)
	require.Contains(t, r.Body["message"], etag)

	chat := "/tasks/" + tasks[1]["uuid"].(string) + "/audio"
	r = b.do(t, http.MethodGet, chat, quality, nil)
	requireError(t, r, http.StatusNotFound, CodeNotFound)
	require.Contains(t, r.Body["message"], "chat")
}

func TestRetryFailedTask(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	quality := b.issuer.token(t, "qa", "quality")
	admin := b.issuer.token(t, "root", "admin")
	id := uploaded(t, b.upload(t, quality, file("a.wav", tone(t, "a.wav", 440, 1))))[0]["uuid"].(string)
	path := "/tasks/" + id + "/retry"

	requireError(t, b.do(t, http.MethodPost, path, admin, nil), http.StatusConflict, CodeConflict)
	_, err := db.TaskTransition(ctx, b.pool, id, db.TaskChange{From: []pipeline.Status{pipeline.Queued}, To: pipeline.Transcribing, Attempt: 1})
	require.NoError(t, err)
	_, err = db.TaskTransition(ctx, b.pool, id, db.TaskChange{From: []pipeline.Status{pipeline.Transcribing}, To: pipeline.Failed, Error: "engine down", Attempt: 5})
	require.NoError(t, err)

	operator := b.issuer.token(t, "op", "operator")
	requireError(t, b.do(t, http.MethodPost, path, operator, nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodPost, "/tasks/6f1c2b5e-8d44-4a57-9b8a-2f0d5c3e1a90/retry", admin, nil), http.StatusNotFound, CodeNotFound)
	// The same file again: the failed task, saying why it failed.
	again := uploaded(t, b.upload(t, quality, file("a.wav", tone(t, "a.wav", 440, 1))))[0]
	require.Equal(t, id, again["uuid"])
	require.Equal(t, true, again["duplicate"])
	require.Equal(t, "failed", again["status"])
	require.Equal(t, "engine down", again["error"])
	// A quality analyst retries it.
	r := b.do(t, http.MethodPost, path, quality, nil)
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
	require.Equal(t, "ACCEPTED", r.Body["code"])
	require.Equal(t, "queued", r.Body["details"].(map[string]any)["status"])
	require.Nil(t, r.Body["details"].(map[string]any)["error"])
	require.Equal(t, 2, b.count(t, "SELECT count(*) FROM river_job WHERE kind = 'transcribe' AND args->>'task_uuid' = $1", id))
	requireError(t, b.do(t, http.MethodPost, path, admin, nil), http.StatusConflict, CodeConflict)

	r = b.do(t, http.MethodGet, "/tasks/"+id, quality, nil)
	var steps []string
	for _, h := range r.Body["details"].(map[string]any)["history"].([]any) {
		c := h.(map[string]any)
		steps = append(steps, fmt.Sprint(c["from"], ">", c["to"], ":", c["error"]))
	}
	require.Equal(t, []string{"<nil>>queued:<nil>", "queued>transcribing:<nil>", "transcribing>failed:engine down", "failed>queued:<nil>"}, steps)
	// Each change was an event, in order.
	rows, err := b.pool.Query(ctx, "SELECT type || ':' || (data->>'status') FROM events ORDER BY id")
	require.NoError(t, err)
	var events []string
	for rows.Next() {
		var e string
		require.NoError(t, rows.Scan(&e))
		events = append(events, e)
	}
	require.Equal(t, []string{"task.created:queued", "task.updated:transcribing", "task.updated:failed", "task.updated:queued"}, events)
}

func TestUploadDocumentedInOpenAPI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.do(t, http.MethodGet, "/openapi.json", "", nil)
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Properties map[string]json.RawMessage `json:"properties"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.RawBody), &doc))
	upload := doc.Paths["/tasks/upload"]["post"]
	props := upload.RequestBody.Content["multipart/form-data"].Schema.Properties
	for _, f := range []string{"files", "campaign", "operator", "language", "direction", "started_at", "external_id"} {
		require.Contains(t, props, f)
	}
	require.Contains(t, upload.Responses, "202")
	require.Contains(t, upload.Responses, "413")
	require.Contains(t, upload.Responses, "415")
	require.Contains(t, doc.Paths["/tasks/{uuid}/audio"]["get"].Responses, "206")
}

func TestUploadedContentIsNeverRendered(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	html := "Agent: <script>alert(document.cookie)</script>\nCustomer: <img src=x onerror=alert(1)>\n"
	polyglot := append(tone(t, "a.wav", 440, 1), "<html><script>alert(1)</script></html>"...)
	tasks := uploaded(t, b.upload(t, quality, file("chat.html", []byte(html)), file("page.html", polyglot)))
	chat, call := tasks[0]["uuid"].(string), tasks[1]["uuid"].(string)

	// A chat's text comes back only inside JSON, never sniffed.
	r := b.do(t, http.MethodGet, "/tasks/"+chat, quality, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
	require.Contains(t, r.Body["details"].(map[string]any)["transcript"].(map[string]any)["text"], "<script>")
	r = b.do(t, http.MethodGet, "/tasks/"+chat+"/audio", quality, nil)
	requireError(t, r, http.StatusNotFound, CodeNotFound)
	require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))

	// A recording is served as what its content is, whatever its name or
	// what follows the audio.
	r = b.do(t, http.MethodGet, "/tasks/"+call+"/audio", quality, nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "audio/wav", r.Header.Get("Content-Type"))
	require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
	require.Equal(t, "inline; filename=page.wav", r.Header.Get("Content-Disposition"))
	require.Equal(t, string(polyglot), r.RawBody)

	// A stored type that is not audio (or none) is a download of opaque bytes.
	for _, stored := range []string{"text/html", ""} {
		_, err := b.pool.Exec(context.Background(), "UPDATE tasks SET content_type = $1 WHERE uuid = $2", stored, call)
		require.NoError(t, err)
		r = b.do(t, http.MethodGet, "/tasks/"+call+"/audio", quality, nil)
		require.Equal(t, http.StatusOK, r.Status)
		require.Equal(t, "application/octet-stream", r.Header.Get("Content-Type"), stored)
		require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
		require.Equal(t, "attachment; filename=page.html", r.Header.Get("Content-Disposition"))
	}

	// An HTML page or an SVG image is neither audio nor a chat.
	for name, content := range map[string]string{
		"page.html": "<!doctype html>\n<html><body><script>alert(1)</script></body></html>\n",
		"image.svg": `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>`,
	} {
		r = b.upload(t, quality, file(name, []byte(content)))
		requireError(t, r, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType)
	}
}

// An operator named by a username that several users share when case is
// ignored is a 400 listing their ids, in listings, the dashboard and
// uploads (which then store nothing); the exact username still names one.
func TestAmbiguousOperator(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	for id, username := range map[string]string{"sub-ana": "ana", "sub-ANA": "ANA"} {
		c := b.issuer.claims(id)
		c["preferred_username"] = username
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", b.issuer.sign(t, c), nil).Status)
	}
	for _, path := range []string{"/tasks?operator=Ana", "/stats/dashboard?operator=Ana"} {
		r := b.do(t, http.MethodGet, path, quality, nil)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Contains(t, r.Body["message"], "sub-ANA, sub-ana", path)
		require.Contains(t, r.RawBody, `"location":"query.operator"`, path)
	}
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks?operator=ANA", quality, nil).Status)
	r := b.upload(t, quality, field("operator", "Ana"), file("chat.txt", []byte("Agent: Hi, I'm Ana.\nCustomer: hello\n")))
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, `"location":"body.operator"`)
	b.requireNothingStored(t)
}

// TestSearchTasks finds audited chats by what was said and by what their
// audit says, with the list's other filters and an operator's narrowing,
// quotes where the words are, and refuses a search it cannot run.
func TestSearchTasks(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	quality := b.issuer.token(t, "qa", "quality")
	olga := b.issuer.token(t, "olga", "operator")
	b.audited(t, quality, file("good.txt", []byte(goodChat)), file("rude.txt", []byte(rudeChat)))
	b.audited(t, quality, field("operator", "olga"), file("olga.txt", []byte(goodChat+"Cliente: y el reembolso?\n")))
	search := func(token, query string) []string {
		t.Helper()
		r := b.do(t, http.MethodGet, "/tasks?"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		names := []string{}
		d := r.Body["details"].(map[string]any)
		for _, task := range d["tasks"].([]any) {
			names = append(names, task.(map[string]any)["file_name"].(string))
		}
		sort.Strings(names)
		require.EqualValues(t, len(names), d["total"], query)
		return names
	}
	require.Equal(t, []string{"good.txt", "olga.txt"}, search(quality, "q=duplicado"))
	require.Equal(t, []string{"good.txt", "olga.txt"}, search(quality, "q="+url.QueryEscape(`"cargo duplicado"`)))
	require.Equal(t, []string{"olga.txt"}, search(quality, "q=reembolsos"))
	require.Equal(t, []string{"rude.txt"}, search(quality, "q="+url.QueryEscape("problema -telecable"))) // not -cobrado: the explanations quote «me han cobrado» as what makes verification apply
	require.Equal(t, []string{"olga.txt"}, search(quality, "q=duplicado&operator=olga"))
	require.Equal(t, []string{"olga.txt"}, search(olga, "q=duplicado"), "an operator finds only their own")
	require.Equal(t, []string{}, search(quality, "q=hipoteca"))
	require.Equal(t, []string{"good.txt", "olga.txt"}, search(quality, "q=duplicado&language=es"))
	require.Equal(t, []string{}, search(quality, "q=duplicado&language=en"))
	require.Equal(t, []string{}, search(quality, "q=duplicado&validated_by=qa"))
	// The audit's words: the rules engine explains the rude chat's failure
	// quoting what the agent said.
	require.Contains(t, search(quality, "q="+url.QueryEscape("prohibida")), "rude.txt")

	r := b.do(t, http.MethodGet, "/tasks?q=duplicado&operator=olga", quality, nil)
	require.Equal(t, http.StatusOK, r.Status)
	snippet := r.Body["details"].(map[string]any)["tasks"].([]any)[0].(map[string]any)["snippet"].([]any)
	var marked []string
	for _, part := range snippet {
		if p := part.(map[string]any); p["match"] == true {
			marked = append(marked, p["text"].(string))
		}
	}
	require.Equal(t, []string{"duplicado"}, marked)
	r = b.do(t, http.MethodGet, "/tasks?file_name=good", quality, nil)
	require.Nil(t, r.Body["details"].(map[string]any)["tasks"].([]any)[0].(map[string]any)["snippet"], "no snippet without words searched")

	for query, location := range map[string]string{
		"q=" + url.QueryEscape(`"cargo`):      "query.q",
		"q=" + url.QueryEscape("-duplicado"):  "query.q",
		"q=" + url.QueryEscape("OR"):          "query.q",
		"q=a":                                 "query.q",
		"q=" + strings.Repeat("x", 201):       "query.q",
		"q=%00":                               "query.q",
		"language=e":                          "query.language",
		"language=es_MX":                      "query.language",
		"language=" + strings.Repeat("a", 36): "query.language",
		"validated_by=%01":                    "query.validated_by",
	} {
		r := b.do(t, http.MethodGet, "/tasks?"+query, quality, nil)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Equal(t, location, r.Body["details"].([]any)[0].(map[string]any)["location"], query)
		require.NotContains(t, r.Body["message"], "tsquery", query)
	}
	r = b.do(t, http.MethodGet, "/tasks/export?q="+url.QueryEscape(`"cargo`), quality, nil)
	requireError(t, r, http.StatusBadRequest, CodeValidation)
}

// A call whose transcript is unreliable says so, and why, in its view and
// in lists, which filter by it.
func TestTranscriptUnreliable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, setupOpts{})
	quality := b.issuer.token(t, "qa", "quality")
	tasks := uploaded(t, b.upload(t, quality, field("language", "en"), file("noisy.wav", tone(t, "n.wav", 440, 1)),
		file("clear.wav", tone(t, "c.wav", 480, 1)), file("notes.txt", []byte(chatText))))
	noisy, clear := tasks[0]["uuid"].(string), tasks[1]["uuid"].(string)
	start, end, low, high := 0.0, 2.0, 0.21, 0.9
	save := func(uuid string, q float64) {
		segments := []transcript.Segment{{Start: &start, End: &end, Speaker: transcript.Unknown, Text: "what what are ya", Quality: &q}}
		require.NoError(t, db.TranscriptSave(ctx, b.pool, uuid, transcript.Transcript{Text: "what what are ya", Segments: segments,
			Engine: "pocketsphinx", Language: "en", Quality: transcript.Assess(segments, transcript.DefaultQualityFloor)}))
	}
	save(noisy, low)
	save(clear, high)

	d := details(b.do(t, http.MethodGet, "/tasks/"+noisy, quality, nil))
	require.Equal(t, "low_quality", d["transcript_unreliable"])
	q := d["transcript"].(map[string]any)["quality"].(map[string]any)
	require.Equal(t, map[string]any{"score": low, "words_per_second": 2.0, "floor": transcript.DefaultQualityFloor,
		"unreliable": "low_quality", "doubtful_segments": 1.0}, q)
	require.Equal(t, low, d["transcript"].(map[string]any)["segments"].([]any)[0].(map[string]any)["quality"])
	d = details(b.do(t, http.MethodGet, "/tasks/"+clear, quality, nil))
	require.NotContains(t, d, "transcript_unreliable")
	require.NotContains(t, d["transcript"].(map[string]any)["quality"], "unreliable")

	listed := taskList(t, b.do(t, http.MethodGet, "/tasks?transcript_unreliable=true", quality, nil))
	require.Len(t, listed, 1)
	require.Equal(t, noisy, listed[0]["uuid"])
	require.Equal(t, "low_quality", listed[0]["transcript_unreliable"])
	listed = taskList(t, b.do(t, http.MethodGet, "/tasks?transcript_unreliable=false&sort=file_name&order=asc", quality, nil))
	require.Len(t, listed, 2, "the clear call and the chat")
	require.Equal(t, []any{"clear.wav", "notes.txt"}, []any{listed[0]["file_name"], listed[1]["file_name"]})
	requireError(t, b.do(t, http.MethodGet, "/tasks?transcript_unreliable=maybe", quality, nil), http.StatusBadRequest, CodeValidation)

	// A transcription run again with a better result clears the mark.
	save(noisy, high)
	require.NotContains(t, details(b.do(t, http.MethodGet, "/tasks/"+noisy, quality, nil)), "transcript_unreliable")
	require.Empty(t, taskList(t, b.do(t, http.MethodGet, "/tasks?transcript_unreliable=true", quality, nil)))
}

// taskList returns the tasks of a GET /tasks response.
func taskList(t *testing.T, r response) []map[string]any {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	var out []map[string]any
	for _, v := range details(r)["tasks"].([]any) {
		out = append(out, v.(map[string]any))
	}
	return out
}

// TestRecordingNamedByItsStoredFormat: a recording is served under its
// uploaded name with the extension of the format it is stored in (a
// redacted copy stored as FLAC is a .flac).
func TestRecordingNamedByItsStoredFormat(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	task := uploaded(t, b.upload(t, quality, file("Call 7.WAV", tone(t, "a.wav", 440, 1))))[0]["uuid"].(string)
	path := "/tasks/" + task + "/audio"
	require.Contains(t, b.do(t, http.MethodGet, path, quality, nil).Header.Get("Content-Disposition"), `filename="Call 7.WAV"`)
	// As the redacted copy's worker records it.
	_, err := b.pool.Exec(t.Context(), `UPDATE tasks SET content_type = 'audio/flac' WHERE uuid = $1`, task)
	require.NoError(t, err)
	r := b.do(t, http.MethodGet, path, quality, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "audio/flac", r.Header.Get("Content-Type"))
	require.Contains(t, r.Header.Get("Content-Disposition"), `filename="Call 7.flac"`)
}

// TestEmptyFileAndSilentVideoSaySo: a 0-byte upload says the file is
// empty, a video without an audio track says it has none, instead of "not
// a known audio format"; nothing is stored.
func TestEmptyFileAndSilentVideoSaySo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	r := b.upload(t, quality, file("empty.wav", nil))
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.Body["message"], "is empty")

	out := filepath.Join(t.TempDir(), "silent.webm")
	log, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=16x16:d=1",
		"-c:v", "libvpx", "-an", out).CombinedOutput()
	require.NoError(t, err, string(log))
	video, err := os.ReadFile(out)
	require.NoError(t, err)
	r = b.upload(t, quality, file("silent.webm", video))
	requireError(t, r, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType)
	require.Contains(t, r.Body["message"], "the file has no audio track")
	b.requireNothingStored(t)
}
