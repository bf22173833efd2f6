package kubectl

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestLEARN_1_WaitWatchesAgain: wait's informer starts a watch the server
// ends again from the last revision it saw, and lists anew after a 410, as
// kubectl's reflector does, rather than giving up before its timeout.
func TestLEARN_1_WaitWatchesAgain(t *testing.T) {
	var requests []string
	watches := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests = append(requests, r.URL.RawQuery)
		if r.URL.Query().Get("watch") != "true" {
			w.Write([]byte(`{"kind":"PodList","metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"p","resourceVersion":"9"},"status":{"phase":"Pending"}}]}`))
			return
		}
		watches++
		switch watches {
		case 1: // ends at once with a bookmark
			w.Write([]byte(`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12"}}}` + "\n"))
		case 2: // its revision is gone
			w.Write([]byte(`{"type":"ERROR","object":{"kind":"Status","status":"Failure","reason":"Expired","message":"too old","code":410}}` + "\n"))
		default:
			w.Write([]byte(`{"type":"MODIFIED","object":{"metadata":{"name":"p","resourceVersion":"20"},"status":{"phase":"Running"}}}` + "\n"))
		}
	})
	c := &Cmd{Env: &Env{Handler: h, Server: "http://x", Platform: "linux/amd64"}, Ctx: context.Background()}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	check, _ := jsonPathCheck("{.status.phase}=Running")
	err := c.waitFor(ctx, waitTarget{r: Resource{Version: "v1", Resource: "pods", Namespaced: true}, namespace: "default", name: "p"}, time.Minute, check)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range requests {
		got = append(got, strings.Split(strings.Split(q, "&timeoutSeconds")[0], "&fieldSelector")[0])
	}
	want := []string{"fieldSelector=metadata.name%3Dp&limit=500&resourceVersion=0", "allowWatchBookmarks=true",
		"allowWatchBookmarks=true", "fieldSelector=metadata.name%3Dp&limit=500&resourceVersion=0", "allowWatchBookmarks=true"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("requests:\n%s\nwant\n%s", strings.Join(requests, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(requests[2], "resourceVersion=12") {
		t.Errorf("the second watch starts at %q, want the bookmark's revision 12", requests[2])
	}
}
