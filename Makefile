# The two commands a newcomer needs: `make dev` and `make test`.
# Everything else is here for contributors and CI.

FUNCTIONS := create redirect originauth apiauth manage stats ttlstream reclaim clicks webhooks webhookdelivery webhookstream auditarchive
GO_BUILD  := CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -tags lambda.norpc -trimpath -ldflags "-s -w"
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20

.PHONY: dev test prereqs build lint bench fuzz synth synth-all clean

## dev: install what is missing, then run everything on 127.0.0.1:8080: DynamoDB Local, kinesalite, the local CloudFront (cache, real-time log to Kinesis), API Gateway and the stream pollers (Ctrl-C stops all)
dev: prereqs
	go run ./cmd/shortener-local

## test: the whole suite, with one DynamoDB Local and one kinesalite shared by every package
test: prereqs
	scripts/with-emulators.sh go test -count=1 -timeout 25m ./...

prereqs:
	@scripts/prereqs.sh

## build: every function as an arm64 bootstrap, zipped under build/
build:
	@scripts/prereqs.sh --build
	@for fn in $(FUNCTIONS); do \
	  if [ -d functions/$$fn ]; then \
	    mkdir -p build/$$fn && $(GO_BUILD) -o build/$$fn/bootstrap ./functions/$$fn && \
	    (cd build/$$fn && rm -f ../$$fn.zip && zip -q -X ../$$fn.zip bootstrap) && \
	    printf '%-10s %8d bytes\n' $$fn $$(stat -c %s build/$$fn/bootstrap) || exit 1; \
	  fi; \
	done

## lint: gofmt, go vet and staticcheck
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...
	go run $(STATICCHECK) ./...

## bench: the benchmarks, against DynamoDB Local where they need it
bench: prereqs
	scripts/with-emulators.sh go test -run '^$$' -bench . -benchmem -count 1 ./...

## fuzz: a short run of every fuzz target (the seed corpora also run in `make test`)
fuzz:
	@for target in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$target/*_test.go | sed 's/func //'); do \
	    echo "fuzz $$target $$f"; go test -run '^$$' -fuzz "^$$f$$" -fuzztime 20s $$target || exit 1; \
	  done; \
	done

# CDK gets a HOME inside build/ so it writes nothing outside the repo; the Go
# settings are pinned so that HOME change does not move the module cache.
CDK_ENV = HOME=$(CURDIR)/build/cdk-home GOENV=$(shell go env GOENV) GOPATH=$(shell go env GOPATH) \
	GOMODCACHE=$(shell go env GOMODCACHE) GOCACHE=$(shell go env GOCACHE) NPM_CONFIG_UPDATE_NOTIFIER=false

# SYNTH_FLAGS adds context to make synth, SYNTH_OUT moves its output.
SYNTH_OUT ?= build/cdk.out
SYNTH_FLAGS ?=
# Every optional feature on, with placeholder values (docs/deploy.md, "Context").
SYNTH_ALL = -c waf=true -c alarmEmail=ops@example.com -c hostedZoneId=Z0123456789EXAMPLE -c hostedZoneName=sho.rt \
	-c domainName=sho.rt -c certificateArn=arn:aws:acm:us-east-1:123456789012:certificate/0b5c2a8e-1111-2222-3333-444455556666 -c auth=true \
	-c auditArchive=true

## synth: every stack's template in build/cdk.out, cdk-nag included (offline: a placeholder account), then checked with CloudFormation Guard's Control Tower rules
synth: build
	@mkdir -p build/cdk-home
	$(CDK_ENV) npx --no-install cdk synth -c account=123456789012 $(SYNTH_FLAGS) -o $(SYNTH_OUT) -q
	scripts/guard.sh $(SYNTH_OUT)

## synth-all: make synth with every optional feature on (WAF, custom domain and certificate, hosted zone, alarm e-mail, sign-in, the audit archive), into build/cdk.out-all
synth-all:
	$(MAKE) synth SYNTH_OUT=build/cdk.out-all SYNTH_FLAGS='$(SYNTH_ALL)'

clean:
	rm -rf build .dev

.PHONY: load soak cost enumsim

# A seed group's volume (one group of 64 buckets: the packedclicks package doc has the scaling) and 10x
# per group (the same clicks over a tenth of the span), printed side by side; COST_FLAGS= runs the
# small default stream through both designs instead.
COST_FLAGS ?= -design new -records 3000000 -codes 10000000 -span 26h -groups 1 -buckets 64 -merge-bytes 131072 -creates 10 -queries 20 -volumes 10

## cost: what a click (at a seed group's volume and 10x), a create, a redirect miss and a stats query consume in DynamoDB, measured on DynamoDB Local (about 7 minutes; COST_FLAGS passes cmd/cost's flags)
cost: prereqs
	go run ./cmd/cost $(COST_FLAGS)

## load: the redirect and create paths under load next to their baselines, on 127.0.0.1 only (about 7 minutes; LOAD_FLAGS passes cmd/loadgen's flags)
load: prereqs
	go run ./cmd/loadgen $(LOAD_FLAGS)

## enumsim: a code scanner and a legitimate client against the local run, on 127.0.0.1 only (about a minute; ENUMSIM_FLAGS passes cmd/enumsim's flags)
enumsim: prereqs
	go run ./cmd/enumsim $(ENUMSIM_FLAGS)

## soak: mixed traffic against the local run for SOAK_DURATION (default 5m, start and checks included), then one summary line and one of the cost model's inputs it measured
soak: prereqs
	go run ./cmd/soak
