package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kubeplay/internal/control"
)

// BenchmarkWORK_1_Workshop (make bench-workshop; never in make test): N
// simulated sandboxes in this process, each replaying the workshop script
// from its own client (apply a Deployment, scale it, wait for its rollout,
// list Pods, read a Pod's logs), then polling its Deployment as an attendee
// at a terminal does. It reports:
//
//   - rss-MiB/active: RSS per running sandbox, its Deployment rolled out;
//   - rss-MiB/idle: RSS per sandbox once unloaded after --sandbox-idle;
//   - p50-ratio, p99-ratio: a GET's latency percentiles with N sandboxes
//     active, as a ratio to one sandbox active alone (measured first, in the
//     same run); p50-ms, p99-ms are the N-sandbox figures;
//   - cpu-%/loaded-idle: the process's CPU (% of one core) while the N run
//     but nobody sends anything (their simulated clusters' own work);
//   - cpu-%/idle: the same once they are unloaded; cpu-%/before: the same
//     before the workshop (the server and its own API-only sandbox);
//   - goroutines/idle: goroutines per unloaded sandbox (none: nothing of
//     theirs runs or waits on a timer);
//   - restart-ms: a GET of an unloaded sandbox, which starts it again.
func BenchmarkWORK_1_Workshop(b *testing.B) {
	for _, n := range []int{30, 100} {
		b.Run("sandboxes="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				benchWorkshop(b, n)
			}
		})
	}
}

const (
	benchIdle     = 20 * time.Second       // --sandbox-idle
	benchPollGap  = 250 * time.Millisecond // between an attendee's GETs
	benchMeasure  = 10 * time.Second       // of latency, and of CPU
	benchParallel = 8                      // attendees replaying the script at once
)

func benchWorkshop(b *testing.B, n int) {
	dir := b.TempDir()
	s, c := startWorkshopForBench(b, dir, n)
	baseRSS, baseGoroutines := rss(), quietGoroutines(c)
	baseCPU := cpuShare(benchMeasure)
	var ws control.WorkshopCreated
	if code := call(b, c, "POST", s.url+"/workshops", testInstructorToken, fmt.Sprintf(`{"attendees":%d,"cluster":{"mode":"simulated","speed":20}}`, n), &ws); code != 201 {
		b.Fatalf("POST /workshops: %d", code)
	}

	// One attendee alone: the script, then its GETs' latency (ten times as
	// often as each of many polls, for as many samples).
	benchScript(b, c, ws.Sandboxes[0])
	one := benchPoll(c, ws.Sandboxes[:1], benchPollGap/10)

	// All of them: the script, eight at a time, then every one polling.
	sem := make(chan struct{}, benchParallel)
	var wg sync.WaitGroup
	for _, sb := range ws.Sandboxes[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			benchScript(b, c, sb)
		}()
	}
	wg.Wait()
	// Those that finished first were unloaded meanwhile: each answers once
	// before the measure, which is of sandboxes running.
	for _, sb := range ws.Sandboxes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			call(b, c, "GET", sb.Server+"/api", sb.Token, "", nil)
		}()
	}
	wg.Wait()
	all := benchPoll(c, ws.Sandboxes, benchPollGap)
	active := rss()

	// Nobody sends anything: the sandboxes still run, then are unloaded.
	loadedIdle := cpuShare(benchMeasure)
	deadline := time.Now().Add(benchIdle + time.Minute)
	for s.fleet.running() > 0 {
		if time.Now().After(deadline) {
			b.Fatalf("%d sandboxes still run %v after their last request", s.fleet.running(), benchIdle+time.Minute)
		}
		time.Sleep(100 * time.Millisecond)
	}
	idle, idleGoroutines := rss(), quietGoroutines(c)
	unloadedIdle := cpuShare(benchMeasure)
	// An unloaded sandbox's next request starts it again.
	start := time.Now()
	call(b, c, "GET", ws.Sandboxes[n/2].Server+"/apis/apps/v1/namespaces/default/deployments/web", ws.Sandboxes[n/2].Token, "", nil)
	restart := time.Since(start)

	mib := func(bytes int64) float64 { return float64(bytes) / float64(n) / (1 << 20) }
	b.ReportMetric(mib(active-baseRSS), "rss-MiB/active")
	b.ReportMetric(mib(idle-baseRSS), "rss-MiB/idle")
	b.ReportMetric(all.p50.Seconds()*1000, "p50-ms")
	b.ReportMetric(all.p99.Seconds()*1000, "p99-ms")
	b.ReportMetric(float64(all.p50)/float64(one.p50), "p50-ratio")
	b.ReportMetric(float64(all.p99)/float64(one.p99), "p99-ratio")
	b.ReportMetric(baseCPU, "cpu-%/before")
	b.ReportMetric(loadedIdle, "cpu-%/loaded-idle")
	b.ReportMetric(unloadedIdle, "cpu-%/idle")
	b.ReportMetric(float64(idleGoroutines-baseGoroutines)/float64(n), "goroutines/idle")
	b.ReportMetric(restart.Seconds()*1000, "restart-ms")
	b.Logf("%d sandboxes: one alone p50 %v p99 %v (%d GETs); all p50 %v p99 %v (%d GETs); RSS %d MiB before, %d active, %d idle; CPU %.2f%% before, %.2f%% loaded idle, %.2f%% unloaded",
		n, one.p50, one.p99, one.count, all.p50, all.p99, all.count, baseRSS>>20, active>>20, idle>>20, baseCPU, loadedIdle, unloadedIdle)
}

