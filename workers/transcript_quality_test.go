package workers

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/revision"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
	"github.com/auditd/auditd/workers/asr"
	"github.com/auditd/auditd/workers/asr/asrtest"
)

// said is a segment of a verbose_json answer: its text and avg_logprob.
type said struct {
	text    string
	logprob float64
}

// verboseJSON is a verbose_json answer of a Whisper-like server with the
// segments said, each 3 s long from 0, with no_speech_prob 0.1.
func verboseJSON(segments ...said) asrtest.Answer {
	var parts, texts []string
	for i, s := range segments {
		parts = append(parts, fmt.Sprintf(`{"id":%d,"start":%d,"end":%d,"text":%q,"avg_logprob":%g,"no_speech_prob":0.1}`,
			i, 3*i, 3*i+3, " "+s.text, s.logprob))
		texts = append(texts, s.text)
	}
	return asrtest.Answer{Status: 200, Body: fmt.Sprintf(`{"task":"transcribe","language":"english","text":%q,"segments":[%s]}`,
		strings.Join(texts, " "), strings.Join(parts, ","))}
}

// A transcript the engine was unsure of (real PocketSphinx output on a
// telephone-band call; a Whisper-like server's low avg_logprob) marks its
// task "transcript unreliable", every automatic verdict of its audit
// needs review, and the notification says why; a clean transcript changes
// nothing, and one with a doubtful segment sends to review only the
// verdicts that rest on absence.
func TestTranscriptQuality(t *testing.T) {
	t.Parallel()
	var reading mediatest.Recording
	for _, r := range mediatest.LibriVox(t) {
		if strings.HasSuffix(r.Name, "-0930") { // 3 s
			reading = r
		}
	}
	narrow := filepath.Join(t.TempDir(), "narrow.wav")
	mediatest.NarrowBand(t, reading.Path, narrow)
	openai := func(answer asrtest.Answer) func(t *testing.T) asr.Engine {
		return func(t *testing.T) asr.Engine {
			e, err := asr.NewOpenAI(asr.OpenAIConfig{BaseURL: asrtest.NewServer(t, answer).URL, Model: "whisper-1"})
			require.NoError(t, err)
			return e
		}
	}
	pocketSphinx := func(*testing.T) asr.Engine { return asr.PocketSphinx{} }
	hello := said{"Good morning, thank you for calling, my name is Olga.", -0.1}
	help := said{"How can I help you today?", -0.15}

	for _, c := range []struct {
		name       string
		engine     func(*testing.T) asr.Engine
		path       string
		unreliable string
		doubtful   bool
	}{
		{"PocketSphinx on a telephone-band call", pocketSphinx, narrow, transcript.LowQuality, true},
		{"PocketSphinx on the same call at 16 kHz", pocketSphinx, reading.Path, "", false},
		{"a server's low avg_logprob", openai(verboseJSON(said{"What what are ya", -1.3}, said{"ya what you.", -1.1})), reading.Path,
			transcript.LowQuality, true},
		{"a server repeating itself", openai(verboseJSON(said{strings.Repeat("thank you ", 12), -0.1})), reading.Path, transcript.TooFast, false},
		{"a server sure of its words", openai(verboseJSON(hello, help)), reading.Path, "", false},
		{"a server unsure of one segment", openai(verboseJSON(hello, help, said{"Mm ya.", -1.6}, said{"Bye.", -0.2})), reading.Path, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := setupTranscribe(t)
			task := b.upload(t, insertOnly(t), call{path: c.path, language: "en"})
			_, err := b.work(t, &TranscribeWorker{pool: b.pool, store: b.store,
				cfg: TranscribeConfig{Engine: c.engine(t), QualityFloor: transcript.DefaultQualityFloor}}, task.UUID, nil)
			require.NoError(t, err)

			task = b.task(t, task.UUID)
			require.Equal(t, pipeline.Transcribed, task.Status)
			require.Equal(t, c.unreliable, task.TranscriptUnreliable)
			tr, err := db.TranscriptGet(ctx, b.pool, task.UUID)
			require.NoError(t, err)
			q := tr.Quality
			require.NotNil(t, q, "stored with the transcript")
			require.Equal(t, c.unreliable, q.Unreliable)
			require.Equal(t, transcript.DefaultQualityFloor, q.Floor)
			require.Equal(t, c.doubtful, q.DoubtfulSegments > 0, "%+v", q)
			t.Logf("%s: quality %.3f, %.2f words/s, %d doubtful segments: %q", c.name, *q.Score, *q.WordsPerSecond, q.DoubtfulSegments, tr.Text)
			for _, s := range tr.Segments {
				require.NotNil(t, s.Quality, "each segment keeps its own")
			}
			filtered, err := db.TaskList(ctx, b.pool, db.TaskFilter{TranscriptUnreliable: ptr(c.unreliable != "")}, db.TaskPage{Sort: db.TaskSortCreatedAt, Limit: 10})
			require.NoError(t, err)
			require.Len(t, filtered, 1, "the list's filter finds it")
			filtered, err = db.TaskList(ctx, b.pool, db.TaskFilter{TranscriptUnreliable: ptr(c.unreliable == "")}, db.TaskPage{Sort: db.TaskSortCreatedAt, Limit: 10})
			require.NoError(t, err)
			require.Empty(t, filtered)

			result := b.audit(t, task.UUID)
			reviewed, marked := 0, 0 // marked: sent to review by the transcript alone
			for _, it := range result.Items {
				require.NotEmpty(t, it.Basis, "an engine's verdict")
				confident := it.Confidence >= 0.8
				switch {
				case c.unreliable != "":
					require.True(t, it.NeedsReview, "%s: every verdict of an unreliable transcript: %+v", c.name, it)
				case c.doubtful && it.Basis == scoring.BasisAbsence:
					require.True(t, it.NeedsReview, "absence where a segment is doubtful: %+v", it)
				default:
					require.Equal(t, !confident, it.NeedsReview, "as the confidence says: %+v", it)
				}
				if it.NeedsReview {
					reviewed++
				}
				if it.NeedsReview && confident {
					marked++
				}
			}
			// A test that cannot fail is a bug: the transcript sent to
			// review verdicts their confidence would not have.
			require.Equal(t, c.unreliable != "" || c.doubtful, marked > 0, "%d marked", marked)
			task = b.task(t, task.UUID)
			require.Equal(t, pipeline.Audited, task.Status)
			require.Equal(t, reviewed, *task.ReviewItems)
			told := b.notifications(t)
			require.Len(t, told, 1)
			if c.unreliable == "" {
				require.NotContains(t, told[0].Text, "unreliable")
				return
			}
			require.Equal(t, "warning", told[0].Variant)
			reason := map[string]string{transcript.LowQuality: "the speech engine was unsure of its words",
				transcript.TooFast: "it has more words a second than anyone says"}[c.unreliable]
			require.Equal(t, fmt.Sprintf("%s was audited: %s. Its transcript is unreliable (%s): every automatic verdict needs "+
				"an analyst's review.", task.FileName, revision.Describe(result), reason), told[0].Text)
		})
	}
}

func ptr[T any](v T) *T { return &v }

// audit runs task's audit job with the rules engine and returns the
// stored result.
func (b *transcribeBundle) audit(t *testing.T, taskUUID string) scoring.Result {
	t.Helper()
	ctx := context.Background()
	w := rivertest.NewWorker(t, riverpgxv5.New(b.pool), &river.Config{},
		&AuditWorker{pool: b.pool, auditor: &auditor.Rules{}, cards: newScorecards(), review: 0.8})
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	res, err := w.Work(ctx, t, tx, jobs.AuditArgs{TaskUUID: taskUUID}, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	audit, err := db.AuditCurrent(ctx, b.pool, taskUUID)
	require.NoError(t, err)
	return audit.Result
}
