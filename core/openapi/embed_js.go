//go:build js

package openapi

import "errors"

// embeddedDocuments: in WebAssembly documents.bin is not in the module; the host
// gives it (Options.Documents).
func embeddedDocuments() ([]byte, error) {
	return nil, errors.New("the host gave no documents")
}
