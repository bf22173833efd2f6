package defaults

import (
	"regexp"
	"strings"
	"sync"
)

// The grammar of image references (github.com/distribution/reference, which
// kube parses images with): an optional registry host and port, a path of
// lowercase components, an optional tag and an optional digest.
const (
	refComponent = `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
	refHostLabel = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refHost      = `(?:` + refHostLabel + `(?:\.` + refHostLabel + `)*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?`
	refPath      = refComponent + `(?:/` + refComponent + `)*`
	refTag       = `[\w][\w.-]{0,127}`
	refDigest    = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
	reference    = `^((?:` + refHost + `/)?` + refPath + `)(?::(` + refTag + `))?(?:@(` + refDigest + `))?$`
	// refNameMax is the longest path a reference may have.
	refNameMax = 255
)

// referenceRegexp is compiled on first use: most sandboxes never create a Pod.
var referenceRegexp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(reference) })

// digestLengths are the hex lengths of the digest algorithms kube knows.
var digestLengths = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// imageTag is the tag kube reads off an image to choose its pull policy
// (pkg/util/parsers.ParseImageName): "latest" when the reference has neither a
// tag nor a digest, "" when it does not parse.
func imageTag(image string) string {
	if isHex(image, 64) {
		return "" // a bare image ID
	}
	domain, remainder := "docker.io", image
	if first, rest, ok := strings.Cut(image, "/"); ok &&
		(first == "localhost" || strings.ContainsAny(first, ".:") || strings.ToLower(first) != first) {
		domain, remainder = first, rest
		if first == "index.docker.io" {
			domain = "docker.io"
		}
	}
	if domain == "docker.io" && !strings.Contains(remainder, "/") {
		remainder = "library/" + remainder
	}
	repository, _, _ := strings.Cut(remainder, ":")
	if strings.ToLower(repository) != repository {
		return ""
	}
	m := referenceRegexp().FindStringSubmatch(domain + "/" + remainder)
	if m == nil || len(strings.TrimPrefix(m[1], domain+"/")) > refNameMax {
		return ""
	}
	tag, digest := m[2], m[3]
	if digest != "" {
		algorithm, hex, _ := strings.Cut(digest, ":")
		if n, ok := digestLengths[algorithm]; !ok || !isHex(hex, n) {
			return ""
		}
	}
	if tag == "" && digest == "" {
		return "latest"
	}
	return tag
}

// isHex says whether s is n lowercase hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
