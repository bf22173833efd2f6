package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The durability test runs the real playground binary on a data directory, kills
// it with SIGKILL while a stream of creates is in flight, restarts it on the same
// directory and checks that nothing acknowledged was lost.

// durModuleRoot is the directory holding go.mod, found upwards from the test's.
func durModuleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// durBuildPlayground builds the playground command into a temporary directory.
func durBuildPlayground(t *testing.T) string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	bin := filepath.Join(t.TempDir(), "playground")
	cmd := exec.CommandContext(t.Context(), goBin, "build", "-o", bin, "./playground")
	cmd.Dir = durModuleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./playground: %v\n%s", err, out)
	}
	return bin
}

// durProcess is one run of the playground binary.
type durProcess struct {
	cmd    *exec.Cmd
	url    string
	done   chan struct{} // closed when the process has exited and stderr is drained
	mu     sync.Mutex
	stderr bytes.Buffer
}

func (p *durProcess) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

var durAPILine = regexp.MustCompile(`kubeplay API at (https?://\S+)`)

// durStart runs the binary with flags on an ephemeral port, the API only (the
// tests count what they wrote), and waits until it serves. The process is
// killed when the test ends if it still runs.
func durStart(t *testing.T, bin string, flags ...string) *durProcess {
	t.Helper()
	p := &durProcess{done: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"--listen", "127.0.0.1:0", "--quiet", "--cluster", "api-only"}, flags...)...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urlc := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			if m := durAPILine.FindStringSubmatch(line); m != nil {
				select {
				case urlc <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		_ = p.cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	select {
	case p.url = <-urlc:
	case <-p.done:
		t.Fatalf("playground exited before serving:\n%s", p.log())
	case <-time.After(30 * time.Second): // only so a hung start cannot hang the run
		t.Fatalf("playground never announced its address:\n%s", p.log())
	}
	// The listener is open when the address is logged; wait for the handler
	// (over TLS, trusting the CA kept in --tls-dir).
	transport := &http.Transport{DisableKeepAlives: true}
	for i, f := range flags {
		if f == "--tls-dir" && i+1 < len(flags) {
			pool := x509.NewCertPool()
			if ca, err := os.ReadFile(filepath.Join(flags[i+1], "ca.crt")); err == nil && pool.AppendCertsFromPEM(ca) {
				transport.TLSClientConfig = &tls.Config{RootCAs: pool}
			}
		}
	}
	probe := &http.Client{Transport: transport}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := probe.Get(p.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("playground at %s never ready (%v):\n%s", p.url, err, p.log())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return p
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *durProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatalf("SIGKILL: %v", err)
	}
	<-p.done
	if ws, ok := p.cmd.ProcessState.Sys().(interface{ Signaled() bool }); ok && !ws.Signaled() {
		t.Fatalf("playground exited on its own before SIGKILL (%v):\n%s", p.cmd.ProcessState, p.log())
	}
}

type durObject struct {
	Metadata struct {
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

// durCreate POSTs one ConfigMap and returns its resourceVersion when the server
// acknowledged it (2xx). err is set when no answer came (the server died).
func durCreate(ctx context.Context, c *http.Client, url, name string) (rv int64, code int, err error) {
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"labels":{"app":"durability"}},"data":{"name":%q}}`, name, name)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/api/v1/namespaces/default/configmaps", strings.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, 0, err // the answer was cut: not acknowledged
	}
	if resp.StatusCode/100 != 2 {
		return 0, resp.StatusCode, nil
	}
	var obj durObject
	if err := json.Unmarshal(b, &obj); err != nil {
		return 0, resp.StatusCode, fmt.Errorf("decoding the created object: %w", err)
	}
	rv, err = strconv.ParseInt(obj.Metadata.ResourceVersion, 10, 64)
	if err != nil || obj.Metadata.Name != name {
		return 0, resp.StatusCode, fmt.Errorf("created object %q has resourceVersion %q", obj.Metadata.Name, obj.Metadata.ResourceVersion)
	}
	return rv, resp.StatusCode, nil
}

// durList returns the ConfigMaps of default: name → resourceVersion, and the
// list's resourceVersion.
func durList(t *testing.T, c *http.Client, url string) (map[string]int64, int64) {
	t.Helper()
	resp, err := c.Get(url + "/api/v1/namespaces/default/configmaps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("list: %d %s", resp.StatusCode, b)
	}
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []durObject `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]int64, len(list.Items))
	for _, it := range list.Items {
		rv, err := strconv.ParseInt(it.Metadata.ResourceVersion, 10, 64)
		if err != nil {
			t.Fatalf("%s: resourceVersion %q", it.Metadata.Name, it.Metadata.ResourceVersion)
		}
		out[it.Metadata.Name] = rv
	}
	rv, err := strconv.ParseInt(list.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatalf("list resourceVersion %q", list.Metadata.ResourceVersion)
	}
	return out, rv
}

