package sim

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// The storage of a kind cluster: its default StorageClass "standard", the
// local-path provisioner behind it (rancher.io/local-path: a hostPath volume
// on the node the claim's first Pod runs on), kube's PersistentVolume
// controller (the binder) and its protection controllers. A claim of a
// WaitForFirstConsumer class waits for a scheduled Pod; then it is marked
// for its class's provisioner, which makes a volume pvc-UID of the size it
// asks for; the binder binds the two (the volume Pending, Available, then
// Bound; the claim Bound, with kube's annotations); a claim of no class, or
// of a class without a provisioner, gets an Available volume that fits.
// Deleting a claim no scheduled Pod uses releases its volume, which a Delete
// reclaim policy deletes. (The selected-node annotation, kube-scheduler's
// part, is written by the binder.)

const (
	localPath    = "rancher.io/local-path"
	selectedNode = "volume.kubernetes.io/selected-node"
	provisioner  = "volume.kubernetes.io/storage-provisioner"
	betaClass    = "volume.beta.kubernetes.io/storage-class"
	// The protection finalizers kube's admission adds.
	claimProtection  = "kubernetes.io/pvc-protection"
	volumeProtection = "kubernetes.io/pv-protection"
	// provisionerIdentity is the local-path provisioner's name in its events
	// (its provisioner name, Pod and instance).
	provisionerIdentity = localPath + "_local-path-provisioner-7dbc8b8d8c-kp2sm_3f6c1a52-8e0d-4b7a-9c41-6d2e5b0f7a18"
)

// standardClass is kind's default StorageClass, as kind applies it.
const standardClass = `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":"true"},"name":"standard"},` +
	`"provisioner":"rancher.io/local-path","reclaimPolicy":"Delete","volumeBindingMode":"WaitForFirstConsumer"}`

// createStandardClass creates kind's default StorageClass unless it exists,
// as kind's `kubectl apply` as kubernetes-admin creates it.
func createStandardClass(ctx context.Context, h web.Handler) error {
	c := client.New(h, user.User{Name: "kubernetes-admin", Groups: []string{"kubeadm:cluster-admins", user.AllAuthenticated}},
		"kubectl/v1.32.2 (linux/amd64) kubernetes/67a30c0")
	class, _ := object.Decode([]byte(standardClass))
	object.Meta(class)["annotations"].(map[string]any)["kubectl.kubernetes.io/last-applied-configuration"] = standardClass + "\n"
	_, err := c.Create(ctx, "/apis/storage.k8s.io/v1/storageclasses?fieldManager=kubectl-client-side-apply", class)
	if client.IsConflict(err) {
		return nil
	}
	return err
}

type (
	claim = controllers.PersistentVolumeClaim

	// volume is the part of a PersistentVolume the storage controllers read.
	volume struct {
		controllers.Object
		Spec struct {
			AccessModes   []string          `json:"accessModes,omitempty"`
			Capacity      map[string]string `json:"capacity,omitempty"`
			ClaimRef      *volumeClaimRef   `json:"claimRef,omitempty"`
			ReclaimPolicy string            `json:"persistentVolumeReclaimPolicy,omitempty"`
			ClassName     string            `json:"storageClassName,omitempty"`
			VolumeMode    string            `json:"volumeMode,omitempty"`
		} `json:"spec"`
		Status struct {
			Phase string `json:"phase,omitempty"`
		} `json:"status"`
	}

	volumeClaimRef struct {
		Namespace string `json:"namespace,omitempty"`
		Name      string `json:"name,omitempty"`
		UID       string `json:"uid,omitempty"`
	}

	// storageClass is the part of a StorageClass the binder reads.
	storageClass struct {
		controllers.Object
		Provisioner       string `json:"provisioner"`
		ReclaimPolicy     string `json:"reclaimPolicy,omitempty"`
		VolumeBindingMode string `json:"volumeBindingMode,omitempty"`
	}
)

