// Package dbtest gives each test its own migrated Postgres database, cloned
// from a template that is migrated once per schema version, so test packages
// and tests run in parallel without sharing rows.
//
// The server comes from TEST_DATABASE_URL (`make test` starts a private
// throwaway cluster and sets it).
package dbtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/migrations"
	"github.com/auditd/auditd/scoring"
)

var template struct {
	once sync.Once
	name string
	err  error
}

// URL returns the connection string of a new database that holds the whole
// migrated schema and nothing else. The database is dropped when t ends.
func URL(t testing.TB) string {
	t.Helper()
	admin := adminURL(t)
	template.once.Do(func() { template.name, template.err = ensureTemplate(context.Background(), admin) })
	require.NoError(t, template.err)
	return create(t, admin, " TEMPLATE "+template.name)
}

// EmptyURL returns the connection string of a new, empty database (no
// schema at all), dropped when t ends. Tests of the migrations use it.
func EmptyURL(t testing.TB) string {
	t.Helper()
	return create(t, adminURL(t), "")
}

func adminURL(t testing.TB) string {
	admin := os.Getenv("TEST_DATABASE_URL")
	if admin == "" {
		t.Fatal("TEST_DATABASE_URL is not set: run the tests with `make test`, which starts a private Postgres")
	}
	return admin
}

func create(t testing.TB, admin, options string) string {
	t.Helper()
	ctx := context.Background()
	name := "test_" + randomHex(8)
	conn, err := pgx.Connect(ctx, admin)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+name+options)
	require.NoError(t, err)
	t.Cleanup(func() { drop(admin, name) })
	u, err := replaceDatabase(admin, name)
	require.NoError(t, err)
	return u
}

// Pool returns a pool on a new database from URL, closed when t ends.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return PoolFor(t, URL(t))
}

// ForTasks returns a pool on a new database ready for tasks: its user "qa"
// uploads them, to the default campaign, which it returns.
func ForTasks(t testing.TB) (*pgxpool.Pool, db.Campaign) {
	t.Helper()
	ctx := context.Background()
	pool := Pool(t)
	_, err := db.UserSeen(ctx, pool, db.UserProfile{ID: "qa", Username: "qa"}, time.Now())
	require.NoError(t, err)
	campaign, err := db.CampaignGetByName(ctx, pool, db.DefaultCampaign)
	require.NoError(t, err)
	return pool, campaign
}

// Strings returns the values of the one text column that query (over
// args) yields, in its order.
func Strings(t testing.TB, q db.DBTX, query string, args ...any) []string {
	t.Helper()
	rows, err := q.Query(context.Background(), query, args...)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return out
}

// PoolFor returns a pool on the database at url, opened as the service
// opens its own (db.Open), closed when t ends.
func PoolFor(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := db.Open(context.Background(), url, 10*time.Second)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// ensureTemplate creates and migrates the template database for the current
// migrations unless a previous package already did.
func ensureTemplate(ctx context.Context, admin string) (string, error) {
	name, err := templateName()
	if err != nil {
		return "", err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", fmt.Errorf("connect to TEST_DATABASE_URL: %w", err)
	}
	defer conn.Close(ctx)
	// Test packages run as separate processes: serialise template creation.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(7411)"); err != nil {
		return "", err
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock(7411)") //nolint:errcheck // ends with the connection anyway

	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_building"
	if _, err := conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", building)); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		return "", err
	}
	buildURL, err := replaceDatabase(admin, building)
	if err != nil {
		return "", err
	}
	pool, err := pgxpool.New(ctx, buildURL)
	if err != nil {
		return "", err
	}
	err = db.Migrate(ctx, pool)
	pool.Close()
	if err != nil {
		return "", err
	}
	// Renaming last means a half-built template is never used.
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", building, name)); err != nil {
		return "", err
	}
	return name, nil
}

