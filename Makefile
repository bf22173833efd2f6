# kubeplay: `make run` serves the playground, `make test` runs every test.
GO      ?= go
# A workshop (KUBEPLAY_INSTRUCTOR_TOKEN set) is served to the attendees'
# machines: every address, over TLS.
LISTEN  ?= $(if $(KUBEPLAY_INSTRUCTOR_TOKEN),0.0.0.0:8080,127.0.0.1:8080)
# DATA=DIR keeps the store (and a workshop) in DIR across restarts.
DATA    ?=
SITE    := build/site
export GONOSUMDB = github.com/syumai

.PHONY: run test deps lint wasm-check site site-br site-floor ui-deps bench bench-browser bench-vs-kube fidelity kubectl-fidelity size size-check go-test ui-test browser-test \
	edge edge-deps edge-dev edge-test bench-edge bench-workshop conformance

# `make run` needs Go and Node (npm installs the UI's build tools on first use).
run: site
	$(GO) run ./playground --listen $(LISTEN) --site $(SITE) --kubeconfig-out kubeconfig $(if $(DATA),--data $(DATA))

test: deps lint wasm-check site size-check go-test ui-test browser-test edge-test

# What the tests need beyond Go, installed from Debian's packages when missing
# (with sudo when not root): gcc for -race, Node and npm, Chromium for the browser
# tests, openssl for the edge tests' HTTPS. kubectl, when missing, skips its tests.
MISSING_PKGS := $(if $(shell command -v gcc),,gcc libc6-dev) \
	$(if $(shell command -v node),,nodejs) $(if $(shell command -v npm),,npm) \
	$(if $(wildcard /usr/bin/chromium),,chromium) $(if $(shell command -v openssl),,openssl)
deps:
	@if [ -n "$(strip $(MISSING_PKGS))" ]; then \
		sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
		echo "installing $(strip $(MISSING_PKGS))"; \
		$$sudo apt-get update && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends $(strip $(MISSING_PKGS)); \
	fi
	@command -v kubectl >/dev/null || echo "WARNING: kubectl not found; the kubectl end-to-end tests will skip" >&2

go-test:
	$(GO) test -count=1 -race ./...

ui-test: ui-deps
	cd ui && npm test

# Headless Chromium drives the built playground through the native command.
browser-test: site-br
	cd ui && node --test test-browser/

# Formatting and vet gate every test run.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The core and the hosts that run it as wasm (the browser's and the edge's)
# must keep compiling for js/wasm; the web stand-in, the bridge and jsio are tested
# there, in Node.
wasm-check:
	GOOS=js GOARCH=wasm $(GO) build ./core/... ./wasm/... ./edge/...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/... ./edge/... ./core/web
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$$($(GO) env GOROOT)/lib/wasm/go_js_wasm_exec" ./core/web ./wasm/bridge ./wasm/jsio

ui/node_modules/.package-lock.json: ui/package-lock.json
	cd ui && npm ci --no-audit --no-fund

ui-deps: ui/node_modules/.package-lock.json

# The browser's modules are built without inlining in packages that are cold
# or rarely hot in a browser (server-side apply and YAML, CBOR, regexp,
# math/big, Tables and their JSONPath, validation, the registry's strategies
# and admission, CRDs, controllers): inlined copies of their calls cost 140 KB
# of the gzipped module, which every visitor downloads and compiles before the
# first answer.
# The store, JSON and the handler keep inlining; natively and at the edge
# nothing changes.
BROWSER_GCFLAGS := $(foreach p,sigs.k8s.io/... github.com/fxamacker/... github.com/x448/... regexp/... math/big \
	kubeplay/core/encoding/table kubeplay/core/jsonpath kubeplay/core/validation kubeplay/core/registry kubeplay/core/admission kubeplay/core/crd kubeplay/core/controllers/...,-gcflags=$(p)=-l)

# The CEL modules (cel-go; kubeplay-cel.wasm loaded on the first
# CustomResourceDefinition rule, kubeplay-vap.wasm on the first
# ValidatingAdmissionPolicy) are cold everywhere in a browser: built without
# inlining at all, and with the saturating-conversion and sign-extension
# instructions every browser has, to fit their 2 MiB each.

# The page's kubectl (kubeplay-kubectl.wasm, loaded when the terminal is first
# opened) waits on the network for every answer: it is built without inlining,
# 9% less to download.

# The playground as the browser gets it: page, bundle, tutorials, wasm, worker.
site: ui-deps
	if [ -d $(SITE) ]; then find $(SITE) -name '*.br' -delete; fi
	cd ui && node build.mjs --out ../$(SITE)
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $(SITE)/wasm_exec.js
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s $(BROWSER_GCFLAGS) -o $(SITE)/kubeplay.wasm ./wasm
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s $(BROWSER_GCFLAGS) -o $(SITE)/kubeplay-xds.wasm ./wasm/xds
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s $(BROWSER_GCFLAGS) -o $(SITE)/kubeplay-sim.wasm ./wasm/sim
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -gcflags=all=-l -o $(SITE)/kubeplay-kubectl.wasm ./wasm/kubectl
	GOWASM=satconv,signext GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -buildid=" -gcflags=all=-l -o $(SITE)/kubeplay-cel.wasm ./wasm/cel
	GOWASM=satconv,signext GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -buildid=" -gcflags=all=-l -o $(SITE)/kubeplay-vap.wasm ./wasm/vap
	cp core/openapi/documents.bin $(SITE)/openapi-documents.bin
	node serviceworker/build.mjs $(SITE)