// volumes are the storage controllers, one queue of claim and volume keys
// ("claim/NS/NAME", "volume/NAME") over shared informers, each writing as
// its own identity.
type volumes struct {
	binder, local, claimGuard, volumeGuard *client.Client
	events, localEvents                    *controllers.Recorder
	queue                                  *controllers.Queue
	pods                                   *client.TypedInformer[*pod]
	claims                                 *client.TypedInformer[*claim]
	volumes                                *client.TypedInformer[*volume]
	classes                                *client.TypedInformer[*storageClass]
	// wrote is the resourceVersion of the binder's last write to a volume.
	// kube's controller keeps its own writes in its cache; this one matches
	// claims only once its informer has brought them, so that a volume it
	// has just made Available is a candidate as soon as it is one.
	wrote atomic.Int64
}

// errVolumesBehind: the volume informer has not yet brought the binder's
// own last write; the claim is synced again a moment later.
var errVolumesBehind = errors.New("the volume informer has not seen the binder's last write yet")

func newVolumes(h web.Handler, clk clock.Clock) *volumes {
	base := controllers.NewBase(h, clk, "persistent-volume-binder", "persistentvolume-controller")
	local := client.New(h, user.ServiceAccount("local-path-storage", "local-path-provisioner-service-account"), "local-path-provisioner/v0.0.31 (linux/amd64) kubernetes/$Format")
	v := &volumes{binder: base.C, local: local, events: base.Events, queue: base.Queue,
		claimGuard:  controllers.NewClient(h, "pvc-protection-controller"),
		volumeGuard: controllers.NewClient(h, "pv-protection-controller"),
		localEvents: controllers.NewRecorder(local, clk, provisionerIdentity, "")}
	claimKey := func(c *claim) { v.queue.Add("claim/" + c.Metadata.Key()) }
	volumeKey := func(pv *volume) { v.queue.Add("volume/" + pv.Metadata.Name) }
	claimsOf := func(p *pod) {
		for _, key := range podClaims(p) {
			v.queue.Add("claim/" + key)
		}
	}
	v.pods = client.NewTypedInformer(base.C, "/api/v1/pods", controllers.Codec[pod](), controllers.OnChange(claimsOf),
		map[string]func(*pod) []string{"claim": podClaims}, clk)
	v.claims = client.NewTypedInformer(base.C, "/api/v1/persistentvolumeclaims", controllers.Codec[claim](),
		client.TypedHandler[*claim]{Add: claimKey, Update: func(_, c *claim) { claimKey(c) }, Delete: func(c *claim) {
			if c.Spec.VolumeName != "" {
				v.queue.Add("volume/" + c.Spec.VolumeName)
			}
		}}, nil, clk)
	v.volumes = client.NewTypedInformer(base.C, "/api/v1/persistentvolumes", controllers.Codec[volume](),
		client.TypedHandler[*volume]{Add: volumeKey, Update: func(_, pv *volume) { volumeKey(pv) }},
		map[string]func(*volume) []string{"claim": func(pv *volume) []string {
			if ref := pv.Spec.ClaimRef; ref != nil {
				return []string{ref.Namespace + "/" + ref.Name}
			}
			return nil
		}}, clk)
	v.classes = client.NewTypedInformer(base.C, "/apis/storage.k8s.io/v1/storageclasses", controllers.Codec[storageClass](),
		client.TypedHandler[*storageClass]{Add: func(*storageClass) {
			for _, c := range v.claims.List() {
				if c.Spec.VolumeName == "" {
					claimKey(c)
				}
			}
		}}, nil, clk)
	return v
}

// podClaims are the keys of the claims a Pod's volumes name.
func podClaims(p *pod) []string {
	var out []string
	for _, vol := range p.Spec.Volumes {
		if vol.PersistentVolumeClaim != nil {
			out = append(out, p.Metadata.Namespace+"/"+vol.PersistentVolumeClaim.ClaimName)
		}
	}
	return out
}

