//go:build tools

// Package e2e pins what `make conformance` builds: upstream's e2e
// suite (compiled with `go test -c`) and the ginkgo CLI that runs it.
package e2e

import (
	_ "github.com/onsi/ginkgo/v2/ginkgo"
	_ "k8s.io/kubernetes/test/e2e"
)
