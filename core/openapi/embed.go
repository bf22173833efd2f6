//go:build !js

package openapi

import _ "embed" // documents.bin

//go:embed documents.bin
var embedded []byte

// embeddedDocuments is documents.bin, built into the program natively.
func embeddedDocuments() ([]byte, error) { return embedded, nil }
