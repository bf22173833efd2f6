# kubeplay: `make run` serves the playground API, `make test` runs every test.
GO      ?= go
LISTEN  ?= 127.0.0.1:8080
export GONOSUMDB = github.com/syumai

.PHONY: run test lint wasm-check bench

run:
	$(GO) run ./playground --listen $(LISTEN) --kubeconfig-out kubeconfig

test: lint wasm-check
	$(GO) test -count=1 ./...

# Formatting and vet gate every test run.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The core must keep compiling for the browser.
wasm-check:
	GOOS=js GOARCH=wasm $(GO) build ./core/... ./wasm/...

# Benchmarks report ratios against floors measured in the same run.
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 ./core/...