// PLAY-8 (and PLAY-2's promise for the native host): with --data, every write the
// playground acknowledged survives a SIGKILL in the middle of a stream of writes,
// and resource versions keep growing across restarts: a write after the restart
// is newer than every acknowledged one.
func TestPLAY_8_DurabilitySIGKILL(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	const (
		cycles      = 4
		writers     = 4
		killAfter   = 200 // acknowledged writes per cycle before the kill
		maxPerCycle = 5000
	)
	bin := durBuildPlayground(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	ctx := t.Context()

	acked := map[string]int64{} // every acknowledged name → its resourceVersion
	var maxAcked int64
	for cycle := range cycles {
		p := durStart(t, bin, "--data", dataDir)
		tr := &http.Transport{}
		c := &http.Client{Transport: tr}

		// What earlier cycles acknowledged is all there, unchanged.
		if cycle > 0 {
			have, listRV := durList(t, c, p.url)
			missing := 0
			for name, rv := range acked {
				got, ok := have[name]
				switch {
				case !ok:
					missing++
					if missing <= 10 {
						t.Errorf("cycle %d: acknowledged %s (rv %d) lost", cycle, name, rv)
					}
				case got != rv:
					t.Errorf("cycle %d: %s has resourceVersion %d, acknowledged as %d", cycle, name, got, rv)
				}
			}
			if missing > 0 {
				t.Fatalf("cycle %d: %d of %d acknowledged writes lost\n%s", cycle, missing, len(acked), p.log())
			}
			if listRV < maxAcked {
				t.Errorf("cycle %d: list resourceVersion %d older than acknowledged %d", cycle, listRV, maxAcked)
			}
			rv, code, err := durCreate(ctx, c, p.url, fmt.Sprintf("probe-%d", cycle))
			if err != nil || code != http.StatusCreated {
				t.Fatalf("cycle %d: probe create: %d %v", cycle, code, err)
			}
			if rv <= maxAcked {
				t.Fatalf("cycle %d: new write has resourceVersion %d, not after the acknowledged %d", cycle, rv, maxAcked)
			}
			acked[fmt.Sprintf("probe-%d", cycle)] = rv
			maxAcked = rv
		}

		// Writers create as fast as the server answers until it dies.
		var (
			mu      sync.Mutex
			got     = map[string]int64{}
			reached = make(chan struct{})
			once    sync.Once
			wg      sync.WaitGroup
		)
		wctx, stop := context.WithCancel(ctx)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < maxPerCycle && wctx.Err() == nil; i++ {
					name := fmt.Sprintf("c%d-w%d-%05d", cycle, w, i)
					rv, code, err := durCreate(wctx, c, p.url, name)
					if err != nil {
						return // no answer: the server is gone (or the test ends)
					}
					if code/100 != 2 {
						t.Errorf("create %s: status %d", name, code)
						return
					}
					mu.Lock()
					got[name] = rv
					n := len(got)
					mu.Unlock()
					if n >= killAfter {
						once.Do(func() { close(reached) })
					}
				}
			}()
		}
		allDone := make(chan struct{})
		go func() { wg.Wait(); close(allDone) }()
		select {
		case <-reached:
		case <-allDone:
			stop()
			t.Fatalf("cycle %d: writers stopped after %d acknowledged writes\n%s", cycle, len(got), p.log())
		}
		p.kill(t)
		<-allDone
		stop()
		tr.CloseIdleConnections()

		mu.Lock()
		seen := map[int64]string{}
		for name, rv := range got {
			if other, dup := seen[rv]; dup {
				t.Errorf("cycle %d: %s and %s acknowledged with the same resourceVersion %d", cycle, name, other, rv)
			}
			seen[rv] = name
			acked[name] = rv
			maxAcked = max(maxAcked, rv)
		}
		t.Logf("cycle %d: %d writes acknowledged before SIGKILL (resourceVersion up to %d)", cycle, len(got), maxAcked)
		mu.Unlock()
	}

	// A last restart: everything acknowledged in every cycle is there.
	p := durStart(t, bin, "--data", dataDir)
	c := &http.Client{Transport: &http.Transport{}}
	have, _ := durList(t, c, p.url)
	for name, rv := range acked {
		if got, ok := have[name]; !ok || got != rv {
			t.Errorf("after the last restart: %s at %d (present %v), acknowledged at %d", name, got, ok, rv)
		}
	}
	rv, code, err := durCreate(ctx, c, p.url, "probe-final")
	if err != nil || code != http.StatusCreated {
		t.Fatalf("final probe create: %d %v", code, err)
	}
	if rv <= maxAcked {
		t.Errorf("final write has resourceVersion %d, not after the acknowledged %d", rv, maxAcked)
	}
	c.CloseIdleConnections()
}

