// Package serviceaccount is two of kube-controller-manager's per-namespace
// controllers as API clients of the core: the ServiceAccount controller
// (system:serviceaccount:kube-system:serviceaccount-controller) gives every
// namespace its `default` ServiceAccount, and the root CA publisher
// (...:root-ca-cert-publisher) its `kube-root-ca.crt` ConfigMap, the CA bundle
// Pods verify the API with; each comes back when deleted, and the ConfigMap
// when changed.
package serviceaccount

import (
	"context"
	"maps"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/web"
)

// rootCA is the sandbox cluster's CA certificate, as kube-root-ca.crt
// publishes it (a self-signed P-256 CA named kubernetes, made for kubeplay;
// no key signs anything with it).
const rootCA = `-----BEGIN CERTIFICATE-----
MIIBjzCCATWgAwIBAgIUBGSHTh0b/f/r/gemTWEhbrWjAKswCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKa3ViZXJuZXRlczAeFw0yNjExMjMxOTQ0MThaFw0zNjExMjAx
OTQ0MThaMBUxEzARBgNVBAMMCmt1YmVybmV0ZXMwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAS3aJEWVzQUbEVCGadw7Vq1cB3uL3LR8XFfD41ClFTlvEy8n6/oX0NW
MRmzFsQ7u9yNBgr6Fq5BO1SKNXVc5+TMo2MwYTAdBgNVHQ4EFgQUuGxJkFC+inOL
wn6+xBKYhAbBRH8wHwYDVR0jBBgwFoAUuGxJkFC+inOLwn6+xBKYhAbBRH8wDwYD
VR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAqQwCgYIKoZIzj0EAwIDSAAwRQIh
APbLNUvuZCfEUG1uCBWgNjjuvHwlrUsrGcl4AZNFxy6EAiASu2eWtLR5Tpz74H7G
7pvY57RgfWpkp/voIr+CNjAqwQ==
-----END CERTIFICATE-----
`

// caDescription is the annotation kube's publisher gives kube-root-ca.crt.
const caDescription = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."

// object is a ServiceAccount or a ConfigMap, as far as these controllers read them.
type object struct {
	controllers.Object
	Data map[string]string `json:"data,omitempty"`
}

// Controller keeps one object in every namespace that is not terminating.
type Controller struct {
	c          *client.Client
	namespaces *client.TypedInformer[*controllers.NamespaceObject]
	objects    *client.TypedInformer[*object]
	queue      *controllers.Queue
	collection string                  // the objects' collection under a namespace
	want       func(ns string) *object // the object a namespace has
}

// NewServiceAccounts is the ServiceAccount controller, acting through h.
func NewServiceAccounts(h web.Handler, clk clock.Clock) *Controller {
	return newPerNamespace(h, clk, "serviceaccount-controller", "serviceaccounts", "default", func(ns string) *object {
		o := &object{}
		o.Metadata.Name, o.Metadata.Namespace = "default", ns
		return o
	})
}

// NewRootCAPublisher is the root CA certificate publisher, acting through h.
func NewRootCAPublisher(h web.Handler, clk clock.Clock) *Controller {
	return newPerNamespace(h, clk, "root-ca-cert-publisher", "configmaps", "kube-root-ca.crt", func(ns string) *object {
		o := &object{Data: map[string]string{"ca.crt": rootCA}}
		o.Metadata.Name, o.Metadata.Namespace = "kube-root-ca.crt", ns
		o.Metadata.Annotations = map[string]string{"kubernetes.io/description": caDescription}
		return o
	})
}

func newPerNamespace(h web.Handler, clk clock.Clock, identity, collection, name string, want func(string) *object) *Controller {
	c := controllers.NewClient(h, identity)
	p := &Controller{c: c, queue: controllers.NewQueue(clk), collection: collection, want: want}
	byName := func(n *controllers.NamespaceObject) { p.queue.Add(n.Metadata.Name) }
	p.namespaces = client.NewTypedInformer(c, "/api/v1/namespaces", controllers.Codec[controllers.NamespaceObject](),
		client.TypedHandler[*controllers.NamespaceObject]{Add: byName, Update: func(_, n *controllers.NamespaceObject) { byName(n) }}, nil, clk)
	byNamespace := func(o *object) { p.queue.Add(o.Metadata.Namespace) }
	p.objects = client.NewTypedInformer(c, "/api/v1/"+collection+"?fieldSelector=metadata.name%3D"+name, controllers.Codec[object](),
		client.TypedHandler[*object]{Update: func(_, o *object) { byNamespace(o) }, Delete: byNamespace}, nil, clk)
	return p
}

// Pending is how many namespaces wait to be synced.
func (p *Controller) Pending() int { return p.queue.Pending() }

// Run works until ctx is done.
func (p *Controller) Run(ctx context.Context) {
	controllers.Run(ctx, p.queue, p.sync, p.namespaces, p.objects)
}

// sync gives namespace ns its object, or puts it back as it should be.
func (p *Controller) sync(ctx context.Context, ns string) error {
	n, ok := p.namespaces.Get(ns)
	if !ok || n.Metadata.DeletionTimestamp != "" || n.Status.Phase == "Terminating" {
		return nil
	}
	want := p.want(ns)
	path := "/api/v1/namespaces/" + ns + "/" + p.collection
	cur, ok := p.objects.Get(ns + "/" + want.Metadata.Name)
	if !ok {
		_, err := controllers.Send(ctx, p.c, web.MethodPost, path, want)
		if client.IsConflict(err) || client.IsForbidden(err) {
			return nil // there already, or the namespace is going
		}
		return err
	}
	if want.Data == nil || maps.Equal(cur.Data, want.Data) {
		return nil
	}
	_, err := controllers.Update(ctx, p.c, path+"/"+want.Metadata.Name, cur.Raw, func(o map[string]any) {
		data := map[string]any{}
		for k, v := range want.Data {
			data[k] = v
		}
		o["data"] = data
	})
	if client.IsNotFound(err) {
		return nil
	}
	return err
}
