package apiserver

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/tidwall/buntdb"

	"kubeplay/core/api"
	"kubeplay/core/encoding"
	"kubeplay/core/kinds"
	"kubeplay/core/registry"
	"kubeplay/core/storage"
)

// bufferWriter is a reusable in-memory http.ResponseWriter, so benchmarks measure
// the server and not a recorder's allocations.
type bufferWriter struct {
	h    http.Header
	code int
	buf  bytes.Buffer
}

func (w *bufferWriter) Header() http.Header         { return w.h }
func (w *bufferWriter) WriteHeader(code int)        { w.code = code }
func (w *bufferWriter) Write(b []byte) (int, error) { return w.buf.Write(b) }
func (w *bufferWriter) reset()                      { w.buf.Reset(); w.code = 0; clear(w.h) }

func newBenchServer(b *testing.B) *testCore {
	b.Helper()
	srv, err := newCore(testConfig{Storage: storage.Config{HistoryLimit: 1 << 20, WatchBuffer: 1 << 16}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv
}

func serve(b *testing.B, srv *testCore, w *bufferWriter, method, path string, body []byte) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	r, err := http.NewRequest(method, path, rd)
	if err != nil {
		b.Fatal(err)
	}
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	w.reset()
	srv.ServeHTTP(w, r)
	if w.code >= 300 {
		b.Fatalf("%s %s: %d %s", method, path, w.code, w.buf.Bytes())
	}
}

// configMapBody is a ConfigMap of about size bytes.
func configMapBody(name string, size int) []byte {
	return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name +
		`","labels":{"app":"bench"}},"data":{"payload":"` + strings.Repeat("x", size) + `"}}`)
}

// BenchmarkList10k lists 10,000 ConfigMaps of ~2 KiB through the handler and
// compares it with the floor: copying the same response bytes from one buffer
// into a response writer. Target: ≤ 4× the floor.
func BenchmarkList10k(b *testing.B) {
	srv := newBenchServer(b)
	w := &bufferWriter{h: http.Header{}}
	for i := 0; i < 10000; i++ {
		serve(b, srv, w, "POST", "/api/v1/namespaces/default/configmaps", configMapBody(fmt.Sprintf("cm-%05d", i), 1900))
	}
	const path = "/api/v1/namespaces/default/configmaps"
	serve(b, srv, w, "GET", path, nil)
	body := bytes.Clone(w.buf.Bytes())
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(body, &list); err != nil || len(list.Items) != 10000 {
		b.Fatalf("list: %d items, %v", len(list.Items), err)
	}
	floorW := &bufferWriter{h: http.Header{}}
	floorW.buf.Grow(len(body))
	// Settle: collect the setup's garbage and warm both paths before timing.
	runtime.GC()
	for i := 0; i < 3; i++ {
		serve(b, srv, w, "GET", path, nil)
		floorW.reset()
		_, _ = floorW.Write(body)
	}

	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	var listTime, floorTime time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		serve(b, srv, w, "GET", path, nil)
		listTime += time.Since(start)

		start = time.Now()
		floorW.reset()
		floorW.Header().Set("Content-Type", "application/json")
		floorW.WriteHeader(http.StatusOK)
		_, _ = floorW.Write(body)
		floorTime += time.Since(start)
	}
	b.ReportMetric(float64(listTime)/float64(floorTime), "x-copy-floor")
	b.ReportMetric(float64(floorTime.Nanoseconds())/float64(b.N), "floor-ns/op")
}

// frameWriter is a watch's response writer that notes each frame it gets.
type frameWriter struct {
	h      http.Header
	frames chan []byte
}

func (w *frameWriter) Header() http.Header { return w.h }
func (w *frameWriter) WriteHeader(int)     {}
func (w *frameWriter) Flush()              {}
func (w *frameWriter) Write(b []byte) (int, error) {
	w.frames <- b
	return len(b), nil
}

