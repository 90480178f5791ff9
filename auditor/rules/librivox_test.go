package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
)

// TestAuditLibriVoxWords looks for every word the readers really said
// (testdata/librivox/reference.txt) in what PocketSphinx recognised: the
// engine finds the words the recogniser got right, tolerates a near miss,
// and reports the words it got wrong as missing.
func TestAuditLibriVoxWords(t *testing.T) {
	t.Parallel()
	ref, err := os.ReadFile(filepath.Join("testdata", "librivox", "reference.txt"))
	require.NoError(t, err)
	line := regexp.MustCompile(`^<s> (.*) </s> \(sense_and_sensibility_01_austen_64kb-(\d+)\)$`)
	missing := map[string][]string{
		// Recognised "mr john guess what … greatly … how about".
		"0870": {"mister", "dashwood", "had", "prudently", "for", "them"},
		// "illness those young man".
		"0880": {"ill", "disposed"},
		// "hello study rather … to the oldest those".
		"0890": {"unless", "be", "ill", "disposed"},
		// "… respectable many watts".
		"0920": {"than", "was"},
		// "… made a real boy i'm self taught".
		"0930": {"amiable", "himself"},
	}
	seen := 0
	for _, l := range strings.Split(strings.TrimSpace(string(ref)), "\n") {
		m := line.FindStringSubmatch(l)
		require.NotNil(t, m, l)
		id := m[2]
		tr := librivox(t, id)
		var notFound []string
		var words []string
		for _, w := range strings.Fields(m[1]) {
			if !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		for _, w := range words {
			v := judge(t, fmt.Sprintf(`{"any": [%q], "speaker": "agent"}`, w), scoring.Call, tr, "en")
			if !v.Complies {
				require.Equal(t, fmt.Sprintf("The agent did not say %q.", w), v.Explanation)
				notFound = append(notFound, w)
			}
		}
		require.Equal(t, missing[id], notFound, id)
		seen++
	}
	require.Equal(t, len(missing), seen)

	// "considers" is one letter from the recognised "consider": found, and
	// said so ("them" is not "then": short words must be exact).
	v := judge(t, `{"any": ["considers"]}`, scoring.Call, librivox(t, "0870"), "en")
	require.Equal(t, `"consider" (taken as "considers") was said at 00:02.`, v.Explanation)
}

func TestAuditLibriVoxPhrases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		file        string
		rule        string
		complies    bool
		explanation string
		evidence    string
	}{
		{
			name: "a phrase across word segments, with its time", file: "0870",
			rule:     `{"any": ["consider how much"], "speaker": "agent", "within_first": 5}`,
			complies: true, explanation: `"consider how much" was said at 00:02.`, evidence: "consider how much",
		},
		{
			name: "a misrecognised word breaks the phrase", file: "0870",
			rule:     `{"any": ["might be prudently in his power"]}`,
			complies: false, explanation: `Nobody said "might be prudently in his power".`,
		},
		{
			name: "the last seconds", file: "0870",
			rule:     `{"all": ["leisure to consider", "in his power to do"], "within_last": 2}`,
			complies: false,
			explanation: `Nobody said "leisure to consider" in the last 2 s. ` +
				`Outside that scope, "leisure to consider" was said at 00:02. "in his power to do" was said at 00:05.`,
			evidence: "leisure to consider\nin his power to do",
		},
		{
			name: "a word inserted by the reader", file: "0920",
			rule:     `{"any": ["married more amiable"]}`,
			complies: true, explanation: `"married a more amiable" (taken as "married more amiable") was said at 00:00.`,
			evidence: "married a more amiable",
		},
		{
			name: "a misspelt rule still finds the word", file: "0920",
			rule:     `{"any": ["respectible"], "within_last": 2}`,
			complies: true, explanation: `"respectable" (taken as "respectible") was said at 00:04.`, evidence: "respectable",
		},
		{
			name: "but not in the first seconds", file: "0920",
			rule:     `{"any": ["still more respectable"], "within_first": 3}`,
			complies: false,
			explanation: `Nobody said "still more respectable" within the first 3 s. ` +
				`Outside that scope, "still more respectable" was said at 00:03.`,
			evidence: "still more respectable",
		},
		{
			name: "forbidden words in real speech", file: "0890",
			rule:        `{"none": ["selfish", "cold hearted"]}`,
			complies:    false,
			explanation: `Forbidden phrase: "cold hearted" was said at 00:01 (2 forbidden phrases said in all).`,
			evidence:    "cold hearted",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := judge(t, tt.rule, scoring.Call, librivox(t, tt.file), "en")
			require.Equal(t, tt.complies, v.Complies, v.Explanation)
			require.Equal(t, tt.explanation, v.Explanation)
			require.Equal(t, tt.evidence, v.Evidence)
		})
	}
}
