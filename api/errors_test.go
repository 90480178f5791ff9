package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/errcode"
)

// TestTranslate checks the one translation of errors into the error model:
// domain codes by the table, their messages shown, everything else a plain
// INTERNAL_ERROR whose text stays in the log.
func TestTranslate(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, c := range []struct {
		err     error
		status  int
		code    string
		message string
	}{
		{errcode.New(errcode.NotFound, "no task t1"), 404, CodeNotFound, "no task t1"},
		{fmt.Errorf("load: %w", errcode.New(errcode.Conflict, "a campaign called %q exists already", "x")), 409, CodeConflict, `a campaign called "x" exists already`},
		{errcode.New(errcode.Invalid, "the score is out of range"), 400, CodeValidation, "the score is out of range"},
		{errcode.Wrap(errcode.Internal, errcode.New(errcode.NotFound, "no campaign is called \"default\""), "the default campaign is missing"), 500, CodeInternal, internalMessage},
		{errors.New(`ERROR: relation "tasks" does not exist (SQLSTATE 42P01)`), 500, CodeInternal, internalMessage},
		{Errorf(CodeForbidden, "no"), 403, CodeForbidden, "no"},
	} {
		e := translate(ctx, c.err)
		require.Equal(t, c.status, e.GetStatus(), c.err.Error())
		require.Equal(t, c.code, e.Code, c.err.Error())
		require.Equal(t, c.message, e.Message, c.err.Error())
	}
}

// TestEveryOperationTranslatesItsErrors proves that no handler returns a
// bare error to a client: with every table but the users' gone, each
// operation that reaches the database fails there with Postgres's own
// words, and every answer is still the error model with none of them.
func TestEveryOperationTranslatesItsErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root := b.issuer.token(t, "bare-root", "admin")
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", root, nil).Status)
	_, err := b.pool.Exec(t.Context(), `DO $$ DECLARE r record; BEGIN
		FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema()
			AND tablename NOT IN ('users', 'goose_db_version') LOOP
			EXECUTE format('ALTER TABLE %I RENAME TO %I', r.tablename, 'gone_' || r.tablename);
		END LOOP; END $$`)
	require.NoError(t, err)
	o := objects{task: "00000000-0000-4000-8000-000000000001", notification: "00000000-0000-4000-8000-000000000002", campaign: "00000000-0000-4000-8000-000000000003"}
	failed := 0
	for _, rt := range routes(t, b.server) {
		header := http.Header{"Authorization": {"Bearer " + root}}
		r := b.send(t, rt.method, o.fill(rt.path), header)
		if r.Status < 400 {
			continue // answered without the database (docs, health, a stream)
		}
		require.Equal(t, false, r.Body["success"], "%s: %s", rt, r.RawBody)
		require.Contains(t, codeStatus, r.Body["code"], "%s: %s", rt, r.RawBody)
		for _, leak := range []string{"relation", "SQLSTATE", "gone_", "does not exist"} {
			require.NotContains(t, strings.ToLower(r.RawBody), strings.ToLower(leak), rt.String())
		}
		if r.Status == http.StatusInternalServerError {
			require.Equal(t, internalMessage, r.Body["message"], rt.String())
			failed++
		}
	}
	t.Logf("%d operations failed at the database", failed)
	require.Greater(t, failed, 15, "the operations reached the database")

	// A file whose recognition fails at the database is the service's
	// failure, not a malformed request.
	r := b.upload(t, root, file("chat.txt", []byte("Agent: Hello\nCustomer: Hi\n")))
	requireError(t, r, http.StatusInternalServerError, CodeInternal)
	require.Equal(t, internalMessage, r.Body["message"])
}

// TestNoLibraryTextInErrors: what a parser says of a bad request (a
// malformed multipart header, an address with a line break) quotes the
// request back; the answer says it in our words, located, quoting nothing.
func TestNoLibraryTextInErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.issuer.token(t, "root", "admin")
	requireOurs := func(r response, location string) {
		t.Helper()
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		for _, leak := range []string{"<script>", "MIME", "mail:", "Bcc", "evil", "\\r", "\u202e", "invalid character", "looking for"} {
			require.NotContains(t, r.RawBody, leak)
		}
		details := r.Body["details"].([]any)
		require.Len(t, details, 1, r.RawBody)
		require.Equal(t, location, details[0].(map[string]any)["location"], r.RawBody)
	}
	malformed := "--XX\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\nBad Header <script>\r\n\r\nhello\r\n--XX--\r\n"
	for _, path := range []string{"/tasks/upload", "/validate-audit"} {
		r := b.do(t, http.MethodPost, path, admin, strings.NewReader(malformed), "Content-Type", "multipart/form-data; boundary=XX")
		requireOurs(r, "body")
		require.Contains(t, r.Body["message"], "part 1")
	}
	for _, email := range []string{"a@b.test\r\nBcc: evil@x.test", "a\u202e@b.test", "Evil <a@b.test>"} {
		body, _ := json.Marshal(map[string]any{"name": "Emails", "supervisor_emails": []string{"ok@b.test", email}})
		r := b.do(t, http.MethodPost, "/campaigns", admin, bytes.NewReader(body), "Content-Type", "application/json")
		requireOurs(r, "body.supervisor_emails[1]")
	}
	r := setup(t, setupOpts{devIssuer: true}).devSignIn(t, `{"username": "maria", "roles": [1]}`)
	requireOurs(r, "body")
	require.NotContains(t, r.RawBody, "json:")
	require.NotContains(t, r.RawBody, "Go ")
}
