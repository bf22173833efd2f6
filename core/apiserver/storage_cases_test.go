package apiserver

import "testing"

// storageKubeFile holds kube-apiserver's answers to storageCases.
const storageKubeFile = "testdata/storage-kube-1.32.13.json"

const (
	kubePVs    = "/api/v1/persistentvolumes"
	kubeSCs    = "/apis/storage.k8s.io/v1/storageclasses"
	kubeClaims = "/api/v1/namespaces/default/persistentvolumeclaims"
)

// kpv is a PersistentVolume named name with spec members spec.
func kpv(name, spec string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{` + spec + `}}`
}

// kclaim is a PersistentVolumeClaim of 1Gi named name, with more metadata
// and spec members.
func kclaim(name, meta, spec string) string {
	if meta != "" {
		meta = "," + meta
	}
	if spec != "" {
		spec = "," + spec
	}
	return `{"metadata":{"name":"` + name + `"` + meta + `},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}` + spec + `}}`
}

const kubeHostPathPV = `"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/data/a"}`

// storageCases: PersistentVolumes and StorageClasses served as kube serves
// them (defaults, status, what admission adds to them and to claims,
// deletion), their validation and their field selectors.
var storageCases = []kubeCase{
	kcase("K8S-URI-3 a PersistentVolume: defaults, status, protection",
		kpost(kubePVs, `{"metadata":{"name":"pv-a"},"spec":{`+kubeHostPathPV+`},"status":{"phase":"Bound"}}`),
		kget(kubePVs+"/pv-a"),
		kget(kubePVs),
		kput(kubePVs+"/pv-a", `{"metadata":{"name":"pv-a","labels":{"tier":"fast"},"finalizers":["kubernetes.io/pv-protection"]},"spec":{`+kubeHostPathPV+`,"persistentVolumeReclaimPolicy":"Delete"},"status":{"phase":"Failed"}}`),
		kpatch(kubePVs+"/pv-a", `{"spec":{"storageClassName":"manual","volumeAttributesClassName":"gold"},"status":{"phase":"Failed"}}`),
		kpatch(kubePVs+"/pv-a/status", `{"status":{"phase":"Available"}}`),
		kpatch(kubePVs+"/pv-a/status", `{"status":{"message":"ready"},"spec":{"persistentVolumeReclaimPolicy":"Retain"}}`),
		kget(kubePVs+"/pv-a/status"),
		kdelete(kubePVs+"/pv-a", ""),
		kget(kubePVs+"/pv-a"),
		kpatch(kubePVs+"/pv-a", `{"metadata":{"finalizers":null}}`),
		kget(kubePVs+"/pv-a"),
	),
	kcase("K8S-URI-3 a StorageClass's defaults, and the default class of new claims",
		kpost(kubeSCs, `{"metadata":{"name":"slow"},"provisioner":"example.com/slow"}`),
		kpost(kubeClaims, kclaim("c-none", "", "")),
		kpost(kubeSCs, `{"metadata":{"name":"standard","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"rancher.io/local-path","reclaimPolicy":"Delete","volumeBindingMode":"WaitForFirstConsumer"}`),
		kpost(kubeClaims, kclaim("c-default", "", "")),
		kpost(kubeClaims, kclaim("c-empty", "", `"storageClassName":""`)),
		kpost(kubeClaims, kclaim("c-beta", `"annotations":{"volume.beta.kubernetes.io/storage-class":"slow"}`, "")),
		kpost(kubeClaims, kclaim("c-named", "", `"storageClassName":"slow"`)),
		kpost(kubeSCs, `{"metadata":{"name":"fast","annotations":{"storageclass.beta.kubernetes.io/is-default-class":"true"}},"provisioner":"example.com/fast","allowVolumeExpansion":true,"parameters":{"type":"ssd"}}`),
		kpost(kubeClaims, kclaim("c-newest", "", "")),
		kget(kubeSCs),
		kpatch(kubeSCs+"/standard", `{"metadata":{"labels":{"tier":"local"}},"allowVolumeExpansion":true,"mountOptions":["ro"]}`),
		kput(kubeSCs+"/slow", `{"metadata":{"name":"slow"},"provisioner":"example.com/other","reclaimPolicy":"Delete","volumeBindingMode":"Immediate"}`),
		kpatch(kubeSCs+"/fast", `{"reclaimPolicy":"Retain","volumeBindingMode":"WaitForFirstConsumer","parameters":{"type":"hdd"}}`),
		kdelete(kubeSCs+"/slow", ""),
		kdelete(kubeSCs+"/fast", ""),
		kdelete(kubeClaims+"/c-none", ""),
		kget(kubeClaims+"/c-none"),
	),
	kcase("K8S-WRITE-5 a PersistentVolume's validation",
		kpost(kubePVs, kpv("bad-1", "")),
		kpost(kubePVs, kpv("bad-2", `"capacity":{"storage":"0"},"accessModes":["ReadWriteOncePod","ReadWriteOnce","Sometimes"],"persistentVolumeReclaimPolicy":"Keep","volumeMode":"Raw",`+
			`"hostPath":{"path":"/a/../b","type":"Weird"},"nfs":{"server":"n","path":"/x"},"storageClassName":"Bad_Class"`)),
		kpost(kubePVs, kpv("bad-3", `"capacity":{"storage":"-1Gi"},"accessModes":["ReadWriteOnce"],"local":{"path":"/mnt/../x"}`)),
		kpost(kubePVs, kpv("bad-4", `"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteMany"],"csi":{"driver":""},`+
			`"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In"},{"key":"bad key","operator":"Exists","values":["x"]},{"key":"k","operator":"Near"},{"key":"n","operator":"Gt","values":["1","2"]}]}]}}`)),
		kpost(kubePVs, kpv("bad-5", `"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"nfs":{"server":"","path":"relative"},"nodeAffinity":{}`)),
		kpost(kubePVs, kpv("bad-6", `"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/"},"persistentVolumeReclaimPolicy":"Recycle","nodeAffinity":{"required":{"nodeSelectorTerms":[]}}`)),
		kpost(kubePVs, kpv("pv-v", kubeHostPathPV)),
		kpatch(kubePVs+"/pv-v", `{"spec":{"volumeMode":"Block"}}`),
		kpatch(kubePVs+"/pv-v", `{"spec":{"accessModes":["Sometimes"]}}`),
		kpatch(kubePVs+"/pv-v", `{"metadata":{"labels":{"bad key":"x"}}}`),
		kpatch(kubePVs+"/pv-v", `{"spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["n"]}]}]}}}}`),
	),
	kcase("K8S-WRITE-5 a StorageClass's validation",
		kpost(kubeSCs, `{"metadata":{"name":"bad-sc"}}`),
		kpost(kubeSCs, `{"metadata":{"name":"bad-sc"},"provisioner":"Not A/Name!","reclaimPolicy":"Recycle","volumeBindingMode":"Later","parameters":{"":"x"}}`),
		kpatch(kubeSCs+"/standard", `{"metadata":{"labels":{"bad key":"x"}}}`),
	),
	kcase("K8S-WATCH-6 field selectors of PersistentVolumes and StorageClasses",
		kget(kubePVs+"?fieldSelector=metadata.name%3Dpv-v"),
		kget(kubePVs+"?fieldSelector=name%3Dpv-v"),
		kget(kubePVs+"?fieldSelector=status.phase%3DPending"),
		kget(kubeSCs+"?fieldSelector=metadata.name%3Dstandard"),
		kget(kubeSCs+"?fieldSelector=provisioner%3Drancher.io%2Flocal-path"),
	),
}

// TestRecordStorageKube writes storageKubeFile from a real kube-apiserver (a
// fresh instance, as for TestRecordBuiltinsKube).
func TestRecordStorageKube(t *testing.T) {
	recordKube(t, storageKubeFile, "the requests of storageCases in storage_cases_test.go", storageCases)
}

// TestK8S_URI_3_StorageAsKube: PersistentVolumes, StorageClasses and what
// kube's admission does for claims answer as kube's: defaults, status,
// finalizers, default class, deletion, validation and field selectors.
func TestK8S_URI_3_StorageAsKube(t *testing.T) {
	replayKube(t, newTestServer(t, testConfig{}), storageKubeFile, storageCases)
}
