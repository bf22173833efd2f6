package kubectl

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestLEARN_1_EventsOutput: kubectl events -o json prints its typed
// EventList (corev1's field order, the fields the type always writes
// present: reportingComponent, eventTime, firstTimestamp null when unset),
// -o yaml the same sorted, -o name nothing (kubectl's name printer fails on
// the typed list and events ignores it).
func TestLEARN_1_EventsOutput(t *testing.T) {
	sb := newTestSandbox(t)
	env := &Env{Handler: sb, Server: "http://127.0.0.1", Namespace: "default", Platform: "linux/amd64"}
	run := func(stdin string, args ...string) (string, int) {
		var out, errOut bytes.Buffer
		env.Stdin, env.Stdout, env.Stderr = strings.NewReader(stdin), &out, &errOut
		code := Run(context.Background(), env, args)
		return out.String() + errOut.String(), code
	}
	event := "apiVersion: v1\nkind: Event\nmetadata:\n  name: e1\ninvolvedObject:\n  kind: ConfigMap\n  name: c\n  namespace: default\nreason: Seen\nmessage: it was seen\ntype: Normal\ncount: 1\n"
	if out, code := run(event, "create", "-f", "-"); code != 0 {
		t.Fatal(out)
	}
	out, code := run("", "events", "-o", "json")
	keys := regexp.MustCompile(`(?m)^\s*"(\w+)":`).FindAllStringSubmatch(out, -1)
	var got []string
	for _, k := range keys {
		got = append(got, k[1])
	}
	want := "kind apiVersion metadata items kind apiVersion metadata name namespace uid resourceVersion creationTimestamp involvedObject kind namespace name reason message source firstTimestamp lastTimestamp count type eventTime reportingComponent reportingInstance"
	if code != 0 || strings.Join(got, " ") != want || !strings.Contains(out, `"firstTimestamp": null,`) || !strings.Contains(out, `"reportingComponent": "",`) {
		t.Errorf("events -o json: exit %d, keys\n%s\nwant\n%s\n%s", code, strings.Join(got, " "), want, out)
	}
	if out, code := run("", "events", "-o", "yaml"); code != 0 || !strings.HasPrefix(out, "apiVersion: v1\nitems:\n- apiVersion: v1\n  count: 1\n  eventTime: null\n  firstTimestamp: null\n") || !strings.HasSuffix(out, "kind: EventList\nmetadata: {}\n") {
		t.Errorf("events -o yaml: exit %d\n%s", code, out)
	}
	if out, code := run("", "events", "-o", "name"); code != 0 || out != "" {
		t.Errorf("events -o name: exit %d, %q", code, out)
	}
}
