package apiserver

import (
	"strings"
	"testing"
)

// The requests to storage.k8s.io/v1's CSI kinds (CSIDriver, CSINode,
// VolumeAttachment and its status, CSIStorageCapacity) whose answers
// kube-apiserver 1.32.13 gave are recorded in
// testdata/csi-kube-1.32.13.json (TestRecordCSIKube writes it): their
// defaults, the resourceVersion an update needs, what may not change, the
// status a VolumeAttachment starts with and its subresource, and their
// validation; and each kind's Table, in testdata/csi*-table-kube-1.32.13.json.

const (
	csiKubeFile            = "testdata/csi-kube-1.32.13.json"
	kubeCSIDrivers         = "/apis/storage.k8s.io/v1/csidrivers"
	kubeCSINodes           = "/apis/storage.k8s.io/v1/csinodes"
	kubeVolumeAttachments  = "/apis/storage.k8s.io/v1/volumeattachments"
	kubeCSIStorageCapacity = "/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities"
)

// csiTables are the Tables recorded: file, path, and the column whose
// cells differ between servers (the age, or the creation time of the
// default Table).
var csiTables = []struct {
	file, path string
	age        int
}{
	{"testdata/csidrivers-table-kube-1.32.13.json", kubeCSIDrivers + "?includeObject=None", 7},
	{"testdata/csinodes-table-kube-1.32.13.json", kubeCSINodes + "?includeObject=None", 2},
	{"testdata/volumeattachments-table-kube-1.32.13.json", kubeVolumeAttachments + "?includeObject=None", 5},
	{"testdata/csistoragecapacities-table-kube-1.32.13.json", kubeCSIStorageCapacity + "?includeObject=None", 1},
}

// longString is n bytes.
func longString(n int) string { return strings.Repeat("x", n) }

