package admission

// This file holds kube-apiserver's admission plugins that judge a
// write by objects of other kinds and may complete it, each over what it is
// given to read; core/registry runs them in kube's order.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
)

// What kube's ServiceAccount admission names.
const (
	// DefaultServiceAccount is the account of a Pod that names none.
	DefaultServiceAccount = "default"
	// TokenVolumePrefix is the generated name of the token's volume, before
	// its five random characters.
	TokenVolumePrefix = "kube-api-access-"
	// TokenMountPath is where every container finds the token.
	TokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// MirrorPodAnnotation marks a kubelet's mirror of a static Pod.
	MirrorPodAnnotation = "kubernetes.io/config.mirror"
	// enforceMountableSecrets, "true" on an account, limits its Pods to
	// the Secrets it lists.
	enforceMountableSecrets = "kubernetes.io/enforce-mountable-secrets"
	// tokenExpirationSeconds is the projected token's lifetime: an hour
	// and kube's seven seconds that mark it as one admission made
	// (serviceaccount.WarnOnlyBoundTokenExpirationSeconds).
	tokenExpirationSeconds = 3607
	// projectedDefaultMode is 0644.
	projectedDefaultMode = 420
)

// ServiceAccount is kube's ServiceAccount admission plugin (with its
// defaults: tokens mounted, Secrets limited only where an account asks):
// a new Pod runs as the account it names or as `default`, which must
// exist; unless the Pod or its account opts out, every container and init
// container mounts a projected volume of the account's token, the cluster's
// CA (the kube-root-ca.crt ConfigMap) and the Pod's namespace; a Pod
// without image pull secrets takes its account's. A mirror Pod names no
// account, references no Secret and projects no token.
type ServiceAccount struct {
	// Account reads the ServiceAccount name of namespace, waiting up to
	// patience for it to appear (nil when it does not).
	Account func(namespace, name string, patience time.Duration) (object.Object, error)
	// GenerateName completes a prefix with kube's five random characters.
	GenerateName func(prefix string) string
}

// Admit is the plugin's mutating half, for a Pod created in namespace
// (name is what kube's refusal names: its name or generateName); it ends
// with the validating half, as kube's does.
func (p ServiceAccount) Admit(namespace, name string, pod object.Object) error {
	if isMirror(pod) {
		return p.Validate(namespace, name, pod)
	}
	spec := object.Child(pod, "spec")
	if object.String(spec["serviceAccountName"]) == "" {
		spec["serviceAccountName"], spec["serviceAccount"] = DefaultServiceAccount, DefaultServiceAccount // the deprecated name mirrors it
	}
	account := spec["serviceAccountName"].(string)
	sa, err := p.lookup(namespace, name, account)
	if err != nil {
		return err
	}
	if automount(sa, spec) {
		p.mountToken(spec)
	}
	if pulls := object.Objects(spec, "imagePullSecrets"); len(pulls) == 0 {
		var copied []any
		for _, s := range object.Objects(sa, "imagePullSecrets") {
			copied = append(copied, map[string]any{"name": object.String(s["name"])})
		}
		if copied != nil {
			spec["imagePullSecrets"] = copied
		}
	}
	return p.Validate(namespace, name, pod)
}

