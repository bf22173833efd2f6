package e2e

import (
	"strings"
	"testing"
)

// TestK8S_ENC_5_KubectlCSIKinds: kubectl 1.32 creates storage.k8s.io/v1's CSI
// kinds, prints them in kube's columns (CSIStorageCapacity in the default
// Table's, as kube registers no printer for it), writes a
// VolumeAttachment's status through its subresource, and is refused a
// change of its spec with kube's words.
func TestK8S_ENC_5_KubectlCSIKinds(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	k.must("create", "-f", k.file("csi.yaml", `apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: hostpath.csi.k8s.io}
spec: {podInfoOnMount: true, volumeLifecycleModes: [Persistent, Ephemeral], tokenRequests: [{audience: vault}]}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-1}
spec:
  drivers: [{name: hostpath.csi.k8s.io, nodeID: node-1, topologyKeys: [topology.hostpath.csi/node]}]
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va1}
spec: {attacher: hostpath.csi.k8s.io, nodeName: node-1, source: {persistentVolumeName: pv1}}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap1}
storageClassName: standard
capacity: 10Gi
`))
	wantRows(t, "get csidrivers", kcTable(k.must("get", "csidrivers")), [][]string{
		{"NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY", "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES", "AGE"},
		{`hostpath\.csi\.k8s\.io`, "true", "true", "false", "vault", "false", "Persistent,Ephemeral", `\d+s`},
	})
	wantRows(t, "get csinodes", kcTable(k.must("get", "csinodes")), [][]string{
		{"NAME", "DRIVERS", "AGE"},
		{"node-1", "1", `\d+s`},
	})
	k.must("patch", "volumeattachment", "va1", "--subresource=status", "--type=merge", "-p", `{"status":{"attached":true}}`)
	wantRows(t, "get volumeattachments", kcTable(k.must("get", "volumeattachments")), [][]string{
		{"NAME", "ATTACHER", "PV", "NODE", "ATTACHED", "AGE"},
		{"va1", `hostpath\.csi\.k8s\.io`, "pv1", "node-1", "true", `\d+s`},
	})
	wantRows(t, "get csistoragecapacities", kcTable(k.must("get", "csistoragecapacities")), [][]string{
		{"NAME", "CREATED", "AT"},
		{"cap1", `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`},
	})
	if out := k.fails("patch", "volumeattachment", "va1", "--type=merge", "-p", `{"spec":{"nodeName":"node-2"}}`); !strings.Contains(out, `The VolumeAttachment "va1" is invalid: spec: Invalid value:`) || !strings.Contains(out, "field is immutable") {
		t.Errorf("patch of the spec: %s", out)
	}
}