// BenchmarkWatchFanout1000 writes one object and waits until 1,000 watchers have
// each been handed its event. It reports the cost per delivered watcher (target
// ≤ 2 µs) and the ratio to a floor: waking 1,000 goroutines through channels.
// (That the 1,000 deliveries share one encoding is TestK8S_WATCH_1_EncodedOnce's.)
func BenchmarkWatchFanout1000(b *testing.B) {
	const watchers = 1000
	fanout := watchFanout(b, watchers, "application/json")

	// Floor: the same number of goroutines, each woken by a channel send.
	var floor sync.WaitGroup
	chans := make([]chan []byte, watchers)
	for i := range chans {
		chans[i] = make(chan []byte, 16)
		go func(c chan []byte) {
			for range c {
				floor.Done()
			}
		}(chans[i])
	}
	frame := []byte("x")
	start := time.Now()
	for i := 0; i < b.N; i++ {
		floor.Add(watchers)
		for _, c := range chans {
			c <- frame
		}
		floor.Wait()
	}
	floorTime := time.Since(start)
	for _, c := range chans {
		close(c)
	}
	b.ReportMetric(float64(fanout)/float64(floorTime), "x-chan-floor")
}

// BenchmarkWatchEncodingByMedia fans one write out to 200 watchers in each
// watch media.
func BenchmarkWatchEncodingByMedia(b *testing.B) {
	for _, accept := range []string{"application/json", "application/vnd.kubernetes.protobuf", "application/cbor"} {
		b.Run(accept[strings.LastIndex(accept, "/")+1:], func(b *testing.B) { watchFanout(b, 200, accept) })
	}
}

// watchFanout times b.N updates each delivered to watchers watchers asking for
// accept, reporting ns per delivered watcher.
func watchFanout(b *testing.B, watchers int, accept string) time.Duration {
	srv := newBenchServer(b)
	w := &bufferWriter{h: http.Header{}}
	serve(b, srv, w, "POST", "/api/v1/namespaces/default/configmaps", configMapBody("target", 512))
	rv := srv.Store().Revision()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var delivered, ready sync.WaitGroup
	ready.Add(watchers)
	for i := 0; i < watchers; i++ {
		fw := &frameWriter{h: http.Header{}, frames: make(chan []byte, 16)}
		r := httptest.NewRequest("GET", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion="+strconv.FormatInt(rv, 10), nil).WithContext(ctx)
		r.Header.Set("Accept", accept)
		go srv.ServeHTTP(fw, r)
		go func() {
			ready.Done()
			for range fw.frames {
				delivered.Done()
			}
		}()
	}
	ready.Wait()
	for srv.Store().Watchers() < watchers {
		time.Sleep(time.Millisecond)
	}
	update := configMapBody("target", 512)
	put := func(i int) {
		body := bytes.Replace(update, []byte(`"app":"bench"`), []byte(`"app":"bench-`+strconv.Itoa(i)+`"`), 1)
		delivered.Add(watchers)
		serve(b, srv, w, "PUT", "/api/v1/namespaces/default/configmaps/target", body)
		delivered.Wait()
	}
	put(-1) // warm up

	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		put(i)
	}
	fanout := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(fanout.Nanoseconds())/float64(b.N*watchers), "ns/watcher")
	return fanout
}

// podBody is a Pod of about 1.5 KiB, as controllers write them.
func podBody(name string) []byte {
	return []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","labels":{"app":"web","pod-template-hash":"7d4b9c8f5"},` +
		`"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-01-01T00:00:00Z"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d4b9c8f5","uid":"0b6f7c43-8a8e-4c1c-9b44-1f0d3a1f9e21","controller":true,"blockOwnerDeletion":true}]},` +
		`"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"MODE","value":"production"}],` +
		`"resources":{"requests":{"cpu":"250m","memory":"64Mi"},"limits":{"memory":"128Mi"}},"readinessProbe":{"httpGet":{"path":"/healthz","port":80},"periodSeconds":5},` +
		`"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,` +
		`"dnsPolicy":"ClusterFirst","serviceAccountName":"default","nodeName":"node-1","schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]},` +
		`"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T00:00:05Z"}],"hostIP":"10.0.0.1","podIP":"10.244.1.7","startTime":"2026-01-01T00:00:00Z",` +
		`"containerStatuses":[{"name":"web","ready":true,"restartCount":0,"image":"nginx:1.27","imageID":"docker.io/library/nginx@sha256:0d17b565","containerID":"containerd://5c1d","started":true,"state":{"running":{"startedAt":"2026-01-01T00:00:03Z"}}}],"qosClass":"Burstable"}}`)
}