# The site with a brotli copy (NAME.br, quality 11) of each module, script, style
# sheet and page, which the native command serves to browsers that take br: what
# the budgets count. Quality 11 takes minutes for the modules (kept in
# build/brotli-cache by content), so `make run` serves the site without them.
site-br: site
	node tools/precompress.mjs $(SITE)

# The same site with an empty Go wasm in place of the core: the browser floor;
# and with the floor carrying the core unstarted: what the core's size alone costs.
site-floor: site-br
	rm -rf build/site-floor && cp -r $(SITE) build/site-floor
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -o build/site-floor/kubeplay.wasm ./wasm/floor
	node serviceworker/build.mjs build/site-floor
	node tools/precompress.mjs build/site-floor
	rm -rf build/site-floor-linked && cp -r $(SITE) build/site-floor-linked
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s $(BROWSER_GCFLAGS) -tags linked -o build/site-floor-linked/kubeplay.wasm ./wasm/floor
	node serviceworker/build.mjs build/site-floor-linked
	node tools/precompress.mjs build/site-floor-linked

# Benchmarks report ratios against floors measured in the same run.
bench: bench-browser bench-edge
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=3s -count=1 ./core/...

# The native workshop's figures (WORK-1): 30 and then 100 simulated sandboxes in
# one process, each replaying the workshop script from its own client: RSS per
# active and per idle sandbox, a GET's p50 and p99 with all active as a ratio to
# one alone, the CPU of idle sandboxes (loaded, then unloaded). About 3 minutes.
# Never part of make test.
bench-workshop:
	$(GO) test ./playground -run='^$$' -bench=BenchmarkWORK_1_Workshop -benchtime=1x -count=1 -timeout=30m

bench-browser: site-floor
	cd ui && node test-browser/bench.mjs

# kubeplay side by side with a real kube-apiserver 1.32 (the refapi kit: kube-apiserver
# with an embedded etcd, ~300 MB to run), both durable, both over TLS; prints a table
# with kubeplay's advantage per row against its goals. Never part of make test.
# The kit is copied from REFAPI_KIT and built on first use (~3.5 min, needs the Go
# module proxy); BENCH_VS_KUBE_FLAGS passes flags (e.g. -runs 5 -v; -h lists them).
REFAPI_KIT ?= ../shared/refapi
REFAPI     := build/refapi
BENCH_VS_KUBE_FLAGS ?=
bench-vs-kube: $(REFAPI)/refapi
	$(GO) build -o build/benchvskube/bin/benchvskube ./tools/benchvskube
	build/benchvskube/bin/benchvskube -refapi $(REFAPI) -work build/benchvskube $(BENCH_VS_KUBE_FLAGS)

# Fidelity as a number (K8S-FID-1): N random sessions of SEED played against the
# playground command and the refapi kit's kube-apiserver, compared after
# normalizing what two servers must make differently; prints the score per
# verb, kind, representation and kind of input and writes every difference,
# minimized, to build/fidelity/report.md. Never part of make test. FIDELITY_FLAGS
# passes flags (e.g. -steps 40 -parallel 4; -only I replays session I; -h).
SEED ?= 1
N    ?= 400
FIDELITY_FLAGS ?=
fidelity: $(REFAPI)/refapi
	$(GO) build -o build/fidelity/bin/fidelity ./tools/fidelity
	build/fidelity/bin/fidelity -refapi $(REFAPI) -work build/fidelity -seed $(SEED) -n $(N) $(FIDELITY_FLAGS)

# The page's kubectl against kubectl 1.32 (LEARN-1): each scripted session of
# e2e/kubectlfidelity/testdata/sessions played by /usr/bin/kubectl and by
# core/kubectl, each against its own fresh native sandbox; per command the exit
# code, stdout, stderr and requests compared after normalizing what must differ.
# Prints every difference, a score per command and "N/M commands identical"
# last (known differences, testdata/known.txt, apart), also written to
# build/kubectl-fidelity/report.txt. About a minute. The commands already
# identical (testdata/identical.txt, rewritten from a full run with
# KUBECTL_FIDELITY_FLAGS=-write-gate) are kept so by make test
# (TestLEARN_1_KubectlFidelity). KUBECTL_FIDELITY_FLAGS passes flags (-only
# NAME, -self, -parallel N, -write-gate; -h).
KUBECTL_FIDELITY_FLAGS ?=
kubectl-fidelity:
	$(GO) run ./tools/kubectlfidelity -out build/kubectl-fidelity/report.txt $(KUBECTL_FIDELITY_FLAGS)