// Validate is the plugin's validating half, for a Pod created in namespace.
func (p ServiceAccount) Validate(namespace, name string, pod object.Object) error {
	spec, _ := pod["spec"].(map[string]any)
	account := object.String(spec["serviceAccountName"])
	if isMirror(pod) {
		switch {
		case account != "":
			return forbidden(name, "a mirror pod may not reference service accounts")
		case len(secretNames(spec)) > 0:
			return forbidden(name, "a mirror pod may not reference secrets")
		}
		for _, v := range object.Objects(spec, "volumes") {
			projected, _ := v["projected"].(map[string]any)
			for _, src := range object.Objects(projected, "sources") {
				if src["serviceAccountToken"] != nil {
					return forbidden(name, "a mirror pod may not use ServiceAccountToken volume projections")
				}
			}
		}
		return nil
	}
	if account == "" {
		return forbidden(name, fmt.Sprintf("no service account specified for pod %s/%s", namespace, object.MetaString(pod, "name")))
	}
	sa, err := p.lookup(namespace, name, account)
	if err != nil {
		return err
	}
	annotations, _ := object.Path(sa, "metadata", "annotations").(map[string]any)
	if enforce, _ := strconv.ParseBool(object.String(annotations[enforceMountableSecrets])); enforce {
		if why := limitSecrets(sa, spec); why != "" {
			return forbidden(name, why)
		}
	}
	return nil
}

// lookup reads the account; kube's informer may lag a new namespace's
// `default`, which it asks for ten times, 100 to 200 ms apart.
func (p ServiceAccount) lookup(namespace, name, account string) (object.Object, error) {
	var patience time.Duration
	if account == DefaultServiceAccount {
		patience = 9 * (100*time.Millisecond + time.Duration(rand.Int64N(int64(100*time.Millisecond))))
	}
	sa, err := p.Account(namespace, account, patience)
	switch {
	case err != nil:
		return nil, err
	case sa == nil:
		return nil, forbidden(name, fmt.Sprintf("error looking up service account %s/%s: serviceaccount %q not found", namespace, account, account))
	}
	return sa, nil
}

func forbidden(name, why string) error { return apierrors.NewForbidden("", "pods", name, why) }

func isMirror(pod object.Object) bool {
	annotations, _ := object.Path(pod, "metadata", "annotations").(map[string]any)
	_, ok := annotations[MirrorPodAnnotation]
	return ok
}

// automount says whether the Pod mounts its account's token: as the Pod
// says, else as the account says, else it does.
func automount(sa object.Object, spec map[string]any) bool {
	for _, v := range []any{spec["automountServiceAccountToken"], sa["automountServiceAccountToken"]} {
		if b, ok := v.(bool); ok {
			return b
		}
	}
	return true
}

// mountToken mounts the token's volume (the Pod's own kube-api-access-…
// volume if it has one) in every init container and container that mounts
// nothing at its path, adding the volume when one does and the Pod has none.
func (p ServiceAccount) mountToken(spec map[string]any) {
	volume := ""
	for _, v := range object.Objects(spec, "volumes") {
		if n := object.String(v["name"]); strings.HasPrefix(n, TokenVolumePrefix) {
			volume = n
			break
		}
	}
	had := volume != ""
	if !had {
		volume = p.GenerateName(TokenVolumePrefix)
	}
	needed := false
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range object.Objects(spec, list) {
			mounted := false
			for _, m := range object.Objects(c, "volumeMounts") {
				mounted = mounted || object.String(m["mountPath"]) == TokenMountPath
			}
			if !mounted {
				mounts, _ := c["volumeMounts"].([]any)
				c["volumeMounts"] = append(mounts, map[string]any{"name": volume, "readOnly": true, "mountPath": TokenMountPath})
				needed = true
			}
		}
	}
	if had || !needed {
		return
	}
	volumes, _ := spec["volumes"].([]any)
	spec["volumes"] = append(volumes, map[string]any{"name": volume, "projected": map[string]any{
		"sources": []any{
			map[string]any{"serviceAccountToken": map[string]any{"expirationSeconds": json.Number(strconv.Itoa(tokenExpirationSeconds)), "path": "token"}},
			map[string]any{"configMap": map[string]any{"name": "kube-root-ca.crt", "items": []any{map[string]any{"key": "ca.crt", "path": "ca.crt"}}}},
			map[string]any{"downwardAPI": map[string]any{"items": []any{map[string]any{"path": "namespace",
				"fieldRef": map[string]any{"apiVersion": "v1", "fieldPath": "metadata.namespace"}}}}},
		},
		"defaultMode": json.Number(strconv.Itoa(projectedDefaultMode)),
	}})
}