// BenchmarkListPods10kByMedia lists 10,000 Pods as JSON, protobuf and CBOR in
// the same loop and reports each one's time and its ratio to JSON. JSON is the
// stored form (a copy); protobuf serves cached item messages; CBOR converts.
func BenchmarkListPods10kByMedia(b *testing.B) {
	srv := newBenchServer(b)
	w := &bufferWriter{h: http.Header{}}
	for i := 0; i < 10000; i++ {
		serve(b, srv, w, "POST", "/api/v1/namespaces/default/pods", podBody(fmt.Sprintf("web-%05d", i)))
	}
	media := []string{"application/json", "application/vnd.kubernetes.protobuf", "application/cbor"}
	reqs := make([]*http.Request, len(media))
	sizes := make([]int, len(media))
	for i, m := range media {
		reqs[i] = httptest.NewRequest("GET", "/api/v1/namespaces/default/pods", nil)
		reqs[i].Header.Set("Accept", m)
		w.reset()
		srv.ServeHTTP(w, reqs[i]) // warms the protobuf message cache
		if w.code != 200 || w.h.Get("Content-Type") != m {
			b.Fatalf("%s: %d %q", m, w.code, w.h.Get("Content-Type"))
		}
		sizes[i] = w.buf.Len()
	}
	runtime.GC()
	times := make([]time.Duration, len(media))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, r := range reqs {
			start := time.Now()
			w.reset()
			srv.ServeHTTP(w, r)
			times[j] += time.Since(start)
		}
	}
	b.StopTimer()
	names := []string{"json", "protobuf", "cbor"}
	for j := range media {
		b.ReportMetric(float64(times[j].Nanoseconds())/float64(b.N)/1e6, names[j]+"-ms/list")
		b.ReportMetric(float64(sizes[j])/(1<<20), names[j]+"-MiB")
		if j > 0 {
			b.ReportMetric(float64(times[j])/float64(times[0]), names[j]+"-x-json")
		}
	}
}

// BenchmarkCreate creates ConfigMaps through the handler against the in-memory
// store and compares with the floor: the raw buntdb transactions a create
// performs (read the namespace, read the key, then write object, history entry
// with the event, and revision). Target: ≤ 5× the floor.
func BenchmarkCreate(b *testing.B) {
	srv := newBenchServer(b)
	w := &bufferWriter{h: http.Header{}}
	// Requests are built beforehand: parsing HTTP is the host's work, not the core's.
	reqs := make([]*http.Request, b.N)
	for i := range reqs {
		r, err := http.NewRequest("POST", "/api/v1/namespaces/default/configmaps", bytes.NewReader(configMapBody(fmt.Sprintf("cm-%08d", i), 200)))
		if err != nil {
			b.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/json")
		reqs[i] = r
	}
	db, err := buntdb.Open(":memory:")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	_ = db.SetConfig(buntdb.Config{SyncPolicy: buntdb.Never, AutoShrinkDisabled: true})
	_ = db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set("o/core/namespaces/default", `{"metadata":{"name":"default"},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}`, nil)
		return err
	})
	serve(b, srv, w, "POST", "/api/v1/namespaces/default/configmaps", configMapBody("sample", 200))
	stored := string(bytes.Clone(w.buf.Bytes()))

	// Interleaved, so both run under the same heap and cache conditions.
	var create, floor time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		w.reset()
		srv.ServeHTTP(w, reqs[i])
		if w.code != http.StatusCreated {
			b.Fatalf("create: %d %s", w.code, w.buf.Bytes())
		}
		create += time.Since(start)

		start = time.Now()
		key := "o/core/configmaps/default/" + strconv.Itoa(i)
		// The namespace read and the existence read, then the write.
		_ = db.View(func(tx *buntdb.Tx) error { _, err := tx.Get("o/core/namespaces/default"); return err })
		_ = db.View(func(tx *buntdb.Tx) error { _, err := tx.Get(key); return err })
		err := db.Update(func(tx *buntdb.Tx) error {
			if _, _, err := tx.Set(key, stored, nil); err != nil {
				return err
			}
			if _, _, err := tx.Set("h/"+strconv.Itoa(i+1), key+stored, nil); err != nil {
				return err
			}
			_, _, err := tx.Set("m/rev", strconv.Itoa(i+1), nil)
			return err
		})
		floor += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(create)/float64(floor), "x-buntdb-floor")
	b.ReportMetric(float64(floor.Nanoseconds())/float64(b.N), "floor-ns/op")
}

