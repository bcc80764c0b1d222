# keel: the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
DATA_DIR ?= ./.keel
LISTEN ?= 127.0.0.1:9511
CUE_VERSION := $(shell awk '$$1=="cuelang.org/go"{print $$2}' go.mod)

.PHONY: addons run build test unit testbin testbin-gitea test-deps openstack capo bench bench-fleet docs generate verify lint fmt vet

## run: build keel and serve the Magnum API on the embedded default
run: build testbin
	./bin/keel serve --data-dir $(DATA_DIR) --listen $(LISTEN)

build: addons
	$(GO) build -o bin/keel ./cmd/keel

## addons: copy the upstream charts the addons render (addons/sources.yaml) from the Go module cache into the git-ignored addons/*/upstream/, which the binary embeds
addons:
	$(GO) run ./hack/addons

## testbin: build kube-apiserver, kube-controller-manager and etcd once, into ~/.cache/keel/testbin
testbin:
	@bash hack/testbin.sh >/dev/null

## testbin-gitea: also build the Gitea server the review-mode tests run (hack/gitea.sh)
testbin-gitea:
	@bash hack/testbin.sh --gitea >/dev/null

## test-deps: what the tests need besides Go (git, the cue CLI, PostgreSQL, RabbitMQ and oslo.messaging)
test-deps:
	@bash hack/test-deps.sh $(CUE_VERSION)

## openstack: start (once; again is a no-op) the real OpenStack the TestRealOpenStack tests use, on loopback (hack/openstack.sh, docs/openstack.md)
openstack:
	@bash hack/openstack.sh up >/dev/null

## capo: build the real CAPO and ORC managers (their own modules, hack/capo.sh) once, into ~/.cache/keel/testbin
capo:
	@bash hack/capo.sh >/dev/null

## test: (hack/test.sh: two go test runs side by side, the real-OpenStack world and the rest) unit and integration tests (a real kube-apiserver + etcd, SQLite and PostgreSQL, git, cue, a real OpenStack) and the conformance suites (tempest, gophercloud; docs/conformance.md)
test: addons test-deps testbin-gitea capo openstack
	KEEL_REQUIRE_CUE=1 KEEL_REQUIRE_POSTGRES=1 KEEL_REQUIRE_OPENSTACK_CLI=1 KEEL_REQUIRE_SOPS=1 KEEL_REQUIRE_CONFORMANCE=1 KEEL_REQUIRE_MAGNUM=1 KEEL_REQUIRE_MARIADB=1 KEEL_REQUIRE_RABBITMQ=1 KEEL_REQUIRE_BARBICAN=1 \
	KEEL_REQUIRE_OPENSTACK=1 KEEL_OPENSTACK_ENV="$${KEEL_OPENSTACK_ENV:-$$(bash hack/openstack.sh env)}" \
	KEEL_TEST_POSTGRES="$${KEEL_TEST_POSTGRES:-postgres://keel:keel@127.0.0.1:5432/keel_test?sslmode=disable}" \
	PATH="$$(go env GOPATH)/bin:$$PATH" bash hack/test.sh $(GOTESTFLAGS)

## bench: Go benchmarks (speed and allocations)
bench: addons testbin
	$(GO) test -p 1 -run '^$$' -bench . -benchmem -timeout 40m ./...

## bench-fleet: a fleet through the real Cluster API controllers, measured end to end (hack/benchfleet, docs/performance.md); CHECKPOINTS=0,10,100 for a short run
CHECKPOINTS ?= 0,10,100,500,1000
bench-fleet: addons testbin
	$(GO) run ./hack/benchfleet -checkpoints $(CHECKPOINTS) $(BENCHFLEETFLAGS)

## docs: regenerate generated documentation (docs/labels.md)
docs:
	$(GO) test ./schemas -run TestLabelsDoc -update

## generate: rewrite every generated file (schemas/labels_gen.go, docs/labels.md, the compiler's golden files)
generate: addons
	$(GO) generate ./schemas
	$(GO) test -count=1 ./schemas -run 'TestLabelsGoConstants|TestLabelsDoc' -update
	$(GO) test -count=1 ./compiler -run 'TestGolden' -update

## verify: fail when a generated file is stale (regenerates, then compares with Git)
verify: generate
	@git diff --exit-code || { echo "generated files are stale: run make generate and commit the result" >&2; exit 1; }

## lint: golangci-lint (.golangci.yml: vet, staticcheck, errcheck, the layering, gofmt/goimports)
lint: addons
	"$$(bash hack/golangci-lint.sh)" run --allow-parallel-runners ./...

fmt:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
vet: addons
	$(GO) vet ./...
