package rules

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
)

func TestCalibration(t *testing.T) {
	t.Parallel()
	cell := Cell{Criterion: "greeting#00000000", Signal: SignalAbsence, Complies: false, Language: "en", Kind: scoring.Chat, Prior: 0.7}
	var samples []Sample
	for range 3 { // three right in the cell itself
		samples = append(samples, Sample{Cell: cell, Agrees: true})
	}
	other := cell
	other.Criterion = "empathy#00000000"
	for i := range 40 { // half right for absence elsewhere
		samples = append(samples, Sample{Cell: other, Agrees: i%2 == 0})
	}
	c := Fit(samples, 10)
	require.Equal(t, Count{N: 43, Agree: 23}, c.Counts["*|absence|false"])
	require.Equal(t, Count{N: 3, Agree: 3}, c.Counts["greeting#00000000|absence|false|en|chat|"])

	wide := (23 + 10*0.7) / (43 + 10.0)
	want := wide
	for range 4 { // the criterion's, its language's, kind's and phrase's keys count the same three
		want = (3 + 10*want) / (3 + 10)
	}
	require.InDelta(t, want, c.Confidence(cell), 1e-12)
	require.Less(t, c.Confidence(cell), 0.9, "three of three is no certainty")

	unknown := cell
	unknown.Criterion = "own#00000000"
	require.Equal(t, 0.7, c.Confidence(unknown), "a criterion the table never counted keeps its rule's confidence")
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	a := scoring.Criterion{ID: "greeting", Rule: json.RawMessage(`{"any": ["hello"], "speaker": "agent"}`)}
	b := scoring.Criterion{ID: "greeting", Rule: json.RawMessage(`{"speaker":"agent","any":["hello"]}`)}
	require.Equal(t, fingerprint(a), fingerprint(b), "as Postgres' jsonb stores it")
	c := scoring.Criterion{ID: "greeting", Rule: json.RawMessage(`{"any": ["hi"], "speaker": "agent"}`)}
	require.NotEqual(t, fingerprint(a), fingerprint(c), "other phrases are another criterion")
}
