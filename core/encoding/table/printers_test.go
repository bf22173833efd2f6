package table

// builtins are the built-in printers by group/resource, as core/kinds gives
// them to its kinds, for the tests that print by resource.
var builtins = map[string]*Printer{
	"/namespaces":                     Namespace,
	"/pods":                           Pod,
	"/configmaps":                     ConfigMap,
	"/secrets":                        Secret,
	"/services":                       Service,
	"/endpoints":                      Endpoints,
	"/nodes":                          Node,
	"/events":                         Event,
	"/serviceaccounts":                ServiceAccount,
	"apps/deployments":                Deployment,
	"apps/replicasets":                ReplicaSet,
	"apps/statefulsets":               StatefulSet,
	"apps/daemonsets":                 DaemonSet,
	"apps/controllerrevisions":        ControllerRevision,
	"batch/jobs":                      Job,
	"batch/cronjobs":                  CronJob,
	"/persistentvolumeclaims":         PersistentVolumeClaim,
	"/persistentvolumes":              PersistentVolume,
	"/resourcequotas":                 ResourceQuota,
	"storage.k8s.io/storageclasses":   StorageClass,
	"coordination.k8s.io/leases":      Lease,
	"discovery.k8s.io/endpointslices": EndpointSlice,
	"flowcontrol.apiserver.k8s.io/flowschemas":                 FlowSchema,
	"flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": PriorityLevelConfiguration,
}

// For is the printer of a built-in resource, or Default.
func For(group, resource string) *Printer {
	if p, ok := builtins[group+"/"+resource]; ok {
		return p
	}
	return Default
}