// secretNames are the Secrets a Pod references, in kube's order
// (podutil.VisitPodSecretNames): image pull secrets, the containers' (init,
// regular, ephemeral) environment, the volumes.
func secretNames(spec map[string]any) []string {
	var names []string
	add := func(v any) {
		if s := object.String(v); s != "" {
			names = append(names, s)
		}
	}
	for _, s := range object.Objects(spec, "imagePullSecrets") {
		add(s["name"])
	}
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, c := range object.Objects(spec, list) {
			for _, e := range object.Objects(c, "envFrom") {
				add(object.Path(e, "secretRef", "name"))
			}
			for _, e := range object.Objects(c, "env") {
				add(object.Path(e, "valueFrom", "secretKeyRef", "name"))
			}
		}
	}
	for _, v := range object.Objects(spec, "volumes") {
		for _, ref := range [][]string{{"azureFile", "secretName"}, {"cephfs", "secretRef", "name"}, {"cinder", "secretRef", "name"},
			{"flexVolume", "secretRef", "name"}, {"rbd", "secretRef", "name"}, {"secret", "secretName"}, {"scaleIO", "secretRef", "name"},
			{"iscsi", "secretRef", "name"}, {"storageos", "secretRef", "name"}, {"csi", "nodePublishSecretRef", "name"}} {
			add(object.Path(v, ref...))
		}
		projected, _ := v["projected"].(map[string]any)
		for _, src := range object.Objects(projected, "sources") {
			add(object.Path(src, "secret", "name"))
		}
	}
	return names
}

// limitSecrets is why a Pod may not reference a Secret its account does not
// list ("" when it may): its secret volumes, its containers' environment
// (init containers first), its image pull secrets.
func limitSecrets(sa object.Object, spec map[string]any) string {
	listed := func(field string) map[string]bool {
		m := map[string]bool{}
		for _, s := range object.Objects(sa, field) {
			m[object.String(s["name"])] = true
		}
		return m
	}
	mountable, account := listed("secrets"), object.MetaString(sa, "name")
	for _, v := range object.Objects(spec, "volumes") {
		if secret, ok := v["secret"].(map[string]any); ok && !mountable[object.String(secret["secretName"])] {
			return fmt.Sprintf("volume with secret.secretName=%q is not allowed because service account %s does not reference that secret", object.String(secret["secretName"]), account)
		}
	}
	for _, list := range []struct{ field, what string }{{"initContainers", "init container"}, {"containers", "container"}} {
		for _, c := range object.Objects(spec, list.field) {
			for _, e := range object.Objects(c, "env") {
				if ref := object.String(object.Path(e, "valueFrom", "secretKeyRef", "name")); object.Path(e, "valueFrom", "secretKeyRef") != nil && !mountable[ref] {
					return fmt.Sprintf("%s %s with envVar %s referencing secret.secretName=%q is not allowed because service account %s does not reference that secret",
						list.what, object.String(c["name"]), object.String(e["name"]), ref, account)
				}
			}
			for _, e := range object.Objects(c, "envFrom") {
				if ref := object.String(object.Path(e, "secretRef", "name")); object.Path(e, "secretRef") != nil && !mountable[ref] {
					return fmt.Sprintf("%s %s with envFrom referencing secret.secretName=%q is not allowed because service account %s does not reference that secret",
						list.what, object.String(c["name"]), ref, account)
				}
			}
		}
	}
	pulls := listed("imagePullSecrets")
	for i, s := range object.Objects(spec, "imagePullSecrets") {
		if n := object.String(s["name"]); !pulls[n] {
			return fmt.Sprintf("imagePullSecrets[%d].name=%q is not allowed because service account %s does not reference that imagePullSecret", i, n, account)
		}
	}
	return ""
}
