package rules_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

func at(v float64) *float64 { return &v }

// The assessments of verdicts decided by words said as written, and by
// nothing said (the default confidences).
var (
	evidence = scoring.Assessment{Basis: scoring.BasisEvidence, Confidence: 0.95}
	absence  = scoring.Assessment{Basis: scoring.BasisAbsence, Confidence: 0.7}
)

// turn is an untimed chat turn.
func turn(speaker, text string) transcript.Segment {
	return transcript.Segment{Speaker: speaker, Text: text}
}

// timed is a timed segment.
func timed(speaker string, start, end float64, text string) transcript.Segment {
	return transcript.Segment{Start: at(start), End: at(end), Speaker: speaker, Text: text}
}

func segments(segs ...transcript.Segment) transcript.Transcript {
	var text []string
	for _, s := range segs {
		text = append(text, s.Text)
	}
	return transcript.Transcript{Text: strings.Join(text, "\n"), Segments: segs}
}

// criterion is a criterion with the given rule, applying to both kinds.
func criterion(id, rule string) scoring.Criterion {
	return scoring.Criterion{
		ID: id, Category: "TEST", Question: "Does " + id + " hold?", Weight: 1,
		AppliesTo: scoring.Both, Rule: json.RawMessage(rule),
	}
}

// judge audits t against a one-criterion scorecard with rule.
func judge(t *testing.T, rule, kind string, tr transcript.Transcript, lang string) scoring.Verdict {
	t.Helper()
	vs, err := engine(t, "c", rule).Audit(kind, tr, lang)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	require.Equal(t, "c", vs[0].CriterionID)
	return vs[0]
}

// engine compiles a scorecard of one criterion, id, with rule.
func engine(t *testing.T, id, rule string) *rules.Engine {
	t.Helper()
	e, err := rules.New(scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{criterion(id, rule)}})
	require.NoError(t, err)
	return e
}

// librivox reads a PocketSphinx fixture (see testdata/librivox/README.md)
// as a call transcript with one segment per recognised word, as a
// recogniser with word times gives them. The recordings are mono, so the
// speaker is unknown.
func librivox(t testing.TB, id string) transcript.Transcript {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "librivox", "sense_and_sensibility_01_austen_64kb-"+id+".txt"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	require.True(t, sc.Scan(), "hypothesis line")
	tr := transcript.Transcript{Text: sc.Text(), Engine: "pocketsphinx", Language: "en"}
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		require.Len(t, fields, 4, sc.Text())
		w := fields[0]
		if strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") {
			continue // <s>, </s>, <sil>, [NOISE], [SPEECH]
		}
		if i := strings.IndexByte(w, '('); i > 0 {
			w = w[:i] // "to(2)": second pronunciation of "to"
		}
		start, err := strconv.ParseFloat(fields[1], 64)
		require.NoError(t, err)
		end, err := strconv.ParseFloat(fields[2], 64)
		require.NoError(t, err)
		tr.Segments = append(tr.Segments, timed(transcript.Unknown, start, end, w))
	}
	require.NoError(t, sc.Err())
	return tr
}