// countingWriter is a watch's response writer that cancels the request once it
// has been handed n frames.
type countingWriter struct {
	h      http.Header
	n      int
	cancel context.CancelFunc
}

func (w *countingWriter) Header() http.Header { return w.h }
func (w *countingWriter) WriteHeader(int)     {}
func (w *countingWriter) Flush()              {}
func (w *countingWriter) Write(b []byte) (int, error) {
	if w.n--; w.n == 0 {
		w.cancel()
	}
	return len(b), nil
}

// BenchmarkWatchStart1k starts a watch without a resourceVersion on 1,000
// ConfigMaps of ~1 KiB and takes its 1,000 initial events, against the floor of
// listing the same collection. The allocations per op show what a watch start
// copies.
func BenchmarkWatchStart1k(b *testing.B) {
	srv := newBenchServer(b)
	w := &bufferWriter{h: http.Header{}}
	for i := 0; i < 1000; i++ {
		serve(b, srv, w, "POST", "/api/v1/namespaces/default/configmaps", configMapBody(fmt.Sprintf("cm-%04d", i), 1000))
	}
	const path = "/api/v1/namespaces/default/configmaps"
	runtime.GC()
	b.ResetTimer()
	var watchTime, listTime time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		ctx, cancel := context.WithCancel(context.Background())
		r, _ := http.NewRequestWithContext(ctx, "GET", path+"?watch=1", nil)
		srv.ServeHTTP(&countingWriter{h: http.Header{}, n: 1000, cancel: cancel}, r)
		watchTime += time.Since(start)

		start = time.Now()
		serve(b, srv, w, "GET", path, nil)
		listTime += time.Since(start)
	}
	b.ReportMetric(float64(watchTime)/float64(listTime), "x-list-floor")
	b.ReportMetric(float64(watchTime.Nanoseconds())/float64(b.N), "watch-ns/op")
}

// deploymentBody is a Deployment as kubectl sends one: a pod template with two
// containers, probes, resources, env and volumes (about 2 KiB).
func deploymentBody(name string) []byte {
	return []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"` + name + `","labels":{"app":"web","tier":"frontend"},` +
		`"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},"spec":{"replicas":3,"revisionHistoryLimit":5,` +
		`"selector":{"matchLabels":{"app":"web"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},` +
		`"template":{"metadata":{"labels":{"app":"web","tier":"frontend"}},"spec":{"serviceAccountName":"web","terminationGracePeriodSeconds":30,` +
		`"nodeSelector":{"kubernetes.io/os":"linux"},"tolerations":[{"key":"dedicated","operator":"Equal","value":"web","effect":"NoSchedule"}],` +
		`"containers":[{"name":"web","image":"nginx:1.27","imagePullPolicy":"IfNotPresent","ports":[{"name":"http","containerPort":80,"protocol":"TCP"}],` +
		`"env":[{"name":"MODE","value":"production"},{"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],` +
		`"resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"500m","memory":"256Mi"}},` +
		`"readinessProbe":{"httpGet":{"path":"/healthz","port":"http"},"periodSeconds":5},"livenessProbe":{"tcpSocket":{"port":80},"initialDelaySeconds":10},` +
		`"volumeMounts":[{"name":"config","mountPath":"/etc/nginx/conf.d","readOnly":true}]},` +
		`{"name":"sidecar","image":"busybox:1.36","command":["sh","-c","tail -f /dev/null"],"resources":{"requests":{"cpu":"10m"}}}],` +
		`"volumes":[{"name":"config","configMap":{"name":"web-config","items":[{"key":"default.conf","path":"default.conf"}]}}]}}}}`)
}

