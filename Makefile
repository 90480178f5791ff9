# The two commands: `make run` and `make test`. See README.md.
.PHONY: run test test-faults e2e fuzz web bench eval lint build fmt docs-assets stop-db

run:
	scripts/run.sh

test:
	scripts/test.sh

# Build the dashboard (web/ → web/dist, embedded by the next go build).
web:
	scripts/web.sh

# Only the dashboard's end-to-end tests (headless Chromium, real auditd and Postgres).
e2e:
	scripts/deps.sh browser
	scripts/web.sh
	scripts/with-test-db.sh scripts/e2e.sh

# The fault-injection suite (faults/): kill -9, database restarts, SMTP down,
# engine faults, SIGTERM under load; make test runs it too.
test-faults:
	scripts/faults.sh

# Every fuzz target for FUZZTIME (default 10s) each; make test runs it too.
fuzz:
	scripts/fuzz.sh

# The auditor against the labelled evaluation set (eval/): agreement per
# split, language, kind and criterion. SHOW=holdout|all|none lists other
# disagreements than dev's.
eval:
	go run ./cmd/auditeval -show $${SHOW:-dev}

# Benchmarks against a private Postgres; BENCH=regexp selects some.
bench:
	scripts/bench.sh

build: web
	go build -o bin/auditd ./cmd/auditd

lint:
	test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	go mod tidy -diff
	go vet ./...
	go vet -tags faults ./faults/
	go tool staticcheck ./...
	go tool staticcheck -tags faults ./faults/
	scripts/web.sh install
	cd web && npm run --silent lint

fmt:
	gofmt -w .
	cd web && npm run --silent fmt

# Refresh the embedded API docs assets from npm (pinned versions).
docs-assets:
	scripts/docs-assets.sh

# Stop the private development Postgres that `make run` started.
stop-db:
	scripts/pg.sh stop data/pg