var csiCases = []kubeCase{
	kcase("csidriver defaults, update and delete",
		kpost(kubeCSIDrivers, `{"metadata":{"name":"csi.example.com"},"spec":{}}`),
		kpost(kubeCSIDrivers, `{"metadata":{"name":"full.csi.example.com"},"spec":{"attachRequired":false,"podInfoOnMount":true,"volumeLifecycleModes":["Persistent","Ephemeral"],"storageCapacity":true,"fsGroupPolicy":"File","tokenRequests":[{"audience":"vault","expirationSeconds":3600},{"audience":""}],"requiresRepublish":true,"seLinuxMount":true}}`),
		kubeStep{"GET", kubeCSIDrivers + "/full.csi.example.com", ""},
		kput(kubeCSIDrivers+"/csi.example.com", `{"metadata":{"name":"csi.example.com"},"spec":{}}`),
		kpatch(kubeCSIDrivers+"/csi.example.com", `{"metadata":{"labels":{"a":"b"}}}`),
		kpatch(kubeCSIDrivers+"/csi.example.com", `{"spec":{"podInfoOnMount":true,"fsGroupPolicy":"None"}}`),
		kpatch(kubeCSIDrivers+"/csi.example.com", `{"spec":{"attachRequired":false,"volumeLifecycleModes":["Ephemeral"]}}`),
		kpatch(kubeCSIDrivers+"/csi.example.com", `{"spec":{"tokenRequests":[{"audience":"a","expirationSeconds":60},{"audience":"a"},{"audience":"b","expirationSeconds":8589934592}]}}`),
		kpatch(kubeCSIDrivers+"/csi.example.com", `{"metadata":{"labels":{"bad key!":"x"}}}`),
		kubeStep{"DELETE", kubeCSIDrivers + "/full.csi.example.com", ""},
	),
	kcase("csidriver invalid",
		kpost(kubeCSIDrivers, `{"metadata":{"name":"Bad_Driver"},"spec":{}}`),
		kpost(kubeCSIDrivers, `{"metadata":{"name":"bad.csi.example.com"},"spec":{"fsGroupPolicy":"Sometimes","volumeLifecycleModes":["Forever","Persistent"],"tokenRequests":[{"audience":"x","expirationSeconds":599},{"audience":"x","expirationSeconds":5}]}}`),
	),
	kcase("csinode create, update and delete",
		kpost(kubeCSINodes, `{"metadata":{"name":"node-1"},"spec":{"drivers":[{"name":"csi.example.com","nodeID":"n1","topologyKeys":["topology.example.com/zone"]}]}}`),
		kubeStep{"GET", kubeCSINodes + "/node-1", ""},
		kput(kubeCSINodes+"/node-1", `{"metadata":{"name":"node-1"},"spec":{"drivers":[]}}`),
		kpatch(kubeCSINodes+"/node-1", `{"spec":{"drivers":[{"name":"csi.example.com","nodeID":"n1","topologyKeys":["topology.example.com/zone"]},{"name":"other.example.com","nodeID":"n1","allocatable":{"count":4}}]}}`),
		kpatch(kubeCSINodes+"/node-1", `{"spec":{"drivers":[{"name":"csi.example.com","nodeID":"n2","topologyKeys":["topology.example.com/zone"]}]}}`),
		kpatch(kubeCSINodes+"/node-1", `{"metadata":{"labels":{"a":"b"}}}`),
		kpatch(kubeCSINodes+"/node-1", `{"metadata":{"labels":{"bad key!":"x"}}}`),
		kubeStep{"DELETE", kubeCSINodes + "/node-1", ""},
	),
	kcase("csinode invalid",
		kpost(kubeCSINodes, `{"metadata":{"name":"Bad_Node"},"spec":{"drivers":[]}}`),
		kpost(kubeCSINodes, `{"metadata":{"name":"node-2"},"spec":{}}`),
		kpost(kubeCSINodes, `{"metadata":{"name":"node-3"},"spec":{"drivers":[{"name":"Bad_Driver!","nodeID":"","allocatable":{"count":-1},"topologyKeys":["","k","k","bad key!"]},{"name":"Bad_Driver!","nodeID":"`+longString(257)+`"},{"name":"`+longString(64)+`","nodeID":"n"}]}}`),
	),
	kcase("volumeattachment status and update",
		kpost(kubeVolumeAttachments, `{"metadata":{"name":"va1"},"spec":{"attacher":"csi.example.com","nodeName":"node-1","source":{"persistentVolumeName":"pv1"}},"status":{"attached":true}}`),
		kubeStep{"GET", kubeVolumeAttachments + "/va1", ""},
		kpatch(kubeVolumeAttachments+"/va1/status", `{"status":{"attached":true,"attachmentMetadata":{"devicePath":"/dev/sdb"},"attachError":{"time":"2026-01-02T03:04:05Z","message":"timed out"}}}`),
		kubeStep{"GET", kubeVolumeAttachments + "/va1/status", ""},
		kpatch(kubeVolumeAttachments+"/va1", `{"metadata":{"labels":{"a":"b"}},"status":{"attached":false}}`),
		kpatch(kubeVolumeAttachments+"/va1", `{"spec":{"nodeName":"node-2"}}`),
		kpatch(kubeVolumeAttachments+"/va1/status", `{"status":{"detachError":{"message":"`+longString(1025)+`"}}}`),
		kput(kubeVolumeAttachments+"/va1", `{"metadata":{"name":"va1"},"spec":{"attacher":"csi.example.com","nodeName":"node-1","source":{"persistentVolumeName":"pv1"}}}`),
		kpost(kubeVolumeAttachments, `{"metadata":{"name":"va-inline"},"spec":{"attacher":"csi.example.com","nodeName":"node-1","source":{"inlineVolumeSpec":{"accessModes":["ReadWriteOnce"],"csi":{"driver":"csi.example.com","volumeHandle":"h1"}}}}}`),
		kpatch(kubeVolumeAttachments+"/va1", `{"metadata":{"labels":{"bad key!":"x"}}}`),
		kubeStep{"DELETE", kubeVolumeAttachments + "/va1", ""},
	),
	kcase("volumeattachment invalid",
		kpost(kubeVolumeAttachments, `{"metadata":{"name":"va-empty"},"spec":{}}`),
		kpost(kubeVolumeAttachments, `{"metadata":{"name":"va-both"},"spec":{"attacher":"Bad_Attacher","nodeName":"Bad_Node","source":{"persistentVolumeName":"pv1","inlineVolumeSpec":{"accessModes":["ReadWriteOnce"]}}}}`),
		kpost(kubeVolumeAttachments, `{"metadata":{"name":"va-pv"},"spec":{"attacher":"csi.example.com","nodeName":"node-1","source":{"persistentVolumeName":""}}}`),
		kpost(kubeVolumeAttachments, `{"metadata":{"name":"va-pvname"},"spec":{"attacher":"csi.example.com","nodeName":"node-1","source":{"persistentVolumeName":"Bad_PV"}}}`),
		kpost(kubeVolumeAttachments, `{"metadata":{"name":"va-inline-bad"},"spec":{"attacher":"csi.example.com","nodeName":"node-1","source":{"inlineVolumeSpec":{"capacity":{"storage":"1Gi"},"persistentVolumeReclaimPolicy":"Delete","storageClassName":"standard","volumeMode":"Block","claimRef":{"name":"c"},"nfs":{"server":"s","path":"/p"}}}}}`),
	),
	kcase("csistoragecapacity create, update and delete",
		kpost(kubeCSIStorageCapacity, `{"metadata":{"name":"cap1"},"storageClassName":"standard","nodeTopology":{"matchLabels":{"topology.example.com/zone":"a"}},"capacity":"10Gi","maximumVolumeSize":"5Gi"}`),
		kpost(kubeCSIStorageCapacity, `{"metadata":{"name":"cap2"},"storageClassName":"standard"}`),
		kubeStep{"GET", kubeCSIStorageCapacity + "/cap1", ""},
		kput(kubeCSIStorageCapacity+"/cap2", `{"metadata":{"name":"cap2"},"storageClassName":"standard","capacity":"1Gi"}`),
		kpatch(kubeCSIStorageCapacity+"/cap1", `{"capacity":"20Gi","metadata":{"labels":{"a":"b"}}}`),
		kpatch(kubeCSIStorageCapacity+"/cap1", `{"storageClassName":"fast","nodeTopology":{"matchLabels":{"topology.example.com/zone":"b"}}}`),
		kpatch(kubeCSIStorageCapacity+"/cap1", `{"metadata":{"labels":{"bad key!":"x"}}}`),
		kubeStep{"DELETE", kubeCSIStorageCapacity + "/cap2", ""},
	),
	kcase("csistoragecapacity invalid",
		kpost(kubeCSIStorageCapacity, `{"metadata":{"name":"cap-none"}}`),
		kpost(kubeCSIStorageCapacity, `{"metadata":{"name":"cap-bad"},"storageClassName":"Bad_Class","capacity":"-1","maximumVolumeSize":"-2","nodeTopology":{"matchLabels":{"bad key!":"v"},"matchExpressions":[{"key":"k","operator":"Maybe"},{"key":"k","operator":"In"}]}}`),
	),
}

// TestRecordCSIKube writes csiKubeFile and the Tables from a real
// kube-apiserver (a fresh instance).
func TestRecordCSIKube(t *testing.T) {
	recordKube(t, csiKubeFile, "the requests of csiCases in csi_test.go", csiCases)
	for _, tb := range csiTables {
		recordKubeTable(t, tb.file, tb.path)
	}
}

// TestK8S_URI_3_CSIKindsAsKube: CSIDrivers, CSINodes, VolumeAttachments and
// CSIStorageCapacities are defaulted, stored, updated and refused as kube
// does them, and printed in kube's columns (ages aside).
func TestK8S_URI_3_CSIKindsAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	replayKube(t, s, csiKubeFile, csiCases)
	for _, tb := range csiTables {
		compareKubeTable(t, s, tb.file, tb.path, tb.age)
	}
}