// BenchmarkFieldValidation creates the same Deployment with
// fieldValidation=Strict and with Ignore, interleaved (each going first every
// other time), and reports Strict's median time as a ratio to Ignore's: what
// looking for unknown and duplicate fields costs a create. Medians, as a
// preempted request would otherwise weigh on one side. Target: ≤ 1.3×.
func BenchmarkFieldValidation(b *testing.B) {
	srv := newBenchServer(b)
	w := &bufferWriter{h: http.Header{}}
	reqs := make([][2]*http.Request, b.N)
	for i := range reqs {
		for j, v := range []string{"Strict", "Ignore"} {
			r, err := http.NewRequest("POST", "/apis/apps/v1/namespaces/default/deployments?fieldValidation="+v,
				bytes.NewReader(deploymentBody(fmt.Sprintf("%s-%08d", strings.ToLower(v), i))))
			if err != nil {
				b.Fatal(err)
			}
			r.Header.Set("Content-Type", "application/json")
			reqs[i][j] = r
		}
	}
	times := [2][]time.Duration{make([]time.Duration, b.N), make([]time.Duration, b.N)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range 2 {
			j := (i + k) % 2
			start := time.Now()
			w.reset()
			srv.ServeHTTP(w, reqs[i][j])
			times[j][i] = time.Since(start)
			if w.code != http.StatusCreated {
				b.Fatalf("create: %d %s", w.code, w.buf.Bytes())
			}
		}
	}
	median := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)/2]
	}
	strict, ignore := median(times[0]), median(times[1])
	b.ReportMetric(float64(strict)/float64(ignore), "x-ignore")
	b.ReportMetric(float64(ignore.Nanoseconds()), "ignore-median-ns")
}

// BenchmarkROB_2_QuotaAdmission creates ConfigMaps, interleaved, in three
// namespaces: one without a ResourceQuota (the floor), one whose quota limits
// something else (the admission lists and reads it, and lets the create
// through), and one whose quota counts ConfigMaps (each create also charges
// the quota's status, as kube's admission writes it before the object). It
// reports what each costs as a ratio to the floor.
func BenchmarkROB_2_QuotaAdmission(b *testing.B) {
	srv := newBenchServer(b)
	w := &bufferWriter{h: http.Header{}}
	for _, ns := range []string{"plain", "other", "counted"} {
		serve(b, srv, w, "POST", "/api/v1/namespaces", []byte(`{"metadata":{"name":"`+ns+`"}}`))
	}
	for ns, hard := range map[string]string{"other": `{"pods":"10"}`, "counted": `{"count/configmaps":"1000000000"}`} {
		serve(b, srv, w, "POST", "/api/v1/namespaces/"+ns+"/resourcequotas", []byte(`{"metadata":{"name":"q"},"spec":{"hard":`+hard+`}}`))
		serve(b, srv, w, "PUT", "/api/v1/namespaces/"+ns+"/resourcequotas/q/status",
			[]byte(`{"metadata":{"name":"q"},"spec":{"hard":`+hard+`},"status":{"hard":`+hard+`,"used":`+strings.ReplaceAll(strings.ReplaceAll(hard, "1000000000", "0"), "10", "0")+`}}`))
		if w.code != http.StatusOK {
			b.Fatalf("quota status: %d %s", w.code, w.buf.Bytes())
		}
	}
	reqs := map[string][]*http.Request{}
	for _, ns := range []string{"plain", "other", "counted"} {
		for i := range b.N {
			r, err := http.NewRequest("POST", "/api/v1/namespaces/"+ns+"/configmaps", bytes.NewReader(configMapBody(fmt.Sprintf("cm-%08d", i), 200)))
			if err != nil {
				b.Fatal(err)
			}
			r.Header.Set("Content-Type", "application/json")
			reqs[ns] = append(reqs[ns], r)
		}
	}
	took := map[string]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		for _, ns := range []string{"plain", "other", "counted"} {
			start := time.Now()
			w.reset()
			srv.ServeHTTP(w, reqs[ns][i])
			if w.code != http.StatusCreated {
				b.Fatalf("create in %s: %d %s", ns, w.code, w.buf.Bytes())
			}
			took[ns] += time.Since(start)
		}
	}
	b.ReportMetric(float64(took["other"])/float64(took["plain"]), "x-other-quota")
	b.ReportMetric(float64(took["counted"])/float64(took["plain"]), "x-counting-quota")
}

