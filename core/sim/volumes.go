package sim

import (
	"context"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// provisioner is the volume side of a kind cluster (its local-path
// provisioner, a WaitForFirstConsumer storage class, and kube's
// persistent volume binder) reduced to what a claim shows: when a Pod that
// uses a Pending PersistentVolumeClaim is scheduled, the claim is Bound to a
// volume named after it (pvc-UID) of the size it asks for, on that node.
// (The sandbox serves no PersistentVolumes or StorageClasses.)
type provisioner struct {
	c      *client.Client
	pods   *client.TypedInformer[*pod]
	claims *client.TypedInformer[*controllers.PersistentVolumeClaim]
	queue  *controllers.Queue
}

func newProvisioner(h web.Handler, clk clock.Clock) *provisioner {
	c := controllers.NewClient(h, "persistent-volume-binder")
	pv := &provisioner{c: c, queue: controllers.NewQueue(clk)}
	claimsOf := func(p *pod) {
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && p.Spec.NodeName != "" {
				pv.queue.Add(p.Metadata.Namespace + "/" + v.PersistentVolumeClaim.ClaimName)
			}
		}
	}
	pv.pods = client.NewTypedInformer(c, "/api/v1/pods", controllers.Codec[pod](),
		client.TypedHandler[*pod]{Add: claimsOf, Update: func(_, p *pod) { claimsOf(p) }},
		map[string]func(*pod) []string{"claim": func(p *pod) []string {
			var out []string
			for _, v := range p.Spec.Volumes {
				if v.PersistentVolumeClaim != nil && p.Spec.NodeName != "" {
					out = append(out, p.Metadata.Namespace+"/"+v.PersistentVolumeClaim.ClaimName)
				}
			}
			return out
		}}, clk)
	pv.claims = client.NewTypedInformer(c, "/api/v1/persistentvolumeclaims", controllers.Codec[controllers.PersistentVolumeClaim](),
		client.TypedHandler[*controllers.PersistentVolumeClaim]{Add: func(cl *controllers.PersistentVolumeClaim) { pv.queue.Add(cl.Metadata.Key()) }}, nil, clk)
	return pv
}

// Pending is how many claims wait to be bound.
func (pv *provisioner) Pending() int { return pv.queue.Pending() }

// Run works until ctx is done.
func (pv *provisioner) Run(ctx context.Context) {
	controllers.Run(ctx, pv.queue, pv.bind, pv.pods, pv.claims)
}

// bind binds the claim key if a scheduled Pod uses it.
func (pv *provisioner) bind(ctx context.Context, key string) error {
	claim, ok := pv.claims.Get(key)
	users := pv.pods.ByIndex("claim", key)
	if !ok || claim.Spec.VolumeName != "" || claim.Metadata.DeletionTimestamp != "" || len(users) == 0 {
		return nil
	}
	path := "/api/v1/namespaces/" + claim.Metadata.Namespace + "/persistentvolumeclaims/" + claim.Metadata.Name
	stored, err := controllers.Update(ctx, pv.c, path, claim.Raw, func(o object.Object) {
		meta := object.Meta(o)
		annotations, _ := meta["annotations"].(map[string]any)
		if annotations == nil {
			annotations = map[string]any{}
			meta["annotations"] = annotations
		}
		for k, v := range map[string]any{"pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes",
			"volume.beta.kubernetes.io/storage-provisioner": "rancher.io/local-path", "volume.kubernetes.io/storage-provisioner": "rancher.io/local-path",
			"volume.kubernetes.io/selected-node": users[0].Spec.NodeName} {
			annotations[k] = v
		}
		o["spec"].(map[string]any)["volumeName"] = "pvc-" + claim.Metadata.UID
	})
	if err != nil {
		if client.IsNotFound(err) {
			return nil
		}
		return err // a conflict: again, from what the informer brings
	}
	capacity := map[string]any{}
	for k, v := range claim.Spec.Resources.Requests {
		capacity[k] = v
	}
	modes := make([]any, len(claim.Spec.AccessModes))
	for i, m := range claim.Spec.AccessModes {
		modes[i] = m
	}
	stored["status"] = map[string]any{"phase": "Bound", "accessModes": modes, "capacity": capacity}
	if _, err = pv.c.Update(ctx, path+"/status", stored); client.IsNotFound(err) {
		return nil
	}
	return err
}
