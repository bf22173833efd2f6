package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"kubeplay/core/object"
	"sync"
	"sync/atomic"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
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
// merge patch instead of adding another. As client-go's EventAggregator,
// once an object has had events of 10 messages with the same type and
// reason within 10 minutes (a Deployment's ScalingReplicaSet, rollout after
// rollout), each new message goes to one event, "(combined from similar
// events): " and the latest message, counted up.
type Recorder struct {
	c         *client.Client
	clock     clock.Clock
	component string // source.component and reportingComponent
	host      string // source.host and reportingInstance

	mu      sync.Mutex
	seen    map[Reference]map[string]*recorded // by object, then type, reason, action and message
	similar map[Reference]map[string]*similar  // by object, then type and reason
	size    int
}

// similar is what the aggregation knows of an object's events of one type
// and reason: their messages, and when the last came.
type similar struct {
	messages map[string]bool
	last     time.Time
}

// Client-go's aggregation: its threshold of messages, in its interval.
const (
	aggregateMessages = 10
	aggregateInterval = 10 * time.Minute
)

type recorded struct {
	name, namespace string
	count           int
}

// NewRecorder records events through c as component, from host ("" for
// kube-controller-manager's controllers; the node's name for a kubelet).
func NewRecorder(c *client.Client, clk clock.Clock, component, host string) *Recorder {
	return &Recorder{c: c, clock: clk, component: component, host: host,
		seen: map[Reference]map[string]*recorded{}, similar: map[Reference]map[string]*similar{}}
}

// Reference is an object reference: an event's involvedObject.
type Reference struct {
	Kind            string `json:"kind"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name"`
	UID             string `json:"uid"`
	APIVersion      string `json:"apiVersion"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	FieldPath       string `json:"fieldPath,omitempty"`
}

// Ref is a reference to the object with metadata m, of kind in apiVersion, as
// client-go's reference.GetReference makes it.
func Ref(m *ObjectMeta, apiVersion, kind string) Reference {
	return Reference{Kind: kind, Namespace: m.Namespace, Name: m.Name, UID: m.UID, APIVersion: apiVersion, ResourceVersion: m.ResourceVersion}
}

// event is a core/v1 Event as the recorders write it.
type event struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	InvolvedObject     Reference         `json:"involvedObject"`
	Reason             string            `json:"reason"`
	Message            string            `json:"message"`
	Source             map[string]string `json:"source"`
	FirstTimestamp     *string           `json:"firstTimestamp"`
	LastTimestamp      *string           `json:"lastTimestamp"`
	Count              int               `json:"count,omitempty"`
	Type               string            `json:"type"`
	EventTime          *string           `json:"eventTime"`
	Action             string            `json:"action,omitempty"`
	ReportingComponent string            `json:"reportingComponent"`
	ReportingInstance  string            `json:"reportingInstance"`
}

// Eventf records an event about the object ref refers to, as client-go's
// record package (the core/v1 events API) writes it.
func (r *Recorder) Eventf(ctx context.Context, ref Reference, typ, reason, format string, args ...any) {
	r.record(ctx, r.Stamp(), ref, typ, reason, "", fmt.Sprintf(format, args...))
}

// Actionf records an event about the object ref refers to as client-go's
// events package (the events.k8s.io/v1 API, which kube-scheduler uses) writes
// it, seen through core/v1: with eventTime and action, no first or last
// timestamp, and a series for repeats.
func (r *Recorder) Actionf(ctx context.Context, ref Reference, typ, reason, action, format string, args ...any) {
	r.record(ctx, r.Stamp(), ref, typ, reason, action, fmt.Sprintf(format, args...))
}

// Stamp is the moment an event is dated, and its place among the events:
// taken when what it reports was decided, before that is written, it keeps
// the event ahead of those its write leads others to record (a Pod's
// Scheduled before its kubelet's Pulling, on a clock that stands still).
type Stamp struct {
	at    time.Time
	nanos int64
}

// Stamp is now, as an event's date.
func (r *Recorder) Stamp() Stamp {
	now := r.clock.Now()
	return Stamp{now, uniqueNanos(now)}
}

// ActionfAt is Actionf dated at.
func (r *Recorder) ActionfAt(ctx context.Context, at Stamp, ref Reference, typ, reason, action, format string, args ...any) {
	r.record(ctx, at, ref, typ, reason, action, fmt.Sprintf(format, args...))
}

func (r *Recorder) record(ctx context.Context, at Stamp, ref Reference, typ, reason, action, message string) {
	key := typ + "\x00" + reason + "\x00" + action + "\x00" + message
	obj := ref
	obj.ResourceVersion = ""
	now := at.at
	reporting, instance := r.component, r.host
	r.mu.Lock()
	if action == "" && r.aggregate(obj, typ, reason, message, now) {
		key = typ + "\x00" + reason + "\x00aggregate"
		message = "(combined from similar events): " + message
		reporting, instance = "", "" // client-go's aggregate event leaves them out
	}
	prev := r.seen[obj][key]
	if prev != nil {
		prev.count++
	}
	r.mu.Unlock()
	if prev != nil {
		var repeat any = map[string]any{"count": prev.count, "lastTimestamp": object.Timestamp(now), "message": message}
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
	ev := event{APIVersion: "v1", Kind: "Event", InvolvedObject: ref, Reason: reason, Message: message, Type: typ,
		ReportingComponent: reporting, ReportingInstance: instance, Source: map[string]string{}}
	ev.Metadata.Namespace = ref.Namespace
	if ev.Metadata.Namespace == "" {
		ev.Metadata.Namespace = "default"
	}
	ev.Metadata.Name = fmt.Sprintf("%s.%x", ref.Name, at.nanos)
	if action == "" {
		ev.Source["component"] = r.component
		if r.host != "" {
			ev.Source["host"] = r.host
		}
		t := object.Timestamp(now)
		ev.FirstTimestamp, ev.LastTimestamp, ev.Count = &t, &t, 1
	} else {
		t := MicroTimestamp(now)
		ev.EventTime, ev.Action = &t, action
	}
	body, _ := json.Marshal(ev)
	if _, err := r.c.Do(ctx, web.MethodPost, "/api/v1/namespaces/"+ev.Metadata.Namespace+"/events", "application/json", body); err != nil {
		return
	}
	r.mu.Lock()
	if r.size >= recorderCacheSize {
		clear(r.seen)
		clear(r.similar)
		r.size = 0
	}
	if r.seen[obj] == nil {
		r.seen[obj] = map[string]*recorded{}
	}
	r.seen[obj][key] = &recorded{name: ev.Metadata.Name, namespace: ev.Metadata.Namespace, count: 1}
	r.size++
	r.mu.Unlock()
}

// aggregate notes an event's message among its similar ones and says
// whether it goes to their aggregate event: once there are 10 messages
// (EventAggregate, one of them then forgotten). Called with mu held.
func (r *Recorder) aggregate(obj Reference, typ, reason, message string, now time.Time) bool {
	if r.similar[obj] == nil {
		r.similar[obj] = map[string]*similar{}
	}
	key := typ + "\x00" + reason
	s := r.similar[obj][key]
	if s == nil || now.Sub(s.last) > aggregateInterval {
		s = &similar{messages: map[string]bool{}}
		r.similar[obj][key] = s
	}
	s.messages[message], s.last = true, now
	if len(s.messages) < aggregateMessages {
		return false
	}
	for m := range s.messages {
		delete(s.messages, m)
		break
	}
	return true
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
