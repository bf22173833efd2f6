// Command openapigen writes the OpenAPI documents kubeplay serves
// (core/openapi): kube-apiserver's own, trimmed to what kubeplay serves.
//
// It reads the api/openapi-spec that k8s.io/kubernetes publishes (the v3
// document of every group version and the v2 swagger.json), fetched with
// `go mod download` like any module, and keeps the paths of the served
// resources (core/kinds' built-ins: each resource's collection, object,
// watch and served subresource paths, the group and version discovery paths,
// /version) with every schema they reference, descriptions included: kubectl
// explain prints them. Two things differ between the published documents and
// what kube-apiserver 1.32 serves, and the generator makes them what the
// server serves: info.version is the release ("1.32"), and enum types carry
// their values and the "Possible enum values" text (the published documents
// are built with the OpenAPIEnums gate off); those come from the definitions
// generated from the Go types, pkg/generated/openapi in the same module.
//
// The v2 document is also written as protobuf (gnostic's OpenAPIv2 message,
// converted from the JSON as kube-openapi does). Everything is packed into
// one stream (core/openapi/bundle) with a generated index of sizes and ETags.
// Run it with `go generate` in core/openapi.
package main

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"

	"kubeplay/core/api"
	"kubeplay/core/kinds"
	"kubeplay/core/openapi/bundle"
)

var (
	outDir     = flag.String("out", ".", "directory to write documents.bin and documents_gen.go into")
	kubernetes = flag.String("kubernetes", "v1.32.13", "the k8s.io/kubernetes release whose documents to read")
)

func main() {
	log.SetFlags(0)
	flag.Parse()
	docs, err := Generate(*kubernetes)
	if err != nil {
		log.Fatal(err)
	}
	if err := docs.Write(*outDir); err != nil {
		log.Fatal(err)
	}
}

// Documents are the generated documents: the v3 documents by path, in order,
// and the v2 document as JSON and protobuf.
type Documents struct {
	Release string   // the k8s.io/kubernetes release they come from
	V3Paths []string // "api/v1", "apis/apps/v1", ...
	V3      [][]byte
	V2JSON  []byte
	V2Proto []byte
}

// Generate builds the documents from the given k8s.io/kubernetes release.
func Generate(release string) (*Documents, error) {
	dir, err := moduleDir("k8s.io/kubernetes@" + release)
	if err != nil {
		return nil, err
	}
	spec := filepath.Join(dir, "api", "openapi-spec")
	enums, err := readEnums(filepath.Join(dir, "pkg", "generated", "openapi", "zz_generated.openapi.go"))
	if err != nil {
		return nil, err
	}
	version, err := majorMinor(release)
	if err != nil {
		return nil, err
	}
	reg := registry()
	served := servedPaths(reg)
	out := &Documents{Release: release}
	for _, p := range v3Documents(reg) {
		var doc map[string]any
		if err := readJSON(filepath.Join(spec, "v3", strings.ReplaceAll(p, "/", "__")+"_openapi.json"), &doc); err != nil {
			return nil, err
		}
		if err := trimV3(doc, served, enums, version); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		b, err := json.Marshal(doc) // kube's v3 documents escape <, > and &
		if err != nil {
			return nil, err
		}
		out.V3Paths = append(out.V3Paths, p)
		out.V3 = append(out.V3, b)
	}
	xds, err := xdsDocument(out.V3)
	if err != nil {
		return nil, err
	}
	out.V3Paths = append(out.V3Paths, xdsPath)
	out.V3 = append(out.V3, xds)
	var v2 map[string]any
	if err := readJSON(filepath.Join(spec, "swagger.json"), &v2); err != nil {
		return nil, err
	}
	if err := trimV2(v2, served, enums, version); err != nil {
		return nil, fmt.Errorf("swagger.json: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // kube's v2 document does not
	if err := enc.Encode(v2); err != nil {
		return nil, err
	}
	out.V2JSON = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	// kube-openapi's ToProtoBinary.
	pb, err := openapi_v2.ParseDocument(out.V2JSON)
	if err != nil {
		return nil, fmt.Errorf("v2 as protobuf: %w", err)
	}
	if out.V2Proto, err = proto.Marshal(pb); err != nil {
		return nil, err
	}
	return out, nil
}

// registry serves the built-in kinds the documents describe.
func registry() *api.Registry { return api.NewRegistry(kinds.All()...) }

// all is every document in the order they are packed.
func (d *Documents) all() [][]byte {
	return append(slices.Clone(d.V3), d.V2JSON, d.V2Proto)
}

// Write writes documents.bin (the packed documents) and documents_gen.go (their index).
func (d *Documents) Write(dir string) error {
	all := d.all()
	packed := bundle.Pack(all)
	sizes := make([]int, len(all))
	for i, b := range all {
		sizes[i] = len(b)
	}
	back, err := bundle.Unpack(packed, sizes)
	if err != nil || !slices.EqualFunc(back, all, bytes.Equal) {
		return fmt.Errorf("the packed documents do not unpack to themselves: %v", err)
	}
	index, err := d.IndexSource()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "documents.bin"), packed, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "documents_gen.go"), index, 0o644)
}

// IndexSource is documents_gen.go: the documents' paths, sizes and ETags in the
// order they are packed.
func (d *Documents) IndexSource() ([]byte, error) {
	var src bytes.Buffer
	fmt.Fprintf(&src, "// Code generated by tools/openapigen from k8s.io/kubernetes %s; DO NOT EDIT.\n\n", d.Release)
	src.WriteString("package openapi\n\n")
	src.WriteString("// builtin indexes documents.bin: its documents in the order they are packed.\n")
	src.WriteString("var builtin = builtinIndex{\n\tv3: []builtinDocument{\n")
	for i, p := range d.V3Paths {
		fmt.Fprintf(&src, "\t\t{path: %q, size: %d, etag: %q},\n", p, len(d.V3[i]), etag(d.V3[i]))
	}
	src.WriteString("\t},\n")
	fmt.Fprintf(&src, "\tv2: builtinDocument{path: \"v2\", size: %d, etag: %q},\n", len(d.V2JSON), etag(d.V2JSON))
	fmt.Fprintf(&src, "\tv2Proto: builtinDocument{size: %d, etag: %q},\n}\n", len(d.V2Proto), etag(d.V2Proto))
	return format.Source(src.Bytes())
}

// etag is kube-openapi's ETag of a document: its SHA-512 in upper-case hex.
func etag(b []byte) string {
	return fmt.Sprintf("%X", sha512.Sum512(b))
}

// moduleDir downloads a module (from the module cache when it is there) and
// returns its directory.
func moduleDir(module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(b, &m); err != nil {
		return "", err
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", module, m.Error)
	}
	return m.Dir, nil
}

// majorMinor is the release's "1.32", which kube-apiserver puts in info.version.
func majorMinor(release string) (string, error) {
	parts := strings.Split(strings.TrimPrefix(release, "v"), ".")
	if len(parts) < 2 {
		return "", fmt.Errorf("release %q is not vMAJOR.MINOR.PATCH", release)
	}
	return parts[0] + "." + parts[1], nil
}

func readJSON(path string, into any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
