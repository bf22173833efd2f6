package kubectlfidelity

// This file owns what is normalized away before comparing, per side and in
// order of first appearance in each command, so that equal behaviour gives
// equal text. It follows tools/fidelity's rules (uids and generated names
// labelled in order of appearance, times and resourceVersions hidden) over
// kubectl's text rather than over API documents:
//
//   - the client's build (`version`'s client version and each field of
//     its clientVersion with -o yaml|json, the user agent's
//     version, platform and commit), the real kubectl's home directory, and
//     its server's URL (in the self-check, where the sides' differ);
//   - klog's line prefix of -v output (I1203 11:30:06.408118   19694 file.go:123])
//     becomes its severity letter, "in 3 milliseconds" "in <n> milliseconds"
//     (and -v=9's "1 ms" "<n> ms"), and -v=8's header lines and -v=9's
//     curl line's headers, which kubectl prints in a Go map's order, are sorted;
//   - timestamps (RFC 3339, describe's RFC 1123, the simulated containers'
//     log lines') become <time>;
//   - uids become <uid#1>, <uid#2>, …;
//   - resourceVersions (key: "N", key=N) become <rv>;
//   - names made from a generateName (5 characters of kube's name alphabet
//     after a dash) become the prefix and <gen#1>, …;
//   - Service cluster IPs (allocated at random in 10.96.0.0/12, but for the
//     kubernetes Service's 10.96.0.1) and Pod IPs (10.244.0.0/16, which
//     follow the scheduler's choices) become <ip#1>, …;
//   - a list's continue tokens show only the key they go on after;
//   - a watch's random timeoutSeconds, container ids, kubectl diff's
//     temporary directories and file times;
//   - in output, ages (5s, 2m3s, 4d) become <age>, and where a block of
//     lines (a table) had a value normalized, runs of spaces become two.
//
// Request bodies that are JSON are compared as JSON: normalized, then
// printed indented with their keys sorted; those in Kubernetes protobuf (what
// kubectl's typed clients send) are decoded to JSON first.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"kubeplay/core/encoding/protobuf"
)

var (
	userAgentPattern = regexp.MustCompile(`kubectl/v[\w.+-]+ \([^)]*\) kubernetes/[\w.+-]+`)
	klogPattern      = regexp.MustCompile(`(?m)^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d{6}\s+\d+ [\w.-]+:\d+\] `)
	millisPattern    = regexp.MustCompile(`\bin \d+ milliseconds\b`)
	rfc3339Pattern   = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)
	rfc1123Pattern   = regexp.MustCompile(`\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} (?:[+-]\d{4}|GMT)`)
	uidPattern       = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	rvPattern        = regexp.MustCompile(`((?:\\?"?resourceVersion\\?"?\s*[:=]|Resource Version:)\s*\\?"?)\d+`)
	// A watch's timeoutSeconds is client-go's random pick between 5 and 10 minutes.
	watchTimeoutPattern = regexp.MustCompile(`\btimeoutSeconds=\d+(&watch=true)`)
	containerIDPattern  = regexp.MustCompile(`\b(containerd|docker|cri-o)://[0-9a-f]{64}\b`)
	// kubectl diff's temporary directories and the times diff prints of them.
	diffDirPattern = regexp.MustCompile(`\b(LIVE|MERGED)-\d+/`)
	// The simulated containers' log lines (nginx's error log) start with the time.
	logTimePattern  = regexp.MustCompile(`\b\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}\b`)
	diffTimePattern = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+ [+-]\d{4}\b`)
	spacesPattern   = regexp.MustCompile(`  +`)
	// A list's continue token: base64 JSON of the revision, the key to go on
	// after, and the server's MAC.
	continuePattern = regexp.MustCompile(`\bcontinue=([\w%=-]+)`)
	// -v=9's connection statistics, in milliseconds.
	statisticsPattern = regexp.MustCompile(`\b\d+ ms\b`)
	// -v=9's curl line's headers, which kubectl prints in a Go map's order.
	curlHeadersPattern = regexp.MustCompile(`(?: -H "[^"]*")+`)
	// A header line of -v=8's request or response headers.
	headerLinePattern = regexp.MustCompile(`^[IWEF]\d{4} [^\]]*\]\s+[\w-]+: `)
	// `version -o yaml|json`'s clientVersion, and each field's value in it.
	clientBlockPattern = regexp.MustCompile(`(?m)^clientVersion:\n(?:  .*\n)*|(?s)"clientVersion": \{.*?\}`)
	clientFieldPattern = regexp.MustCompile(`(?m)^(\s+"?\w+"?: ).*?(,?)$`)
	// kube's names.SimpleNameGenerator appends 5 characters of this alphabet.
	genPattern = regexp.MustCompile(`\b([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?-)([bcdfghjklmnpqrstvwxz2456789]{5})\b`)
	// Service cluster IPs (10.96.0.0/12) and Pod IPs (10.244.0.0/16).
	ipPattern  = regexp.MustCompile(`\b10\.(?:9[6-9]|10[0-9]|11[01]|244)\.\d{1,3}\.\d{1,3}\b`)
	agePattern = regexp.MustCompile(`\b\d+[smhdy](?:\d+[smh])?\b`)
)