// BenchmarkK8S_ENC_6_GzipList lists 2,000 ConfigMaps of 2 KiB of random
// data (make bench-vs-kube's workload) with gzip, in JSON and protobuf, as
// stitched from the items' cached segments, against two floors measured in
// the same run: the same list without gzip (identity), and that list
// compressed whole at best speed for each request, as kube-apiserver does
// (x-whole below 1 is ahead of it). size-x-whole is the answer's bytes over
// those of the whole-list compression: what segments compressed on their
// own cost on the wire.
func BenchmarkK8S_ENC_6_GzipList(b *testing.B) {
	srv := newBenchServer(b)
	w := &bufferWriter{h: http.Header{}}
	rnd := make([]byte, 1536)
	for i := range 2000 {
		for j := range rnd {
			rnd[j] = byte(i*7919 + j*104729 + j*j)
		}
		body := fmt.Appendf(nil, `{"metadata":{"name":"cm-%05d"},"data":{"payload":%q}}`, i, base64.StdEncoding.EncodeToString(rnd))
		serve(b, srv, w, "POST", "/api/v1/namespaces/default/configmaps", body)
	}
	for _, media := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
		b.Run(media[strings.LastIndex(media, "/")+1:], func(b *testing.B) {
			req := func(gzip bool) *http.Request {
				r := httptest.NewRequest("GET", "/api/v1/namespaces/default/configmaps", nil)
				r.Header.Set("Accept", media)
				if gzip {
					r.Header.Set("Accept-Encoding", "gzip")
				}
				return r
			}
			plain, zipped := req(false), req(true)
			w.reset()
			srv.ServeHTTP(w, zipped) // makes the segments
			if w.h.Get("Content-Encoding") != "gzip" {
				b.Fatalf("not gzipped: %v", w.h)
			}
			size := w.buf.Len()
			w.reset()
			srv.ServeHTTP(w, plain)
			identity := bytes.Clone(w.buf.Bytes())
			var whole bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&whole, gzip.BestSpeed)
			runtime.GC()
			var joined, ident, floor time.Duration
			for b.Loop() {
				t := time.Now()
				w.reset()
				srv.ServeHTTP(w, zipped)
				joined += time.Since(t)

				t = time.Now()
				w.reset()
				srv.ServeHTTP(w, plain)
				ident += time.Since(t)

				t = time.Now()
				whole.Reset()
				zw.Reset(&whole)
				_, _ = zw.Write(w.buf.Bytes())
				_ = zw.Close()
				floor += time.Since(t)
			}
			floor += ident // the identity list, then compressed
			b.ReportMetric(float64(joined)/float64(floor), "x-whole")
			b.ReportMetric(float64(joined)/float64(ident), "x-identity")
			b.ReportMetric(float64(size)/float64(whole.Len()), "size-x-whole")
			b.ReportMetric(float64(joined.Microseconds())/1000/float64(b.N), "gzip-ms")
			if !bytes.Equal(w.buf.Bytes(), identity) {
				b.Fatal("the identity list changed")
			}
		})
	}
}

// TestK8S_WATCH_1_EncodedOnce: an event is encoded once per media and form,
// however many watchers send it (each copies the frame into its burst).
func TestK8S_WATCH_1_EncodedOnce(t *testing.T) {
	res := api.NewRegistry(kinds.All()...).ByGroupResource("", "configmaps")
	e := &registry.Event{Type: "MODIFIED", Key: "core/configmaps/default/a", Rev: 7,
		Object: []byte(`{"metadata":{"name":"a","namespace":"default","resourceVersion":"7"},"data":{"k":"v"}}`)}
	for _, media := range []encoding.Media{encoding.JSON, encoding.Protobuf, encoding.CBOR} {
		codec := func() *watchCodec {
			return newWatchCodec(target{res: res, rep: reply{out: encoding.Output{Media: media}}})
		}
		a, b := codec().event(e), codec().event(e)
		if len(a) == 0 || unsafe.SliceData(a) != unsafe.SliceData(b) {
			t.Errorf("%v: two watchers' frames are two encodings", media)
		}
	}
}