# Upstream's conformance tests (CONF-1) against the native server with a
# simulated cluster: the [Conformance] tests of k8s.io/kubernetes v1.32.13 that
# tools/conformance/exclude.txt's rules leave in (no process run in a container,
# no traffic between Pods, no webhook served from a Pod), the parallel ones
# under ginkgo --procs 6, then the [Serial] ones. Prints the results per SIG and
# "N/M passed" last; junit reports and failures.txt stay in build/conformance.
# e2e.test is built from the Go module proxy on first use (~16 min on 2 cores;
# tools/conformance/e2e is its module). Never part of make test.
# About 70 minutes here besides (the parallel ones 46 with -procs 6, the serial
# ones 24). CONFORMANCE_FLAGS passes flags (-procs N, -focus REGEXP, -list,
# -report, -phases; -h).
CONFORMANCE ?= build/conformance
CONFORMANCE_FLAGS ?=
conformance: $(CONFORMANCE)/e2e.test $(CONFORMANCE)/ginkgo
	$(GO) build -o $(CONFORMANCE)/playground ./playground
	$(GO) run ./tools/conformance -e2e $(CONFORMANCE)/e2e.test -ginkgo $(CONFORMANCE)/ginkgo \
		-server $(CONFORMANCE)/playground -work $(CONFORMANCE) $(CONFORMANCE_FLAGS)

$(CONFORMANCE)/e2e.test: tools/conformance/e2e/go.mod tools/conformance/e2e/go.sum
	mkdir -p $(CONFORMANCE)
	cd tools/conformance/e2e && $(GO) test -c -o $(abspath $@) k8s.io/kubernetes/test/e2e

$(CONFORMANCE)/ginkgo: tools/conformance/e2e/go.mod tools/conformance/e2e/go.sum
	mkdir -p $(CONFORMANCE)
	cd tools/conformance/e2e && $(GO) build -o $(abspath $@) github.com/onsi/ginkgo/v2/ginkgo

$(REFAPI)/refapi:
	@test -x $(REFAPI_KIT)/build.sh || { echo "no refapi kit at $(REFAPI_KIT) (set REFAPI_KIT)" >&2; exit 1; }
	mkdir -p $(REFAPI)
	cp -r $(REFAPI_KIT)/. $(REFAPI)/
	chmod -R u+w $(REFAPI)
	$(REFAPI)/build.sh

size: size-check edge
	node edge/size.mjs

# The browser's modules against their budgets, in what browsers download
# (brotli, quality 11).
size-check: site-br
	node tools/size.mjs $(SITE)

# ---- edge: Cloudflare Workers (front Worker in Go + one Durable Object per sandbox)
EDGE := build/edge
ASSETS_GEN := $(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go

# npm install, not npm ci: the lock lists workerd's binaries for other platforms,
# which the registry here does not serve; --no-save keeps the lock as checked
# out (a plain install rewrites it).
edge/node_modules/.package-lock.json: edge/package-lock.json
	cd edge && npm install --no-audit --no-fund --no-save

edge-deps: edge/node_modules/.package-lock.json

# At the edge the core links CEL (-tags cel: core/cel in core/sandbox) and the
# simulated cluster (-tags sim) in place of the browser's modules: one Go
# binary costs the sandbox Worker's 10 MB compressed far less than a second
# Go instance's module (kubeplay-sim.wasm was 2.2 MB of gzip, the simulation
# in the core 0.2 MB). To fit beside the xDS module, the edge's core is
# built without inlining (every
# package, the standard library's included: 380 KB of the Worker's gzip),
# but for the hot paths of a request, which keep it: the store, objects,
# the handler, buntdb and protobuf's wire codec.
EDGE_GCFLAGS := -gcflags=all=-l $(foreach p,kubeplay/core/storage kubeplay/core/object kubeplay/core/apiserver github.com/tidwall/... \
	google.golang.org/protobuf/encoding/protowire,-gcflags=$(p)=)

# Both Workers' code and wrangler configs; the floor Worker for the benchmarks.
edge: site edge-deps
	$(ASSETS_GEN) -o $(EDGE)/front
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -o $(EDGE)/front/app.wasm ./edge/front
	$(ASSETS_GEN) -o $(EDGE)/floor
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -o $(EDGE)/floor/app.wasm ./edge/floor
	node edge/build.mjs
	GOOS=js GOARCH=wasm $(GO) build -tags cel,sim -trimpath -ldflags=-s $(EDGE_GCFLAGS) -o $(EDGE)/sandbox/kubeplay.wasm ./wasm

# The whole edge in a local workerd on EDGE_LISTEN (default 127.0.0.1:8787).
edge-dev: edge
	node edge/dev.mjs

# The edge in a local workerd: kubectl, restarts, isolation, bad input, Chromium.
edge-test: edge
	node edge/size.mjs
	cd edge && npm test

# The edge's speed and size figures (cold start vs the floor Worker, restore with
# 1k/10k writes and objects, warm CPU, throughput vs native loopback).
bench-edge: edge
	node edge/bench.mjs
