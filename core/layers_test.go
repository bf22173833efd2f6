package core_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The layers, bottom-up (doc.go), and the package each holds.
const (
	machinery = iota
	storage
	server
	clients
	assembly
)

var layerNames = []string{"API machinery", "storage", "server", "clients", "sandbox"}

var layers = map[string]int{
	"apierrors": machinery, "budget": machinery, "clock": machinery, "conversion": machinery, "version": machinery,
	"encoding": machinery, "encoding/protobuf": machinery, "encoding/table": machinery, "jsonpath": machinery,
	"field": machinery, "object": machinery, "podlogs": machinery, "quantity": machinery,
	"quota": machinery, "request": machinery, "requestlog": machinery, "api": machinery, "selector": machinery,
	"types": machinery, "user": machinery, "validation": machinery, "warning": machinery,
	"web": machinery, "xds/envoypb": machinery, "flowcontrol/fairqueuing": machinery,
	"flowcontrol/bootstrap": machinery, "gzipjoin": machinery, "health": machinery, "openapi/bundle": machinery, "patch/lists": machinery, "cel": machinery, "cel/celapi": machinery, "cel/celmodule": machinery, "cel/celremote": machinery,

	"storage": storage, "export": storage,

	"registry": server, "admission": server, "kinds": server, "defaults": server, "patch": server, "apply": server,
	"fieldvalidation": server, "auth": server, "rbac": server, "aggregator": server, "flowcontrol": server, "crd": server,
	"openapi": server, "apiserver": server, "timeline": server, "share": server,

	"client": clients, "client/clienttest": clients, "metricsserver": clients, "controllers": clients, "sim": clients,
	"xds": clients, "xds/xdsgrpc": clients, "kubectl": clients,

	"sandbox": assembly,
}

// may says whether a package of layer from may import one of layer to: its
// own layer and those below, except that clients reach the server and
// storage only through requests, and the server may run clients (APF's
// configuration controller, the CRD controller), as kube-apiserver runs
// client-go.
func may(from, to int) bool {
	switch from {
	case clients:
		return to == machinery || to == clients
	case server:
		return to <= clients
	}
	return to <= from
}

type pkg struct {
	ImportPath string
	Imports    []string
	GoFiles    []string
	Dir        string
}

func corePackages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,GoFiles,Dir", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	for d := json.NewDecoder(bytes.NewReader(out)); d.More(); {
		var p pkg
		if err := d.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// layerOf is the layer of a core package: its own, or its nearest parent's
// (the controllers below core/controllers are clients as it is).
func layerOf(path string) (int, bool) {
	rel := strings.TrimPrefix(path, "kubeplay/core/")
	for {
		if l, ok := layers[rel]; ok {
			return l, true
		}
		i := strings.LastIndexByte(rel, '/')
		if i < 0 {
			return 0, false
		}
		rel = rel[:i]
	}
}

// TestLayers holds every package of core to its layer: a package imports only
// what its layer may, every package has a layer, and apiserver, the HTTP
// surface, composes the server without storage, controllers, the simulated
// cluster or xDS, in under 3,000 lines.
func TestLayers(t *testing.T) {
	for _, p := range corePackages(t) {
		if p.ImportPath == "kubeplay/core" {
			continue
		}
		from, ok := layerOf(p.ImportPath)
		if !ok {
			t.Errorf("%s has no layer: add it to layers and doc.go", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, "kubeplay/core/") {
				continue
			}
			to, _ := layerOf(imp)
			if !may(from, to) {
				t.Errorf("%s (%s) imports %s (%s)", p.ImportPath, layerNames[from], imp, layerNames[to])
			}
		}
		if p.ImportPath != "kubeplay/core/apiserver" {
			continue
		}
		for _, imp := range p.Imports {
			for _, banned := range []string{"storage", "controllers", "sim", "xds"} {
				if imp == "kubeplay/core/"+banned || strings.HasPrefix(imp, "kubeplay/core/"+banned+"/") {
					t.Errorf("apiserver imports %s: it composes the registry and its filters, and runs nothing", imp)
				}
			}
		}
		if n := lines(t, p.Dir, p.GoFiles); n >= 3000 {
			t.Errorf("apiserver holds %d lines outside its tests; at most 2,999", n)
		}
	}
}

func lines(t *testing.T, dir string, files []string) int {
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for s := bufio.NewScanner(bytes.NewReader(data)); s.Scan(); {
			n++
		}
	}
	return n
}
