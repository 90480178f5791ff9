package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auditd/auditd/auditor"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/workers"
	"github.com/auditd/auditd/workers/mail"
)

// startWorkers works the bundle's jobs with the real workers (deps, with
// the bundle's pool and store, the rules auditor and an outbox mailer
// unless given) until t ends, and returns a channel of the jobs they finish.
func (b *testBundle) startWorkers(t *testing.T, deps workers.Deps) <-chan *river.Event {
	t.Helper()
	events, _ := b.startWorkersWith(t, deps, nil)
	return events
}

// startWorkersWith is startWorkers with the River configuration adjusted by
// configure (when not nil); it also returns the client, to stop it early.
func (b *testBundle) startWorkersWith(t *testing.T, deps workers.Deps, configure func(*river.Config)) (<-chan *river.Event, *river.Client[pgx.Tx]) {
	t.Helper()
	client := b.workerClient(t, deps, configure)
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled)
	require.NoError(t, client.Start(context.Background()))
	t.Cleanup(func() {
		cancel()
		require.NoError(t, client.Stop(context.Background()))
	})
	return events, client
}

// runPeriodic runs a periodic job now on client, as its schedule would,
// and waits for it to complete (events: startWorkersWith's).
func runPeriodic(t *testing.T, client *river.Client[pgx.Tx], events <-chan *river.Event, args river.JobArgs) {
	t.Helper()
	// Unique among the jobs not run yet only: the last one ran.
	res, err := client.Insert(context.Background(), args, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled}}})
	require.NoError(t, err)
	require.False(t, res.UniqueSkippedAsDuplicate)
	for {
		select {
		case ev := <-events:
			if ev.Job.ID == res.Job.ID {
				require.Equal(t, river.EventKindJobCompleted, ev.Kind)
				return
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s did not complete", args.Kind())
		}
	}
}

// workerClient is the River client, not started, of startWorkersWith.
func (b *testBundle) workerClient(t *testing.T, deps workers.Deps, configure func(*river.Config)) *river.Client[pgx.Tx] {
	t.Helper()
	deps.Pool, deps.Store = b.pool, b.store
	if deps.Auditor == nil {
		deps.Auditor = &auditor.Rules{}
	}
	if deps.Mailer == nil {
		var err error
		deps.Mailer, err = mail.New(mail.Config{From: "auditd@example.test", Dir: t.TempDir()})
		require.NoError(t, err)
	}
	ws := river.NewWorkers()
	workers.Register(ws, deps)
	cfg := &river.Config{
		Workers: ws, Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 4}},
		FetchCooldown: 10 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond,
	}
	if configure != nil {
		configure(cfg)
	}
	client, err := river.NewClient(riverpgxv5.New(b.pool), cfg)
	require.NoError(t, err)
	return client
}

// waitStatus waits for task uuid to reach status and returns its detail.
func (b *testBundle) waitStatus(t *testing.T, token, uuid, status string) map[string]any {
	t.Helper()
	var d map[string]any
	require.Eventually(t, func() bool {
		r := b.do(t, http.MethodGet, "/tasks/"+uuid, token, nil)
		d = details(r)
		return d["status"] == status || d["status"] == "failed"
	}, 30*time.Second, 20*time.Millisecond)
	require.Equal(t, status, d["status"], "error: %v", d["error"])
	return d
}

const goodChat = `Agente: Buenos dias, gracias por contactar con Telecable, le atiende Marta.
Cliente: Hola, me han cobrado dos veces la factura de este mes.
Agente: Vaya, lo siento mucho, entiendo su preocupacion. Para ayudarle, me indica su DNI?
Cliente: Si, 53210987K.
Agente: Gracias. Efectivamente veo el cargo duplicado. Ya esta solucionado, le devolvemos el importe en 48 horas.
Cliente: Estupendo, gracias.
Agente: Hay algo mas en lo que pueda ayudarle?
Cliente: No, nada mas.
Agente: Gracias a usted, que tenga un buen dia.
`

const rudeChat = `Agente: Si.
Cliente: Hola, tengo un problema con la factura.
Agente: Eso no es mi problema, llame a otro departamento.
Cliente: Pero...
Agente: Adios.
`

