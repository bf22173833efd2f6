package kinds

import (
	"strings"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// csiDriver is storage.k8s.io/v1 CSIDriver, cluster-scoped: what a CSI
// volume driver needs of Kubernetes. An update must name the
// resourceVersion it replaces; the generation, absent on a new driver,
// counts the changes of its spec (kube's strategy sets none on create); a
// delete answers with the driver.
func csiDriver() *api.Resource {
	return &api.Resource{
		Group: "storage.k8s.io", Version: "v1", Kind: "CSIDriver", Plural: "csidrivers", Singular: "csidriver",
		Verbs: allVerbs, UpdateNeedsVersion: true, ReturnDeleted: true,
		// SetDefaults_CSIDriver, with SELinuxMountReadWriteOncePod on.
		Defaults: func(m map[string]any) {
			spec := object.Child(m, "spec")
			defaults.SetUnset(spec, "attachRequired", true)
			defaults.SetUnset(spec, "podInfoOnMount", false)
			defaults.SetUnset(spec, "storageCapacity", false)
			defaults.SetUnset(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType")
			if modes, _ := spec["volumeLifecycleModes"].([]any); len(modes) == 0 {
				spec["volumeLifecycleModes"] = []any{"Persistent"}
			}
			defaults.SetUnset(spec, "requiresRepublish", false)
			defaults.SetUnset(spec, "seLinuxMount", false)
		},
		Hooks: api.Hooks{
			PrepareForUpdate: func(u api.Update) object.Object {
				out := u.Generic()
				if !object.Equal(out["spec"], u.Old["spec"]) {
					object.Meta(out)["generation"] = object.Int(object.Meta(u.Old)["generation"]) + 1
				}
				return out
			},
			Validate:            validation.CSIDriver,
			ValidateUpdate:      anySubresource(validation.CSIDriverUpdate),
			LabelChecksOnUpdate: 3,
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "AttachRequired", Type: "boolean", Description: descCSIDriverAttachRequired},
			{Name: "PodInfoOnMount", Type: "boolean", Description: descCSIDriverPodInfoOnMount},
			{Name: "StorageCapacity", Type: "boolean", Description: descCSIDriverStorageCapacity},
			{Name: "TokenRequests", Type: "string", Description: descCSIDriverTokenRequests},
			{Name: "RequiresRepublish", Type: "boolean", Description: descCSIDriverRequiresRepublish},
			{Name: "Modes", Type: "string", Description: descCSIDriverModes},
			table.AgeColumn,
		}, csiDriverCells),
	}
}

// csiDriverCells is printCSIDriver: the booleans as they are set (kube's
// defaults where they are not), the token audiences (<unset> without
// any), the lifecycle modes (<none> without any).
func csiDriverCells(d object.Object, now time.Time) []any {
	spec, _ := d["spec"].(map[string]any)
	flag := func(key string, unset bool) bool {
		if b, ok := spec[key].(bool); ok {
			return b
		}
		return unset
	}
	tokens := "<unset>"
	if _, ok := spec["tokenRequests"].([]any); ok {
		var audiences []string
		for _, t := range object.Objects(spec, "tokenRequests") {
			a, _ := t["audience"].(string)
			audiences = append(audiences, a)
		}
		tokens = strings.Join(audiences, ",")
	}
	modes := strings.Join(object.Strings(spec, "volumeLifecycleModes"), ",")
	if modes == "" {
		modes = "<none>"
	}
	return []any{table.Name(d), flag("attachRequired", true), flag("podInfoOnMount", false), flag("storageCapacity", false),
		tokens, flag("requiresRepublish", false), modes, table.Age(d, now)}
}

// The descriptions of CSIDriver's columns, its fields' in k8s.io/api.
const (
	descCSIDriverAttachRequired    = "attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates the volumeattachment status when the attach operation is complete. If the CSIDriverRegistry feature gate is enabled and the value is specified to false, the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable."
	descCSIDriverPodInfoOnMount    = "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information passed in as VolumeContext.\n\nThe following VolumeContext will be passed if podInfoOnMount is set to true. This list might grow, but the prefix will be used. \"csi.storage.k8s.io/pod.name\": pod.Name \"csi.storage.k8s.io/pod.namespace\": pod.Namespace \"csi.storage.k8s.io/pod.uid\": string(pod.UID) \"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an ephemeral inline volume\n                                defined by a CSIVolumeSource, otherwise \"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a new feature in Kubernetes 1.16. It is only required for drivers which support both the \"Persistent\" and \"Ephemeral\" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn't support this field, drivers can only support one mode when deployed on such a cluster and the deployment determines which mode that is, for example via a command line parameter of the driver.\n\nThis field was immutable in Kubernetes < 1.29 and now is mutable."
	descCSIDriverStorageCapacity   = "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.\n\nThe check can be enabled immediately when deploying a driver. In that case, provisioning new volumes with late binding will pause until the driver deployment has published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field unset or false and it can be flipped later when storage capacity information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable."
	descCSIDriverTokenRequests     = "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: \"csi.storage.k8s.io/serviceAccount.tokens\": {\n  \"<audience>\": {\n    \"token\": <token>,\n    \"expirationTimestamp\": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each TokenRequest should be different and at most one token is empty string. To receive a new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically."
	descCSIDriverRequiresRepublish = "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update the contents of the volume. New mount points will not be seen by a running container."
	descCSIDriverModes             = "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the list is empty is \"Persistent\", which is the usage defined by the CSI specification and implemented in Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is \"Ephemeral\". In this mode, volumes are defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of that pod. A driver has to be aware of this because it is only going to get a NodePublishVolume call for such a volume.\n\nFor more information about implementing this mode, see https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more of these modes and more modes may be added in the future.\n\nThis field is beta. This field is immutable."
)