// Pending is how many keys wait to be synced.
func (v *volumes) Pending() int { return v.queue.Pending() }

// Run works until ctx is done.
func (v *volumes) Run(ctx context.Context) {
	controllers.Run(ctx, v.queue, v.sync, v.pods, v.claims, v.volumes, v.classes)
}

func (v *volumes) sync(ctx context.Context, key string) error {
	kind, key, _ := strings.Cut(key, "/")
	var err error
	if kind == "volume" {
		err = v.syncVolume(ctx, key)
	} else {
		err = v.syncClaim(ctx, key)
	}
	if client.IsNotFound(err) {
		return nil // gone meanwhile
	}
	return err // a conflict: again, from what the informers bring
}

// user is the node of a scheduled Pod using the claim key ("" if none), and
// the names of the Pods using it that wait to be scheduled.
func (v *volumes) user(key string) (node string, waiting []string) {
	for _, p := range v.pods.ByIndex("claim", key) {
		if p.Spec.NodeName != "" {
			return p.Spec.NodeName, nil
		}
		waiting = append(waiting, p.Metadata.Name)
	}
	slices.Sort(waiting)
	return "", waiting
}

func claimPath(c *claim) string {
	return "/api/v1/namespaces/" + c.Metadata.Namespace + "/persistentvolumeclaims/" + c.Metadata.Name
}

func volumePath(name string) string { return "/api/v1/persistentvolumes/" + name }

func claimRef(c *claim) controllers.Reference {
	return controllers.Ref(&c.Metadata, "v1", "PersistentVolumeClaim")
}

// syncClaim is the claim's protection, binding or provisioning.
func (v *volumes) syncClaim(ctx context.Context, key string) error {
	c, ok := v.claims.Get(key)
	switch {
	case !ok:
		return nil
	case c.Metadata.DeletionTimestamp != "":
		// kube's pvc-protection controller: a claim goes once no scheduled
		// Pod uses it.
		if node, _ := v.user(key); node != "" || !slices.Contains(c.Metadata.Finalizers, claimProtection) {
			return nil
		}
		_, err := controllers.Update(ctx, v.claimGuard, claimPath(c), c.Raw, func(o object.Object) {
			object.Meta(o)["finalizers"] = without(c.Metadata.Finalizers, claimProtection)
		})
		return err
	case c.Spec.VolumeName != "":
		if pv, ok := v.volumes.Get(c.Spec.VolumeName); ok && c.Status.Phase != "Bound" {
			return v.bind(ctx, c, pv)
		}
		return nil
	}
	class := claimClass(c)
	if c.Spec.StorageClassName == nil && class == "" {
		// kube's retroactive default class: a claim made before there was one.
		if def := v.defaultClass(); def != "" {
			_, err := controllers.Update(ctx, v.binder, claimPath(c), c.Raw, func(o object.Object) {
				object.Child(o, "spec")["storageClassName"] = def
			})
			return err
		}
	}
	if rv := v.wrote.Load(); rv > 0 && !v.volumes.Seen(strconv.FormatInt(rv, 10)) {
		return errVolumesBehind
	}
	if pv := v.match(c, class); pv != nil {
		return v.bind(ctx, c, pv)
	}
	sc, found := v.classes.Get(class)
	if found && sc.VolumeBindingMode == "WaitForFirstConsumer" && c.Metadata.Annotations[selectedNode] == "" {
		node, waiting := v.user(key)
		switch {
		case node != "":
			// kube-scheduler's part: the node the claim's first Pod runs on.
			_, err := controllers.Update(ctx, v.binder, claimPath(c), c.Raw, func(o object.Object) {
				object.Child(object.Meta(o), "annotations")[selectedNode] = node
			})
			return err
		case len(waiting) == 1:
			v.events.Eventf(ctx, claimRef(c), controllers.Normal, "WaitForPodScheduled", "waiting for pod %s to be scheduled", waiting[0])
		case len(waiting) > 1:
			v.events.Eventf(ctx, claimRef(c), controllers.Normal, "WaitForPodScheduled", "waiting for pods %s to be scheduled", strings.Join(waiting, ","))
		default:
			v.events.Eventf(ctx, claimRef(c), controllers.Normal, "WaitForFirstConsumer", "waiting for first consumer to be created before binding")
		}
		return nil
	}
	switch {
	case class == "":
		v.events.Eventf(ctx, claimRef(c), controllers.Normal, "FailedBinding", "no persistent volumes available for this claim and no storage class is set")
	case !found:
		v.events.Eventf(ctx, claimRef(c), controllers.Warning, "ProvisioningFailed", "storageclass.storage.k8s.io %q not found", class)
	case c.Metadata.Annotations[provisioner] != sc.Provisioner:
		stored, err := controllers.Update(ctx, v.binder, claimPath(c), c.Raw, func(o object.Object) {
			annotations := object.Child(object.Meta(o), "annotations")
			annotations["volume.beta.kubernetes.io/storage-provisioner"], annotations[provisioner] = sc.Provisioner, sc.Provisioner
		})
		if err == nil {
			ref := claimRef(c)
			ref.ResourceVersion = object.MetaString(stored, "resourceVersion")
			v.events.Eventf(ctx, ref, controllers.Normal, "ExternalProvisioning", "Waiting for a volume to be created either by the external provisioner '%s' "+
				"or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.", sc.Provisioner)
		}
		return err
	case sc.Provisioner == localPath:
		return v.provision(ctx, c, sc)
	}
	return nil
}