func TestChatUploadedEndToEndIsAudited(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorkers(t, workers.Deps{})
	alice, _, _ := b.users(t)

	tasks := uploaded(t, b.upload(t, alice, file("good.txt", []byte(goodChat)), file("rude.txt", []byte(rudeChat)),
		field("language", "es")))
	good := b.waitStatus(t, alice, tasks[0]["uuid"].(string), "audited")
	rude := b.waitStatus(t, alice, tasks[1]["uuid"].(string), "audited")

	audit := good["audit"].(map[string]any)
	require.Equal(t, float64(1), audit["revision"])
	require.Equal(t, "engine", audit["source"])
	require.Equal(t, "rules", audit["engine"])
	require.Equal(t, float64(1), audit["scorecard_version"])
	require.Equal(t, true, audit["passed"])
	require.Equal(t, float64(100), audit["score"])
	auditItems := audit["items"].([]any)
	require.Len(t, auditItems, 7, "the recording notice applies to calls only")
	for _, it := range auditItems {
		item := it.(map[string]any)
		require.Equal(t, true, item["complies"], item)
		require.NotEmpty(t, item["explanation"])
	}
	require.NotEmpty(t, audit["categories"])
	revisions := good["revisions"].([]any)
	require.Len(t, revisions, 1)

	bad := rude["audit"].(map[string]any)
	require.Equal(t, float64(0), bad["score"], "a forbidden phrase is a critical failure")
	require.Equal(t, false, bad["passed"])
	require.Contains(t, bad["failed_critical"], "no_forbidden_phrases")

	// The history is complete and the uploader was told both results.
	var statuses []string
	for _, h := range good["history"].([]any) {
		statuses = append(statuses, h.(map[string]any)["to"].(string))
	}
	require.Equal(t, []string{"transcribed", "auditing", "audited"}, statuses)
	require.Len(t, items(t, b.do(t, http.MethodGet, "/notifications", alice, nil)), 2)

	// Listing sorts and filters by score.
	r := b.do(t, http.MethodGet, "/tasks?sort=score&order=desc", alice, nil)
	list := details(r)["tasks"].([]any)
	require.Equal(t, tasks[0]["uuid"], list[0].(map[string]any)["uuid"])
	require.Equal(t, float64(100), list[0].(map[string]any)["score"])
	r = b.do(t, http.MethodGet, "/tasks?passed=false", alice, nil)
	require.Len(t, details(r)["tasks"].([]any), 1)
	r = b.do(t, http.MethodGet, "/tasks?min_score=50", alice, nil)
	require.Len(t, details(r)["tasks"].([]any), 1)
	r = b.do(t, http.MethodGet, "/tasks?sort=score&order=asc&limit=1", alice, nil)
	next := details(r)["next"].(string)
	r = b.do(t, http.MethodGet, "/tasks?sort=score&order=asc&limit=1&cursor="+next, alice, nil)
	require.Equal(t, tasks[0]["uuid"], details(r)["tasks"].([]any)[0].(map[string]any)["uuid"])

	// A scorecard published since is the next audit's: the workers keep
	// the scorecards they read, by version.
	r = b.do(t, http.MethodGet, "/campaigns", alice, nil)
	campaign := r.Body["details"].([]any)[0].(map[string]any)["id"].(string)
	r = b.do(t, http.MethodGet, "/campaigns/"+campaign+"/scorecard", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	criteria := details(r)["criteria"].([]any)
	sup := b.issuer.token(t, "sue", "supervisor")
	r = b.json(t, http.MethodPut, "/campaigns/"+campaign+"/scorecard", sup, map[string]any{"criteria": criteria[1:]})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	more := uploaded(t, b.upload(t, alice, file("later.txt", []byte(goodChat+"Cliente: Adios.\n")), field("language", "es")))
	later := b.waitStatus(t, alice, more[0]["uuid"].(string), "audited")["audit"].(map[string]any)
	require.Equal(t, float64(2), later["scorecard_version"])
	require.Len(t, later["items"].([]any), len(auditItems)-1)
}

// The server writes each user's notifications in their language: the
// token's locale claim, or the one they chose, which claims then keep.
func TestNotificationsInTheUsersLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorkers(t, workers.Deps{})
	claims := b.issuer.claims("sub-lucia")
	claims["roles"], claims["locale"] = []string{"quality"}, "es_ES"
	lucia := b.issuer.sign(t, claims)
	me := details(b.do(t, http.MethodGet, "/users/me", lucia, nil))
	require.Equal(t, "es-ES", me["locale"])
	require.Equal(t, false, me["locale_chosen"])

	texts := func() []string {
		var out []string
		for _, n := range items(t, b.do(t, http.MethodGet, "/notifications", lucia, nil)) {
			out = append(out, n["text"].(string))
		}
		return out
	}
	tasks := uploaded(t, b.upload(t, lucia, file("bueno.txt", []byte(goodChat)), field("language", "es")))
	b.waitStatus(t, lucia, tasks[0]["uuid"].(string), "audited")
	require.Equal(t, []string{"bueno.txt se ha auditado: 100,00, aprobada (nota de aprobado 85,00)."}, texts())

	// Chosen in the dashboard: English from now on, whatever the token says.
	r := b.do(t, http.MethodPatch, "/users/me", lucia, strings.NewReader(`{"locale":"en"}`))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "en", details(r)["locale"])
	require.Equal(t, true, details(r)["locale_chosen"])
	require.Equal(t, "en", details(b.do(t, http.MethodGet, "/users/me", lucia, nil))["locale"], "the claim no longer changes it")
	tasks = uploaded(t, b.upload(t, lucia, file("rude.txt", []byte(rudeChat)), field("language", "es")))
	b.waitStatus(t, lucia, tasks[0]["uuid"].(string), "audited")
	require.Contains(t, texts(), "rude.txt was audited: 0.00, did not pass (passing score 85.00).")

	// Only a language the service writes, as the documented error.
	for _, body := range []string{`{"locale":"fr"}`, `{"locale":""}`, `{"locale":"es","role":"admin"}`} {
		requireError(t, b.do(t, http.MethodPatch, "/users/me", lucia, strings.NewReader(body)), http.StatusBadRequest, CodeValidation)
	}
	requireError(t, b.do(t, http.MethodPatch, "/users/me", lucia, strings.NewReader(`{}`)), http.StatusBadRequest, CodeMissingFields)
	require.Equal(t, "en", details(b.do(t, http.MethodGet, "/users/me", lucia, nil))["locale"])
}