// templateName changes whenever a migration changes, so a stale template is
// never reused by a long-lived TEST_DATABASE_URL.
func templateName() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		h.Write([]byte(path))
		h.Write(b)
		return err
	})
	if err != nil {
		return "", err
	}
	river, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "river:%d", len(river.AllVersions()))
	// Migrate also seeds the default scorecard.
	card, err := scoring.DefaultScorecard("es")
	if err != nil {
		return "", err
	}
	if err := json.NewEncoder(h).Encode(card); err != nil {
		return "", err
	}
	return "tmpl_" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

func replaceDatabase(admin, name string) (string, error) {
	u, err := url.Parse(admin)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("TEST_DATABASE_URL must be a postgres:// URL: %q", admin)
	}
	u.Path = "/" + name
	return u.String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func drop(admin, name string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	_, _ = conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
}

// SeedTasks inserts n audited-looking tasks into pool's database (the
// large benchmarks' data) spread over the last year, with
// 200 agents and the default scorecard's criteria; a quarter of the audits
// have an item to review, and the engine made seven verdicts in each, of
// which it was confident of five to seven.
func SeedTasks(t testing.TB, pool *pgxpool.Pool, n int) {
	t.Helper()
	ctx := context.Background()
	_, err := pool.Exec(ctx, `INSERT INTO users (id, username) VALUES ('seed', 'seed')`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `
		INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
			operator_id, language, uploaded_by, duration_seconds, created_at, updated_at, score, passed, audited_at,
			audit_revision, judged_criteria, failed_criteria, review_items, engine_verdicts, engine_confident)
		SELECT gen_random_uuid(), k.kind, CASE WHEN s.score IS NULL THEN 'queued' WHEN i % 7 = 0 THEN 'validated' ELSE 'audited' END,
			'seed-' || i || '.wav', 'audio/wav', 1000, encode(sha256(i::text::bytea), 'hex'), 'seed/' || i,
			(SELECT id FROM campaigns WHERE name = 'default'), 'agent-' || (i % 200), 'es', 'seed',
			CASE WHEN k.kind = 'call' THEN 60 + i % 600 END, c.at, c.at, s.score, s.score >= 85,
			CASE WHEN s.score IS NOT NULL THEN c.at + (30 + i % 600) * interval '1 second' END,
			CASE WHEN s.score IS NOT NULL THEN 1 END,
			CASE WHEN s.score IS NOT NULL THEN ARRAY['greeting', 'verification', 'no_forbidden_phrases', 'empathy',
				'resolution', 'further_help', 'farewell'] END,
			CASE WHEN s.score IS NOT NULL THEN (ARRAY['greeting', 'verification', 'empathy'])[1:(i % 4)] END,
			CASE WHEN s.score IS NOT NULL THEN (i % 4 = 1)::int END,
			CASE WHEN s.score IS NOT NULL THEN 7 ELSE 0 END,
			CASE WHEN s.score IS NOT NULL THEN 7 - i % 3 ELSE 0 END
		FROM generate_series(1, $1) i,
			LATERAL (SELECT now() - (i % 365) * interval '1 day' - (i % 86400) * interval '1 second' AS at) c,
			LATERAL (SELECT CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 37 % 10001) / 100.0 END AS score) s,
			LATERAL (SELECT CASE WHEN i % 3 = 0 THEN 'chat' ELSE 'call' END AS kind) k`, n)
	require.NoError(t, err)
	// As the fold_task_stats job would, every few seconds, and autovacuum
	// after it.
	_, err = db.TaskStatsFold(ctx, pool)
	require.NoError(t, err)
	// The compaction gives way to a lock held for long (autovacuum's, on a
	// busy machine), as the job would; the job tries again at its next
	// fold, the seed at once.
	compacted := false
	for range 50 {
		if compacted, err = db.TaskStatsCompact(ctx, pool); err != nil || compacted {
			break
		}
	}
	require.NoError(t, err)
	// A small seed leaves too few pending changes to compact.
	var pending int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT pg_relation_size('task_stats_pending')`).Scan(&pending))
	require.True(t, compacted || pending <= 8<<20, "the seed's pending changes took more than a few pages")
	_, err = pool.Exec(ctx, `VACUUM ANALYZE tasks, task_stats_pending, task_stats_daily, task_stats`)
	require.NoError(t, err)
	// The seed's writes are flushed before anything is measured, not by a
	// checkpoint in the middle of it.
	_, err = pool.Exec(ctx, `CHECKPOINT`)
	require.NoError(t, err)
}

// searchWords are the words of SeedSearch's transcripts, the commonest
// first: a contact centre's Spanish.
var searchWords = strings.Fields(`cliente agente gracias hola factura buenos días señor señora cuenta
	servicio número teléfono llamada problema pago tarjeta línea datos ayuda momento favor caso
	correo dirección nombre contrato tarifa cargo mes semana hoy mañana tarde noche minutos horas
	consulta gestión solicitud incidencia técnico visita router fibra móvil internet conexión señal
	cobertura plan oferta precio euros importe recibo banco transferencia domiciliación saldo deuda
	cancelar cambiar activar revisar comprobar confirmar verificar enviar recibir llegar esperar
	entiendo disculpe perdone lamento siento claro perfecto vale bueno exacto correcto efectivamente
	sistema aplicación página web contraseña usuario acceso clave código referencia expediente
	pedido envío paquete entrega devolución producto tienda almacén transportista seguimiento
	póliza seguro siniestro cobertura perito taller coche hogar vivienda daños parte asistencia
	vuelo reserva billete maleta equipaje aeropuerto retraso conexión embarque asiento
	cita médico consulta receta farmacia tratamiento prueba resultado especialista urgencias
	luz gas agua contador lectura suministro corte avería potencia instalación permanencia
	portabilidad operador competencia compañía baja alta renovación descuento promoción regalo
	queja reclamación supervisor responsable departamento área equipo compañero encargado
	documento dni nie pasaporte fecha nacimiento titular firma autorización copia original`)

// SeedSearch gives every task of pool's database (SeedTasks's) a
// transcript of 60 of searchWords, the commonest most often, and its
// search document, as the service would have written them. Among them,
// "reembolso" is said in about one task in a hundred and "tarjeta
// bloqueada" in about one in ten thousand.
func SeedSearch(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	_, err := pool.Exec(ctx, `
		INSERT INTO transcripts (task_uuid, text, segments, engine, language)
		SELECT t.uuid, concat_ws(' ', x.text,
				CASE WHEN random() < 0.01 THEN 'Le tramito el reembolso.' END,
				CASE WHEN random() < 0.0001 THEN 'Tiene la tarjeta bloqueada.' END),
			'[]', 'seed', 'es'
		FROM tasks t, LATERAL (
			SELECT string_agg(($1::text[])[1 + floor(random() ^ 3 * cardinality($1::text[]))::int], ' ') AS text
			FROM generate_series(1, 60) WHERE t.uuid IS NOT NULL) x`, searchWords)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `
		INSERT INTO task_search (task_uuid, created_at, document, operator_id, status, score)
		SELECT uuid, created_at, task_search_document(uuid), operator_id, status, score FROM tasks`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `VACUUM ANALYZE transcripts, task_search`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `CHECKPOINT`)
	require.NoError(t, err)
}

// SeedReviews adds to SeedTasks' tasks what 20 analysts (analyst-0 …
// analyst-19) did with them: one audit in ten is edited, 1 to 72 hours
// after it was made, one in thirty a second time an hour later; every
// validated task is validated 75 to 122 hours after its audit (after its
// edits). The large analyst benchmarks' data; the tasks themselves are
// left as they are.
func SeedReviews(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	for _, sql := range []string{
		`INSERT INTO users (id, username) SELECT 'analyst-' || a, 'analyst-' || a FROM generate_series(0, 19) a`,
		`INSERT INTO audit_revisions (task_uuid, revision, scorecard_version, score, passed, result, source, author_id,
			author_name, created_at)
		SELECT t.uuid, e.revision, 1, t.score, t.passed, '{}', 'analyst', 'analyst-' || s.i / 10 % 20, 'analyst-' || s.i / 10 % 20,
			t.audited_at + (1 + s.i % 72 + e.revision - 2) * interval '1 hour'
		FROM tasks t, LATERAL (SELECT split_part(split_part(t.file_name, '-', 2), '.', 1)::int AS i) s,
			LATERAL (SELECT 2 AS revision UNION ALL SELECT 3 WHERE s.i % 30 = 3) e
		WHERE t.uploaded_by = 'seed' AND s.i % 10 = 3`,
		`INSERT INTO validations (task_uuid, audit_revision, notes, validator_id, validator_name, validated_at, is_call,
			type, sent_to, request_hash)
		SELECT t.uuid, 1, 'Revisado.', 'analyst-' || s.i / 7 % 20, 'analyst-' || s.i / 7 % 20,
			t.audited_at + (75 + s.i % 48) * interval '1 hour', t.kind = 'call',
			CASE WHEN t.kind = 'call' THEN 'llamada' ELSE 'chat' END, '{qa@example.com}', encode(sha256(t.uuid::text::bytea), 'hex')
		FROM tasks t, LATERAL (SELECT split_part(split_part(t.file_name, '-', 2), '.', 1)::int AS i) s
		WHERE t.uploaded_by = 'seed' AND t.status = 'validated'`,
		`VACUUM ANALYZE audit_revisions, validations`,
		`CHECKPOINT`,
	} {
		_, err := pool.Exec(ctx, sql)
		require.NoError(t, err)
	}
}

// SeedChannels adds to SeedTasks' audited calls what their channels tell
// (call_channels): four in five stereo, with talk ratios from 30 to 79 %,
// silence shares from 0 to 39 %, one in four with dead air and, of the
// stereo ones, one in six with a hold and one in three with overtalk. The
// large report benchmarks' data.
func SeedChannels(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	for _, sql := range []string{
		`INSERT INTO call_channels (task_uuid, figures)
		SELECT t.uuid, jsonb_build_object('stereo', s.i % 5 <> 0, 'duration_seconds', t.duration_seconds, 'talk', '[]'::jsonb,
			'agent_talk_ratio', CASE WHEN s.i % 5 <> 0 THEN 0.3 + s.i % 50 / 100.0 END, 'silence_share', s.i % 40 / 100.0,
			'longest_silence_seconds', s.i % 90, 'dead_air_seconds', 10,
			'dead_air', CASE WHEN s.i % 4 = 0 THEN '[{"start": 1, "end": 12}]' ELSE '[]' END::jsonb,
			'overtalk', CASE WHEN s.i % 3 = 0 THEN '[{"start": 20, "end": 21.5}]' ELSE '[]' END::jsonb,
			'overtalk_seconds', CASE WHEN s.i % 3 = 0 THEN 1.5 ELSE 0 END,
			'holds', CASE WHEN s.i % 6 = 1 THEN '[{"start": 30, "end": 55}]' ELSE '[]' END::jsonb)
		FROM tasks t, LATERAL (SELECT split_part(split_part(t.file_name, '-', 2), '.', 1)::int AS i) s
		WHERE t.uploaded_by = 'seed' AND t.kind = 'call' AND t.status <> 'queued'`,
		`VACUUM ANALYZE call_channels, call_channels_calls`,
		`CHECKPOINT`,
	} {
		_, err := pool.Exec(ctx, sql)
		require.NoError(t, err)
	}
}

// PercentileMS returns the p-th quantile of ds (sorting it) in
// milliseconds, for the latency benchmarks.
func PercentileMS(ds []time.Duration, p float64) float64 {
	slices.Sort(ds)
	return float64(ds[int(p*float64(len(ds)))].Microseconds()) / 1000
}
