package kubectl

// This file owns the server's warnings (Warning: 299 headers) as kubectl
// prints them: "Warning: TEXT" on stderr as each answer comes, each text
// once per command line (client-go's deduplicating warning writer).

import (
	"fmt"
	"strconv"
	"strings"
)

// printWarnings prints the answer's 299 warnings not printed before.
func (c *Cmd) printWarnings(values []string) {
	for _, v := range values {
		code, rest, _ := strings.Cut(strings.TrimSpace(v), " ")
		_, text, _ := strings.Cut(rest, " ")
		msg, err := strconv.Unquote(strings.TrimSpace(text))
		if code != "299" || err != nil || msg == "" || c.warned[msg] {
			continue
		}
		if c.warned == nil {
			c.warned = map[string]bool{}
		}
		c.warned[msg] = true
		fmt.Fprintf(c.Stderr, "Warning: %s\n", msg)
	}
}