// claimClass is a claim's class: the beta annotation's, else its spec's.
func claimClass(c *claim) string {
	if class, ok := c.Metadata.Annotations[betaClass]; ok {
		return class
	}
	if c.Spec.StorageClassName != nil {
		return *c.Spec.StorageClassName
	}
	return ""
}

// defaultClass is the default StorageClass, the newest when several are.
func (v *volumes) defaultClass() string {
	var best *storageClass
	for _, sc := range v.classes.List() {
		a := sc.Metadata.Annotations
		if a["storageclass.kubernetes.io/is-default-class"] != "true" && a["storageclass.beta.kubernetes.io/is-default-class"] != "true" {
			continue
		}
		if best == nil || sc.Metadata.CreationTimestamp > best.Metadata.CreationTimestamp ||
			sc.Metadata.CreationTimestamp == best.Metadata.CreationTimestamp && sc.Metadata.Name < best.Metadata.Name {
			best = sc
		}
	}
	if best == nil {
		return ""
	}
	return best.Metadata.Name
}

// match is the volume for claim c: one bound to it already, else the
// smallest free one of its class that has its access modes, volume mode and
// size.
func (v *volumes) match(c *claim, class string) *volume {
	var best *volume
	for _, pv := range v.volumes.ByIndex("claim", c.Metadata.Key()) {
		if pv.Spec.ClaimRef.UID == "" || pv.Spec.ClaimRef.UID == c.Metadata.UID {
			return pv
		}
	}
	want := c.Spec.Resources.Requests["storage"]
	for _, pv := range v.volumes.List() {
		if pv.Spec.ClaimRef != nil || pv.Status.Phase != "Available" || pv.Metadata.DeletionTimestamp != "" ||
			pv.Spec.ClassName != class || pv.Spec.VolumeMode != c.Spec.VolumeMode ||
			quantity.Compare(pv.Spec.Capacity["storage"], want) < 0 {
			continue
		}
		if slices.ContainsFunc(c.Spec.AccessModes, func(m string) bool { return !slices.Contains(pv.Spec.AccessModes, m) }) {
			continue
		}
		if best == nil || quantity.Compare(pv.Spec.Capacity["storage"], best.Spec.Capacity["storage"]) < 0 {
			best = pv
		}
	}
	return best
}