// PLAY-8, issue 12's reproduction: with --data, 100 ConfigMaps written, then one
// record's length field changed by hand. The restart keeps the other 99, reports
// the damaged record, never cuts the journal, never reuses a resourceVersion, and
// answers a watch from before the lost change with 410 so its client relists.
func TestPLAY_8_DamagedJournalRecordCostsOnlyItself(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	bin := durBuildPlayground(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	p := durStart(t, bin, "--data", dataDir)
	c := &http.Client{Transport: &http.Transport{}}
	var rvs []int64
	for i := range 100 {
		rv, code, err := durCreate(t.Context(), c, p.url, fmt.Sprintf("cm-%03d", i))
		if err != nil || code != http.StatusCreated {
			t.Fatalf("create %d: %d %v", i, code, err)
		}
		rvs = append(rvs, rv)
	}
	p.kill(t)
	c.CloseIdleConnections()

	// Change the length field of the record that created cm-010: the frame's
	// header, 13 bytes in, after magic, kind and revision.
	path := filepath.Join(dataDir, "journal")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte(`"name":"cm-010"`))
	start := bytes.LastIndex(data[:at], []byte("kpf\x02"))
	if at < 0 || start < 0 {
		t.Fatal("record of cm-010 not found in the journal")
	}
	data[start+13]++
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}

	p = durStart(t, bin, "--data", dataDir)
	have, listRV := durList(t, c, p.url)
	if len(have) != 99 {
		t.Fatalf("%d of 100 ConfigMaps after the restart\n%s", len(have), p.log())
	}
	if _, ok := have["cm-010"]; ok {
		t.Fatal("the damaged record's object came back")
	}
	if !strings.Contains(p.log(), "restore: storage: journal entry") || !strings.Contains(p.log(), "is damaged") {
		t.Fatalf("the damage is not logged:\n%s", p.log())
	}
	if st, _ := os.Stat(path); st.Size() < int64(len(data)) {
		t.Fatalf("journal cut from %d to %d bytes", len(data), st.Size())
	}
	if listRV < rvs[99] {
		t.Fatalf("resourceVersion went back from %d to %d", rvs[99], listRV)
	}
	rv, code, err := durCreate(t.Context(), c, p.url, "after")
	if err != nil || code != http.StatusCreated || rv <= rvs[99] {
		t.Fatalf("the next write: rv %d (code %d, %v), acknowledged up to %d", rv, code, err, rvs[99])
	}
	resp, err := c.Get(fmt.Sprintf("%s/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=%d", p.url, rvs[5]))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// kube answers a watch from a compacted revision with an ERROR event.
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"type":"ERROR"`) || !strings.Contains(string(body), `"code":410`) {
		t.Fatalf("watch from before the lost change: %d %s", resp.StatusCode, body)
	}
}

// durRSS is the resident memory of a process, from /proc.
func durRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// K8S-WATCH-7, issue 12's reproduction: ten ConfigMaps of the largest size kube
// allows, then 40 watches without a resourceVersion whose clients never read. A
// watch holds the store's objects, not copies of them, so the server's memory
// stays bounded, and it keeps answering; when the watches end, it is given back.
func TestK8S_WATCH_7_NonReadingWatchesBoundedMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	bin := durBuildPlayground(t)
	p := durStart(t, bin, "--data", t.TempDir())
	c := &http.Client{Transport: &http.Transport{}}
	value := strings.Repeat("x", 1<<20-16)
	for i := range 10 {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big-%d"},"data":{"v":%q}}`, i, value)
		resp, err := c.Post(p.url+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create big-%d: %d", i, resp.StatusCode)
		}
	}
	pid := p.cmd.Process.Pid
	base := durRSS(t, pid)

	host := strings.TrimPrefix(p.url, "http://")
	var conns []net.Conn
	for range 40 {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		// Ask for the whole collection, then never read a byte.
		fmt.Fprintf(conn, "GET /api/v1/namespaces/default/configmaps?watch=1 HTTP/1.1\r\nHost: %s\r\n\r\n", host)
		conns = append(conns, conn)
	}
	// Let the server go as far as the watches let it.
	var peak int64
	for range 20 {
		time.Sleep(100 * time.Millisecond)
		peak = max(peak, durRSS(t, pid))
	}
	if _, code, err := durCreate(t.Context(), c, p.url, "still-answering"); err != nil || code != http.StatusCreated {
		t.Fatalf("server stopped answering: %d %v", code, err)
	}
	for _, conn := range conns {
		conn.Close()
	}
	t.Logf("RSS %d MiB with the objects, %d MiB with 40 non-reading watches (+%.1f MiB per watch)",
		base>>20, peak>>20, float64(peak-base)/40/(1<<20))
	// Each watch may hold what is in flight (an event and its frame, a few MiB),
	// never the collection (10 MiB) or more.
	if perWatch := (peak - base) / 40; perWatch > 4<<20 {
		t.Fatalf("each non-reading watch costs %.1f MiB", float64(perWatch)/(1<<20))
	}
}
