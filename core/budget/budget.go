// Package budget owns what one sandbox may hold and open, so that no sandbox
// can starve the others on a host: its limits (objects and bytes stored, Pods,
// watches, xDS streams and the resource names one xDS subscription may name),
// their defaults per host, and the answer past one, which is kube's answer for
// an exceeded ResourceQuota (403 Forbidden, "exceeded quota"), naming the
// sandbox's budget as the quota. The store (core/storage), the registry's
// admission, the watch handler and the discovery service enforce them; it is
// a leaf, which servers and clients alike may import.
package budget

import (
	"errors"
	"strconv"

	"kubeplay/core/apierrors"
)

// Limits are one sandbox's budget; 0 leaves a limit unbounded.
type Limits struct {
	// Objects and Bytes bound what the store holds (current objects, not
	// history, which has its own bounds).
	Objects int64
	Bytes   int64
	// Pods bounds the Pods that exist at once, however they came: a
	// Deployment of 100,000 replicas gets this many.
	Pods int64
	// Watches bounds the watches open at once (the sandbox's own
	// controllers' included).
	Watches int64
	// XDSStreams bounds the xDS streams open at once, over every transport;
	// XDSNames the resource names one subscription may name.
	XDSStreams int64
	XDSNames   int64
}

// Defaults per host. Natively one process serves the sandbox with the memory
// of the machine; the browser's service worker and an edge Durable Object
// (128 MB per isolate) hold far less. A stored Pod of a simulated cluster
// costs about 100 KB of memory once its Events, history and the components'
// caches are counted; an xDS stream about 8 KiB (and 20 KiB more in gRPC's
// transport natively), a name one subscribes to about 90 bytes, and a few
// times that while the request naming it is decoded.
var (
	Native  = Limits{Objects: 100_000, Bytes: 512 << 20, Pods: 2_000, Watches: 2_000, XDSStreams: 256, XDSNames: 4096}
	Browser = Limits{Objects: 20_000, Bytes: 64 << 20, Pods: 500, Watches: 500, XDSStreams: 64, XDSNames: 1024}
	Edge    = Limits{Objects: 20_000, Bytes: 32 << 20, Pods: 300, Watches: 250, XDSStreams: 64, XDSNames: 1024}
)

// Quota is the name the answers give the sandbox's budget, where kube's name
// the ResourceQuota that was exceeded.
const Quota = "kubeplay-sandbox"

// The resource names of the limits in those answers: kube's own for Pods,
// extended resource names for the rest.
const (
	ResourceObjects    = "kubeplay.dev/objects"
	ResourceBytes      = "kubeplay.dev/bytes"
	ResourcePods       = "pods"
	ResourceWatches    = "kubeplay.dev/watches"
	ResourceXDSStreams = "kubeplay.dev/xds-streams"
	ResourceXDSNames   = "kubeplay.dev/xds-names"
)

// Exceeded is the answer to a request that would take the sandbox past a
// limit: what kube's ResourceQuota admission answers, 403 Forbidden with
// "exceeded quota: Q, requested: R=n, used: R=n, limited: R=n", about the
// object named name of resource (qualified by group).
func Exceeded(group, resource, name, limit string, requested, used, limited int64) *apierrors.Status {
	return apierrors.NewForbidden(group, resource, name, Message(limit, requested, used, limited))
}

// Message is the reason Exceeded gives, in kube's words.
func Message(limit string, requested, used, limited int64) string {
	one := func(n int64) string { return limit + "=" + strconv.FormatInt(n, 10) }
	return apierrors.ExceededQuota(Quota, one(requested), one(used), one(limited))
}

// boundResources name in answers the bounds a refusal reports (the store's:
// objects, bytes, watchers).
var boundResources = map[string]string{
	"objects":  ResourceObjects,
	"bytes":    ResourceBytes,
	"watchers": ResourceWatches,
}

// Refusal is an error that says which bound a request would have passed:
// the store's (core/storage's BudgetError).
type Refusal interface {
	error
	Refused() (bound string, requested, used, limit int64)
}

// FromRefusal is the answer to a write or a watch of resource (qualified by
// group; the object named name, or "" for a collection) that was refused as
// over a bound; nil when err is no such refusal.
func FromRefusal(group, resource, name string, err error) *apierrors.Status {
	var r Refusal
	if !errors.As(err, &r) {
		return nil
	}
	bound, requested, used, limit := r.Refused()
	return Exceeded(group, resource, name, boundResources[bound], requested, used, limit)
}
