# The two commands: `make run` and `make test`. See README.md.
.PHONY: run test bench lint build fmt docs-assets stop-db

run:
	scripts/run.sh

test:
	scripts/test.sh

# Every Benchmark* function (no tests), against the same private Postgres.
bench:
	GOTESTFLAGS='-run=^$$ -bench=.' scripts/test.sh

build:
	go build -o bin/auditd ./cmd/auditd

lint:
	test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	go vet ./...

fmt:
	gofmt -w .

# Refresh the embedded API docs assets from npm (pinned versions).
docs-assets:
	scripts/docs-assets.sh

# Stop the private development Postgres that `make run` started.
stop-db:
	scripts/pg.sh stop data/pg