// normalizer normalizes one side's text over one session.
type normalizer struct {
	client    []string       // the client's build strings but its version: commit, build date, Go's version
	clientVer *regexp.Regexp // where `version` prints the client's version (the server's, which may share its prefix, stays)
	home      string         // a directory path to hide ("" for none)
	server    string         // the server's URL, when the sides' differ ("" for none)
	labels    map[string]string
	counter   map[string]int
}

// newNormalizer normalizes the text of a client whose build strings are
// client (its version first).
func newNormalizer(client []string, home, server string) *normalizer {
	return &normalizer{client: client[1:], home: home, server: server, labels: map[string]string{}, counter: map[string]int{},
		clientVer: regexp.MustCompile(`(Client Version: |gitVersion: |"gitVersion": ")` + regexp.QuoteMeta(client[0]) + `(["\n]|$)`)}
}

// forget starts the labels anew: each command's are numbered in order of
// their first appearance in it, so that a command one side failed shifts no
// later command's labels.
func (n *normalizer) forget() {
	n.labels, n.counter = map[string]string{}, map[string]int{}
}

// label is the placeholder of value, a thing of kind, numbered in order of
// first appearance.
func (n *normalizer) label(kind, value string) string {
	key := kind + "\x00" + value
	if l, ok := n.labels[key]; ok {
		return l
	}
	n.counter[kind]++
	l := fmt.Sprintf("<%s#%d>", kind, n.counter[kind])
	n.labels[key] = l
	return l
}

// output normalizes what a command printed: `version`'s clientVersion,
// then line by line text and ages. In a block of
// lines (a table, a describe section) where a value was normalized, runs of
// spaces become two: the columns' widths depended on the values hidden.
func (n *normalizer) output(s string) string {
	var out []string
	block, changed := 0, false
	flush := func() {
		if changed {
			for i := block; i < len(out); i++ {
				out[i] = spacesPattern.ReplaceAllString(out[i], "  ")
			}
		}
		block, changed = len(out)+1, false
	}
	s = clientBlockPattern.ReplaceAllStringFunc(s, func(block string) string {
		return clientFieldPattern.ReplaceAllString(block, "${1}<client>${2}")
	})
	lines := strings.Split(s, "\n")
	sortHeaderLines(lines)
	for _, line := range lines {
		if strings.TrimSpace(line) == "" {
			flush()
			out = append(out, line)
			continue
		}
		norm := agePattern.ReplaceAllString(n.text(line), "<age>")
		changed = changed || norm != line
		out = append(out, norm)
	}
	flush()
	return strings.Join(out, "\n")
}

// sortHeaderLines sorts the lines of each block of headers -v=8 prints,
// which kubectl prints in a Go map's random order, by what follows klog's
// prefix (before normalizing, which labels values in order).
func sortHeaderLines(lines []string) {
	for i := 0; i < len(lines); i++ {
		if !strings.HasSuffix(lines[i], " Headers:") {
			continue
		}
		j := i + 1
		for j < len(lines) && headerLinePattern.MatchString(lines[j]) {
			j++
		}
		slices.SortFunc(lines[i+1:j], func(a, b string) int {
			return strings.Compare(klogPattern.ReplaceAllString(a, ""), klogPattern.ReplaceAllString(b, ""))
		})
		i = j - 1
	}
}