// startWorkshopForBench is the command with a workshop of room for n
// sandboxes, unloaded after benchIdle, its own sandbox API-only, quiet.
func startWorkshopForBench(b *testing.B, dir string, n int) (*server, *http.Client) {
	s := startPlayground(b, options{tls: tlsOptions{on: true, dir: filepath.Join(dir, "tls")},
		workshop: workshopOptions{instructorToken: testInstructorToken, maxSandboxes: n, idle: benchIdle}})
	_, c := clientFor(s)
	c.Transport.(*http.Transport).MaxIdleConnsPerHost = 2 * n
	return s, c
}

// benchScript is the workshop script, as kubectl sends it.
func benchScript(b *testing.B, c *http.Client, sb control.Created) {
	deploy := sb.Server + "/apis/apps/v1/namespaces/default/deployments"
	must := func(code int, want int, what string) {
		if code != want {
			b.Errorf("%s: %s: %d, want %d", sb.Label, what, code, want)
		}
	}
	must(call(b, c, "PATCH", deploy+"/web?fieldManager=kubectl-client-side-apply&fieldValidation=Strict", sb.Token,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}}`,
		nil, "application/apply-patch+yaml"), 201, "apply")
	must(call(b, c, "PATCH", deploy+"/web/scale", sb.Token, `{"spec":{"replicas":2}}`, nil, "application/merge-patch+json"), 200, "scale")
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		var d struct {
			Status struct{ ReadyReplicas int }
		}
		call(b, c, "GET", deploy+"/web", sb.Token, "", &d)
		if d.Status.ReadyReplicas == 2 {
			break
		}
		if time.Now().After(deadline) {
			b.Errorf("%s: the rollout did not finish", sb.Label)
			return
		}
	}
	var pods struct {
		Items []struct{ Metadata struct{ Name string } }
	}
	must(call(b, c, "GET", sb.Server+"/api/v1/namespaces/default/pods?labelSelector=app%3Dweb", sb.Token, "", &pods), 200, "list pods")
	if len(pods.Items) > 0 {
		must(call(b, c, "GET", sb.Server+"/api/v1/namespaces/default/pods/"+pods.Items[0].Metadata.Name+"/log", sb.Token, "", nil), 200, "logs")
	}
}

// latencies are a poll's percentiles.
type latencies struct {
	p50, p99 time.Duration
	count    int
}

// benchPoll has every sandbox's attendee GET its Deployment every gap (from
// a random start) for benchMeasure.
func benchPoll(c *http.Client, sbs []control.Created, gap time.Duration) latencies {
	var mu sync.Mutex
	var took []time.Duration
	var wg sync.WaitGroup
	end := time.Now().Add(benchMeasure)
	for _, sb := range sbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(rand.N(gap))
			for time.Now().Before(end) {
				req, _ := http.NewRequest("GET", sb.Server+"/apis/apps/v1/namespaces/default/deployments/web", nil)
				req.Header.Set("Authorization", "Bearer "+sb.Token)
				start := time.Now()
				res, err := c.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				d := time.Since(start)
				mu.Lock()
				took = append(took, d)
				mu.Unlock()
				time.Sleep(gap)
			}
		}()
	}
	wg.Wait()
	slices.Sort(took)
	at := func(q float64) time.Duration { return took[min(len(took)-1, int(q*float64(len(took))))] }
	return latencies{p50: at(0.50), p99: at(0.99), count: len(took)}
}

// quietGoroutines is how many goroutines run once c's idle connections
// (and the server's goroutines serving them) are closed.
func quietGoroutines(c *http.Client) int {
	c.CloseIdleConnections()
	time.Sleep(time.Second)
	return runtime.NumGoroutine()
}

// rss is the process's resident set size, once the garbage collector has
// returned what it can to the OS.
func rss() int64 {
	debug.FreeOSMemory()
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// cpuShare is the process's CPU over d, in percent of one core.
func cpuShare(d time.Duration) float64 {
	used := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	before, start := used(), time.Now()
	time.Sleep(d)
	return 100 * float64(used()-before) / float64(time.Since(start))
}
