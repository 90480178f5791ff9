package calibration

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
)

// TestCheckAnswers: a submission answers every criterion of every
// interaction once; each problem is located as the API locates it, and
// a calibration may answer some criteria only.
func TestCheckAnswers(t *testing.T) {
	t.Parallel()
	const task = "6f1c2a3b-0000-4000-8000-000000000001"
	items := []db.CalibrationItem{{TaskUUID: task, CriterionID: "greeting"}, {TaskUUID: task, CriterionID: "empathy"}}

	got, err := checkAnswers(items, []Answer{{TaskUUID: "6F1C2A3B-0000-4000-8000-000000000001", CriterionID: "greeting",
		Answer: Complies, Comment: " fine\n"}, {TaskUUID: task, CriterionID: "empathy", Answer: NotApplicable}}, true)
	require.NoError(t, err)
	require.Equal(t, []db.CalibrationAnswer{{TaskUUID: task, CriterionID: "greeting", Answer: Complies, Comment: "fine"},
		{TaskUUID: task, CriterionID: "empathy", Answer: NotApplicable}}, got)

	_, err = checkAnswers(items, []Answer{{TaskUUID: task, CriterionID: "greeting", Answer: Complies, Comment: "a\x00b"},
		{TaskUUID: task, CriterionID: "greeting", Answer: Complies}, {TaskUUID: task, CriterionID: "closing", Answer: Complies}}, true)
	require.True(t, errcode.Is(err, errcode.Invalid))
	var where []string
	for _, p := range err.(*errcode.Error).Problems {
		where = append(where, p.Location+": "+p.Message)
	}
	require.Equal(t, []string{
		"body.answers[0].comment: holds a control character",
		"body.answers[1].criterion_id: repeats answers[0]",
		"body.answers[2].criterion_id: is not a criterion of that interaction in this session (its scorecard version)",
		"body.answers: no answer for criterion empathy of task " + task,
	}, where)
	require.Equal(t, "the answers has 4 problem(s); nothing was changed", err.Error())

	_, err = checkAnswers(items, []Answer{{TaskUUID: task, CriterionID: "empathy", Answer: DoesNotComply}}, false)
	require.NoError(t, err, "calibrated answers may leave criteria out")
}