// text normalizes a request's text (whose durations, as timeout=32s, stay)
// or output.
func (n *normalizer) text(s string) string {
	if n.home != "" {
		s = strings.ReplaceAll(s, n.home, "<home>")
	}
	if n.server != "" {
		s = strings.ReplaceAll(s, n.server, "<server>")
	}
	s = userAgentPattern.ReplaceAllString(s, "kubectl/<client>")
	s = n.clientVer.ReplaceAllString(s, "${1}<client>${2}")
	for _, c := range n.client {
		if c != "" {
			s = strings.ReplaceAll(s, c, "<client>")
		}
	}
	s = klogPattern.ReplaceAllString(s, "$1 ")
	s = millisPattern.ReplaceAllString(s, "in <n> milliseconds")
	s = statisticsPattern.ReplaceAllString(s, "<n> ms")
	if strings.Contains(s, "curl -v -X") {
		s = curlHeadersPattern.ReplaceAllStringFunc(s, func(h string) string {
			parts := strings.SplitAfter(h, `"`)
			// " -H \"", "Name: value\"", … in pairs.
			var hs []string
			for i := 0; i+1 < len(parts); i += 2 {
				hs = append(hs, parts[i]+parts[i+1])
			}
			slices.Sort(hs)
			return strings.Join(hs, "")
		})
	}
	s = rfc3339Pattern.ReplaceAllString(s, "<time>")
	s = rfc1123Pattern.ReplaceAllString(s, "<time>")
	s = diffTimePattern.ReplaceAllString(s, "<time>")
	s = logTimePattern.ReplaceAllString(s, "<time>")
	s = diffDirPattern.ReplaceAllString(s, "$1-<n>/")
	s = containerIDPattern.ReplaceAllString(s, "$1://<id>")
	s = watchTimeoutPattern.ReplaceAllString(s, "timeoutSeconds=<n>$1")
	s = continuePattern.ReplaceAllStringFunc(s, continueToken)
	s = uidPattern.ReplaceAllStringFunc(s, func(u string) string { return n.label("uid", u) })
	s = rvPattern.ReplaceAllString(s, "${1}<rv>")
	s = genPattern.ReplaceAllStringFunc(s, func(name string) string {
		m := genPattern.FindStringSubmatch(name)
		return m[1] + n.label("gen", m[2])
	})
	s = ipPattern.ReplaceAllStringFunc(s, func(ip string) string {
		if ip == "10.96.0.1" {
			return ip
		}
		return n.label("ip", ip)
	})
	return s
}

// requests renders a command's requests as lines to compare: the request
// line, the headers compared, and the body (JSON indented with its keys
// sorted; other text as it is; binary as its length and type).
func (n *normalizer) requests(reqs []Request) string {
	var b strings.Builder
	for _, r := range reqs {
		line := r.Method + " " + r.Path
		if r.Query != "" {
			line += "?" + sortFieldSelector(r.Query)
		}
		fmt.Fprintf(&b, "%s\n", n.text(line))
		fmt.Fprintf(&b, "  Accept: %s\n", r.Accept)
		if r.ContentType != "" {
			fmt.Fprintf(&b, "  Content-Type: %s\n", r.ContentType)
		}
		fmt.Fprintf(&b, "  User-Agent: %s\n", n.text(r.UserAgent))
		if len(r.Body) > 0 {
			for _, l := range strings.Split(strings.TrimRight(n.body(r.ContentType, r.Body), "\n"), "\n") {
				b.WriteString("  | " + l + "\n")
			}
		}
	}
	return b.String()
}

// body is a request body as compared: JSON, and Kubernetes protobuf
// decoded to JSON, indented with sorted keys; other text as it is.
func (n *normalizer) body(contentType string, body []byte) string {
	var v any
	if strings.HasPrefix(contentType, "application/vnd.kubernetes.protobuf") {
		doc, err := protobuf.DecodeForDisplay(contentType, body)
		if err != nil {
			return fmt.Sprintf("<%d bytes of protobuf: %v>", len(body), err)
		}
		v = doc
	} else {
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if err := d.Decode(&v); err != nil || d.More() {
			v = nil
		}
	}
	if v != nil {
		var out strings.Builder
		e := json.NewEncoder(&out)
		e.SetEscapeHTML(false)
		e.SetIndent("", "  ")
		if e.Encode(v) == nil {
			return n.text(out.String())
		}
	}
	if bytes.ContainsFunc(body, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' && r != '\r' || r == 0xFFFD }) {
		return fmt.Sprintf("<%d bytes, not text>", len(body))
	}
	return n.text(string(body))
}

// continueToken shows a continue parameter by the key it goes on after,
// what clients depend on (its revision and MAC are the server's).
func continueToken(param string) string {
	tok, _ := url.QueryUnescape(strings.TrimPrefix(param, "continue="))
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
		b, err := enc.DecodeString(tok)
		if err != nil {
			continue
		}
		var t struct {
			Start string `json:"start"`
		}
		if json.Unmarshal(b, &t) == nil && t.Start != "" {
			return fmt.Sprintf("continue=<after %q>", t.Start)
		}
	}
	return "continue=<opaque>"
}

// sortFieldSelector sorts the terms of a query's fieldSelector: kubectl
// describe builds its Events' selector from a Go map, in random order.
func sortFieldSelector(query string) string {
	params := strings.Split(query, "&")
	for i, p := range params {
		v, ok := strings.CutPrefix(p, "fieldSelector=")
		if !ok {
			continue
		}
		sel, err := url.QueryUnescape(v)
		if err != nil {
			continue
		}
		terms := strings.Split(sel, ",")
		slices.Sort(terms)
		params[i] = "fieldSelector=" + url.QueryEscape(strings.Join(terms, ","))
	}
	return strings.Join(params, "&")
}
