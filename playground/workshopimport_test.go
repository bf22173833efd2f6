package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"kubeplay/internal/control"
)

// get is the body of a GET with token.
func get(t *testing.T, c *http.Client, url, token string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, b)
	}
	return b
}

// object is one ConfigMap as a sandbox stores it: uid, resourceVersion,
// managedFields and all.
func object(t *testing.T, c *http.Client, server, token, name string) string {
	t.Helper()
	return string(get(t, c, server+"/api/v1/namespaces/default/configmaps/"+name, token))
}

// TestLEARN_6_WorkshopFromState: a workshop's sandboxes start from a state
// (POST /workshops and POST /sandboxes carrying an export), each holding
// its objects byte for byte, its cluster kind theirs; a damaged state
// creates nothing; an attendee imports into their own sandbox (POST
// /s/{id}/debug/kubeplay/import): 409 once they wrote, unless replace; a
// damaged file is 400 and changes nothing; kept across a restart with
// --data.
func TestLEARN_6_WorkshopFromState(t *testing.T) {
	for _, data := range []string{"", "data"} {
		t.Run("data="+data, func(t *testing.T) {
			dir := t.TempDir()
			if data != "" {
				data = dir + "/data"
			}
			s, c := startWorkshop(t, dir, data, time.Hour)
			var one control.Created
			if code := call(t, c, "POST", s.url+"/sandboxes", testInstructorToken, `{"cluster":{"mode":"api-only"},"label":"author"}`, &one); code != 201 {
				t.Fatalf("POST /sandboxes: %d", code)
			}
			if code := call(t, c, "POST", one.Server+"/api/v1/namespaces/default/configmaps", one.Token, configMap("given"), nil); code != 201 {
				t.Fatalf("create: %d", code)
			}
			given := object(t, c, one.Server, one.Token, "given")
			file := get(t, c, one.Server+"/debug/kubeplay/export", one.Token)
			state := base64.StdEncoding.EncodeToString(file)

			var ws control.WorkshopCreated
			if code := call(t, c, "POST", s.url+"/workshops", testInstructorToken, `{"labels":["ann","bob"],"state":"`+state+`"}`, &ws); code != 201 || len(ws.Sandboxes) != 2 {
				t.Fatalf("POST /workshops with a state: %d %+v", code, ws)
			}
			for _, sb := range ws.Sandboxes {
				if got := object(t, c, sb.Server, sb.Token, "given"); got != given {
					t.Errorf("%s's sandbox holds %s, want %s", sb.Label, got, given)
				}
				a, err := s.fleet.get(sb.ID)
				if err != nil {
					t.Fatal(err)
				}
				a.mu.Lock()
				mode := a.rec.Cluster.Mode
				a.mu.Unlock()
				if mode != "api-only" {
					t.Errorf("%s's sandbox runs %q (the export's is api-only)", sb.Label, mode)
				}
			}
			ann := ws.Sandboxes[0]

			// A damaged state creates nothing.
			bad := append([]byte(nil), file...)
			bad[len(bad)-40] ^= 0x40
			var st struct{ Reason, Message string }
			var list struct{ Sandboxes []control.Info }
			call(t, c, "GET", s.url+"/sandboxes", testInstructorToken, "", &list)
			before := len(list.Sandboxes)
			if code := call(t, c, "POST", s.url+"/workshops", testInstructorToken, `{"attendees":2,"state":"`+base64.StdEncoding.EncodeToString(bad)+`"}`, &st); code != 400 || !strings.Contains(st.Message, "state: the export cannot be used") {
				t.Errorf("a damaged state: %d %+v", code, st)
			}
			if code := call(t, c, "POST", s.url+"/sandboxes", testInstructorToken, `{"state":"bm90IGFuIGV4cG9ydA=="}`, &st); code != 400 || !strings.Contains(st.Message, "not a kubeplay export") {
				t.Errorf("a foreign state: %d %+v", code, st)
			}
			call(t, c, "GET", s.url+"/sandboxes", testInstructorToken, "", &list)
			if len(list.Sandboxes) != before {
				t.Errorf("refused states made sandboxes: %d, then %d", before, len(list.Sandboxes))
			}

			// An attendee's import.
			imp := func(url, token string, body []byte, out any) int {
				req, _ := http.NewRequest("POST", url, strings.NewReader(string(body)))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/vnd.kubeplay.export")
				res, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				_ = json.Unmarshal(b, out)
				return res.StatusCode
			}
			if code := call(t, c, "POST", ann.Server+"/api/v1/namespaces/default/configmaps", ann.Token, configMap("mine"), nil); code != 201 {
				t.Fatalf("create: %d", code)
			}
			if code := imp(ann.Server+"/debug/kubeplay/import", ann.Token, file, &st); code != 409 || st.Reason != "Conflict" {
				t.Errorf("an import over what ann wrote: %d %+v", code, st)
			}
			if code := imp(ann.Server+"/debug/kubeplay/import?replace=true", ann.Token, bad, &st); code != 400 || !strings.Contains(st.Message, "the export cannot be used") {
				t.Errorf("a damaged import: %d %+v", code, st)
			}
			if got := configMaps(t, c, ann.Server, ann.Token); strings.Join(got, ",") != "given,mine" {
				t.Errorf("after refused imports ann has %q", got)
			}
			if code := imp(ann.Server+"/debug/kubeplay/import", testInstructorToken, file, &st); code != 403 {
				t.Errorf("the instructor's import: %d", code)
			}
			var done struct {
				Kind     string
				Revision int64
				Objects  int64
			}
			if code := imp(ann.Server+"/debug/kubeplay/import?replace=true", ann.Token, file, &done); code != 200 || done.Kind != "KubeplayImport" || done.Revision == 0 {
				t.Errorf("import with replace: %d %+v", code, done)
			}
			if got := configMaps(t, c, ann.Server, ann.Token); strings.Join(got, ",") != "given" {
				t.Errorf("after the import ann has %q", got)
			}
			if got := object(t, c, ann.Server, ann.Token, "given"); got != given {
				t.Errorf("imported: %s, want %s", got, given)
			}
			if data == "" {
				return
			}
			// Kept: the server restarts on the same --data.
			if err := s.shutdown(); err != nil {
				t.Fatal(err)
			}
			s2, c2 := startWorkshop(t, dir, data, time.Hour)
			server := strings.Replace(ws.Sandboxes[1].Server, s.url, s2.url, 1)
			if got := object(t, c2, server, ws.Sandboxes[1].Token, "given"); got != given {
				t.Errorf("after a restart bob's sandbox holds %s", got)
			}
		})
	}
}