// provision is the local-path provisioner's: a hostPath volume on the
// selected node, bound in advance to the claim.
func (v *volumes) provision(ctx context.Context, c *claim, sc *storageClass) error {
	name := "pvc-" + c.Metadata.UID
	if _, ok := v.volumes.Get(name); ok {
		return nil
	}
	node := c.Metadata.Annotations[selectedNode]
	v.localEvents.Eventf(ctx, claimRef(c), controllers.Normal, "Provisioning", "External provisioner is provisioning volume for claim %q", c.Metadata.Key())
	modes := make([]any, len(c.Spec.AccessModes))
	for i, m := range c.Spec.AccessModes {
		modes[i] = m
	}
	pv := object.Object{"apiVersion": "v1", "kind": "PersistentVolume",
		"metadata": map[string]any{"name": name, "annotations": map[string]any{
			"local.path.provisioner/selected-node": node, "pv.kubernetes.io/provisioned-by": localPath}},
		"spec": map[string]any{
			"accessModes": modes,
			"capacity":    map[string]any{"storage": c.Spec.Resources.Requests["storage"]},
			"claimRef": map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": c.Metadata.Namespace,
				"name": c.Metadata.Name, "uid": c.Metadata.UID, "resourceVersion": c.Metadata.ResourceVersion},
			"hostPath": map[string]any{"path": "/var/local-path-provisioner/" + name + "_" + c.Metadata.Namespace + "_" + c.Metadata.Name, "type": "DirectoryOrCreate"},
			"nodeAffinity": map[string]any{"required": map[string]any{"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{
				map[string]any{"key": "kubernetes.io/hostname", "operator": "In", "values": []any{node}}}}}}},
			"persistentVolumeReclaimPolicy": sc.ReclaimPolicy,
			"storageClassName":              claimClass(c),
			"volumeMode":                    "Filesystem",
		}}
	if _, err := v.local.Create(ctx, "/api/v1/persistentvolumes", pv); client.IsConflict(err) {
		return nil // made by an earlier sync, not seen yet
	} else if err != nil {
		v.localEvents.Eventf(ctx, claimRef(c), controllers.Warning, "ProvisioningFailed", "failed to provision volume with StorageClass %q: %s", sc.Metadata.Name, controllers.Message(err))
		return err
	}
	v.localEvents.Eventf(ctx, claimRef(c), controllers.Normal, "ProvisioningSucceeded", "Successfully provisioned volume %s", name)
	return nil
}

// bind binds claim c and volume pv as kube's binder does: the volume's claim
// reference (for a volume that had none) and phase Bound, then the claim's
// volume, annotations and status.
func (v *volumes) bind(ctx context.Context, c *claim, pv *volume) error {
	if ref := pv.Spec.ClaimRef; ref == nil || ref.UID == "" {
		obj, err := controllers.Update(ctx, v.binder, volumePath(pv.Metadata.Name), pv.Raw, func(o object.Object) {
			object.Child(o, "spec")["claimRef"] = map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": c.Metadata.Namespace,
				"name": c.Metadata.Name, "uid": c.Metadata.UID, "resourceVersion": c.Metadata.ResourceVersion}
			object.Child(object.Meta(o), "annotations")["pv.kubernetes.io/bound-by-controller"] = "yes"
		})
		v.wroteVolume(obj)
		return err // the volume's sync brings the claim back
	}
	if pv.Status.Phase != "Bound" {
		if err := v.setPhase(ctx, pv, "Bound"); err != nil {
			return err
		}
	}
	stored := c.Raw
	if c.Spec.VolumeName == "" || c.Metadata.Annotations["pv.kubernetes.io/bind-completed"] != "yes" {
		obj, err := controllers.Update(ctx, v.binder, claimPath(c), c.Raw, func(o object.Object) {
			annotations := object.Child(object.Meta(o), "annotations")
			if c.Spec.VolumeName == "" {
				object.Child(o, "spec")["volumeName"] = pv.Metadata.Name
				annotations["pv.kubernetes.io/bound-by-controller"] = "yes"
			}
			annotations["pv.kubernetes.io/bind-completed"] = "yes"
		})
		if err != nil {
			return err
		}
		if stored, err = object.Encode(obj); err != nil {
			return err
		}
	}
	modes := make([]any, len(pv.Spec.AccessModes))
	for i, m := range pv.Spec.AccessModes {
		modes[i] = m
	}
	capacity := map[string]any{}
	for k, q := range pv.Spec.Capacity {
		capacity[k] = q
	}
	_, err := controllers.Update(ctx, v.binder, claimPath(c)+"/status", stored, func(o object.Object) {
		status := object.Child(o, "status")
		status["phase"], status["accessModes"], status["capacity"] = "Bound", modes, capacity
	})
	return err
}

