package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

// Event types.
const (
	Normal  = "Normal"
	Warning = "Warning"
)

// recorderCacheSize bounds what a Recorder remembers to count repeats, as
// client-go's event cache (an LRU of 4096) does.
const recorderCacheSize = 4096

// Recorder records core/v1 Events about objects, as client-go's
// record.EventRecorder does for kube-controller-manager and the kubelet: an
// event is named after its object and the time (name.hex-nanoseconds), and an
// event that repeats one already recorded (same object, type, reason and
// message) counts up the first one (count, lastTimestamp) with a strategic
// merge patch instead of adding another.
type Recorder struct {
	c         *client.Client
	clock     clock.Clock
	component string // source.component and reportingComponent
	host      string // source.host and reportingInstance

	mu   sync.Mutex
	seen map[string]*recorded
}

type recorded struct {
	name, namespace string
	count           int
}

// NewRecorder records events through c as component, from host ("" for
// kube-controller-manager's controllers; the node's name for a kubelet).
func NewRecorder(c *client.Client, clk clock.Clock, component, host string) *Recorder {
	return &Recorder{c: c, clock: clk, component: component, host: host, seen: map[string]*recorded{}}
}

// Ref is an object reference (an event's involvedObject) to obj, of kind in
// apiVersion, as client-go's reference.GetReference makes it.
func Ref(obj object.Object, apiVersion, kind string) map[string]any {
	ref := map[string]any{"kind": kind, "apiVersion": apiVersion, "name": object.MetaString(obj, "name"),
		"uid": object.MetaString(obj, "uid"), "resourceVersion": object.MetaString(obj, "resourceVersion")}
	if ns := object.MetaString(obj, "namespace"); ns != "" {
		ref["namespace"] = ns
	}
	return ref
}

// Eventf records an event about the object ref refers to, as client-go's
// record package (the core/v1 events API) writes it.
func (r *Recorder) Eventf(ctx context.Context, ref map[string]any, typ, reason, format string, args ...any) {
	r.record(ctx, ref, typ, reason, "", fmt.Sprintf(format, args...))
}

// Actionf records an event about the object ref refers to as client-go's
// events package (the events.k8s.io/v1 API, which kube-scheduler uses) writes
// it, seen through core/v1: with eventTime and action, no first or last
// timestamp, and a series for repeats.
func (r *Recorder) Actionf(ctx context.Context, ref map[string]any, typ, reason, action, format string, args ...any) {
	r.record(ctx, ref, typ, reason, action, fmt.Sprintf(format, args...))
}

func (r *Recorder) record(ctx context.Context, ref map[string]any, typ, reason, action, message string) {
	key := strings.Join([]string{fmt.Sprint(ref["kind"]), fmt.Sprint(ref["namespace"]), fmt.Sprint(ref["name"]),
		fmt.Sprint(ref["uid"]), fmt.Sprint(ref["fieldPath"]), typ, reason, action, message}, "\x00")
	now := r.clock.Now()
	r.mu.Lock()
	prev := r.seen[key]
	if prev != nil {
		prev.count++
	}
	r.mu.Unlock()
	if prev != nil {
		repeat := map[string]any{"count": prev.count, "lastTimestamp": registry.Timestamp(now), "message": message}
		if action != "" {
			repeat = map[string]any{"series": map[string]any{"count": prev.count, "lastObservedTime": MicroTimestamp(now)}}
		}
		patch, _ := json.Marshal(repeat)
		_, err := r.c.Do(ctx, web.MethodPatch, "/api/v1/namespaces/"+prev.namespace+"/events/"+prev.name,
			"application/strategic-merge-patch+json", patch)
		if err == nil || !client.IsNotFound(err) {
			return
		}
	}
	ns, _ := ref["namespace"].(string)
	if ns == "" {
		ns = "default"
	}
	name := fmt.Sprintf("%s.%x", ref["name"], uniqueNanos(now))
	ev := object.Object{"apiVersion": "v1", "kind": "Event",
		"metadata":       map[string]any{"name": name, "namespace": ns},
		"involvedObject": ref, "reason": reason, "message": message, "type": typ,
		"reportingComponent": r.component, "reportingInstance": r.host}
	if action == "" {
		source := map[string]any{"component": r.component}
		if r.host != "" {
			source["host"] = r.host
		}
		t := registry.Timestamp(now)
		ev["source"], ev["firstTimestamp"], ev["lastTimestamp"], ev["count"], ev["eventTime"] = source, t, t, 1, nil
	} else {
		ev["source"], ev["firstTimestamp"], ev["lastTimestamp"] = map[string]any{}, nil, nil
		ev["eventTime"], ev["action"] = MicroTimestamp(now), action
	}
	if _, err := r.c.Create(ctx, "/api/v1/namespaces/"+ns+"/events", ev); err != nil {
		return
	}
	r.mu.Lock()
	if len(r.seen) >= recorderCacheSize {
		clear(r.seen)
	}
	r.seen[key] = &recorded{name: name, namespace: ns, count: 1}
	r.mu.Unlock()
}

// lastNanos makes event names unique when the clock does not move between
// events (a fake clock): each name's time is later than the one before.
var lastNanos atomic.Int64

func uniqueNanos(t time.Time) int64 {
	for {
		last, n := lastNanos.Load(), t.UnixNano()
		if n <= last {
			n = last + 1
		}
		if lastNanos.CompareAndSwap(last, n) {
			return n
		}
	}
}

// MicroTimestamp is t as the API writes metav1.MicroTime.
func MicroTimestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00") }