// setPhase writes a volume's phase.
func (v *volumes) setPhase(ctx context.Context, pv *volume, phase string) error {
	obj, err := controllers.Update(ctx, v.binder, volumePath(pv.Metadata.Name)+"/status", pv.Raw, func(o object.Object) {
		object.Child(o, "status")["phase"] = phase
	})
	v.wroteVolume(obj)
	return err
}

// wroteVolume records obj, a volume the binder wrote (nil: no write), as its
// last (the binder's one worker writes in order, so the last is the newest).
func (v *volumes) wroteVolume(obj object.Object) {
	if n, err := strconv.ParseInt(object.MetaString(obj, "resourceVersion"), 10, 64); err == nil {
		v.wrote.Store(n)
	}
}

// syncVolume is the volume's protection, phase and reclaiming.
func (v *volumes) syncVolume(ctx context.Context, name string) error {
	pv, ok := v.volumes.Get(name)
	switch {
	case !ok:
		return nil
	case pv.Metadata.DeletionTimestamp != "":
		// kube's pv-protection controller: a volume goes once it is not Bound.
		if pv.Status.Phase == "Bound" || !slices.Contains(pv.Metadata.Finalizers, volumeProtection) {
			return nil
		}
		_, err := controllers.Update(ctx, v.volumeGuard, volumePath(name), pv.Raw, func(o object.Object) {
			object.Meta(o)["finalizers"] = without(pv.Metadata.Finalizers, volumeProtection)
		})
		return err
	case pv.Spec.ClaimRef == nil:
		if pv.Status.Phase != "Available" {
			return v.setPhase(ctx, pv, "Available")
		}
		return nil
	}
	ref := pv.Spec.ClaimRef
	if c, ok := v.claims.Get(ref.Namespace + "/" + ref.Name); ok && (ref.UID == "" || ref.UID == c.Metadata.UID) {
		if c.Status.Phase != "Bound" {
			v.queue.Add("claim/" + c.Metadata.Key()) // the claim's sync finishes the binding
		}
		switch {
		case c.Spec.VolumeName == name && pv.Status.Phase != "Bound":
			return v.setPhase(ctx, pv, "Bound")
		case c.Spec.VolumeName == "" && pv.Status.Phase == "Pending":
			return v.setPhase(ctx, pv, "Available") // bound in advance to a claim not bound yet
		}
		return nil
	}
	// The claim is gone: the volume is released, and deleted by its
	// provisioner when its policy says so.
	if pv.Status.Phase != "Released" && pv.Status.Phase != "Failed" {
		return v.setPhase(ctx, pv, "Released")
	}
	if pv.Spec.ReclaimPolicy == "Delete" && pv.Metadata.Annotations["pv.kubernetes.io/provisioned-by"] == localPath {
		_, err := v.local.Delete(ctx, volumePath(name))
		return err
	}
	return nil
}

// without is list without s.
func without(list []string, s string) []any {
	out := []any{}
	for _, e := range list {
		if e != s {
			out = append(out, e)
		}
	}
	return out
}
