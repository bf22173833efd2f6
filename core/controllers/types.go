package controllers

import (
	"encoding/json"

	"kubeplay/core/client"
)

// The kube API types the controllers, the scheduler and the kubelets read, as
// Go structs: only the fields they use, with kube's JSON names. An object
// keeps the JSON it was read from (Raw), so a write of the whole object
// changes only what the writer set (Edit). Structs rather than maps keep the
// controllers' code small, which the WebAssembly build pays for.

// Object is what every typed object starts with: its metadata, and the JSON
// it was read from.
type Object struct {
	Metadata ObjectMeta `json:"metadata"`
	Raw      []byte     `json:"-"`
}

func (o *Object) object() *Object { return o }

// ObjectMeta is the part of metav1.ObjectMeta the controllers read.
type ObjectMeta struct {
	Name              string            `json:"name,omitempty"`
	GenerateName      string            `json:"generateName,omitempty"`
	Namespace         string            `json:"namespace,omitempty"`
	UID               string            `json:"uid,omitempty"`
	ResourceVersion   string            `json:"resourceVersion,omitempty"`
	Generation        int64             `json:"generation,omitempty"`
	CreationTimestamp string            `json:"creationTimestamp,omitempty"`
	DeletionTimestamp string            `json:"deletionTimestamp,omitempty"`
	DeletionGrace     *int64            `json:"deletionGracePeriodSeconds,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	OwnerReferences   []OwnerReference  `json:"ownerReferences,omitempty"`
	Finalizers        []string          `json:"finalizers,omitempty"`
}

// Key is the object's informer key: namespace/name, or name.
func (m *ObjectMeta) Key() string {
	if m.Namespace != "" {
		return m.Namespace + "/" + m.Name
	}
	return m.Name
}

// Controller is the uid of the object's controller (the ownerReference with
// controller: true), or "".
func (m *ObjectMeta) Controller() string {
	for _, ref := range m.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			return ref.UID
		}
	}
	return ""
}

// OwnerReference is metav1.OwnerReference.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// LabelSelector is metav1.LabelSelector.
type LabelSelector struct {
	MatchLabels      map[string]string `json:"matchLabels,omitempty"`
	MatchExpressions []Requirement     `json:"matchExpressions,omitempty"`
}

// Requirement is a label selector requirement (and a node selector's).
type Requirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// Condition is the conditions of every kind: each kind's own fields among
// these (a Pod's lastProbeTime, a Deployment's lastUpdateTime).
type Condition struct {
	Type               string          `json:"type"`
	Status             string          `json:"status"`
	LastProbeTime      json.RawMessage `json:"lastProbeTime,omitempty"`
	LastUpdateTime     string          `json:"lastUpdateTime,omitempty"`
	LastTransitionTime string          `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// Null is a JSON null: a Pod condition's lastProbeTime.
var Null = json.RawMessage("null")

// FindCondition is the condition of type typ, or nil.
func FindCondition(conditions []Condition, typ string) *Condition {
	for i := range conditions {
		if conditions[i].Type == typ {
			return &conditions[i]
		}
	}
	return nil
}

// NamespaceObject is core/v1 Namespace (Namespace is the namespace controller).
type NamespaceObject struct {
	Object
	Status struct {
		Phase string `json:"phase,omitempty"`
	} `json:"status"`
}

// Pod is core/v1 Pod.
type Pod struct {
	Object
	Spec   PodSpec   `json:"spec"`
	Status PodStatus `json:"status"`
}

// PodSpec is the part of a Pod's spec the simulation reads.
type PodSpec struct {
	NodeName       string            `json:"nodeName,omitempty"`
	SchedulerName  string            `json:"schedulerName,omitempty"`
	RestartPolicy  string            `json:"restartPolicy,omitempty"`
	HostNetwork    bool              `json:"hostNetwork,omitempty"`
	NodeSelector   map[string]string `json:"nodeSelector,omitempty"`
	Tolerations    []Toleration      `json:"tolerations,omitempty"`
	Affinity       *Affinity         `json:"affinity,omitempty"`
	Containers     []Container       `json:"containers"`
	InitContainers []Container       `json:"initContainers,omitempty"`
	// EphemeralContainers are kubectl debug's, added to a running Pod.
	EphemeralContainers []EphemeralContainer `json:"ephemeralContainers,omitempty"`
	Overhead            map[string]string    `json:"overhead,omitempty"`
	Hostname            string               `json:"hostname,omitempty"`
	Subdomain           string               `json:"subdomain,omitempty"`
	Volumes             []struct {
		Name                  string `json:"name"`
		PersistentVolumeClaim *struct {
			ClaimName string `json:"claimName"`
		} `json:"persistentVolumeClaim,omitempty"`
		HostPath *struct {
			Path string `json:"path"`
		} `json:"hostPath,omitempty"`
	} `json:"volumes,omitempty"`
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	Priority              *int64 `json:"priority,omitempty"`
	PreemptionPolicy      string `json:"preemptionPolicy,omitempty"`
}

// Toleration is core/v1 Toleration.
type Toleration struct {
	Key      string `json:"key,omitempty"`
	Operator string `json:"operator,omitempty"`
	Value    string `json:"value,omitempty"`
	Effect   string `json:"effect,omitempty"`
	// TolerationSeconds: how long a Pod tolerates a NoExecute taint (nil: forever).
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// Affinity is the node affinity a scheduler honours.
type Affinity struct {
	NodeAffinity *struct {
		Required *struct {
			Terms []struct {
				MatchExpressions []Requirement `json:"matchExpressions"`
				MatchFields      []Requirement `json:"matchFields"`
			} `json:"nodeSelectorTerms"`
		} `json:"requiredDuringSchedulingIgnoredDuringExecution"`
	} `json:"nodeAffinity"`
}

// Container is the part of a container the simulation reads.
type Container struct {
	Name            string   `json:"name"`
	Image           string   `json:"image,omitempty"`
	ImagePullPolicy string   `json:"imagePullPolicy,omitempty"`
	Command         []string `json:"command,omitempty"`
	Args            []string `json:"args,omitempty"`
	Resources       struct {
		Requests map[string]string `json:"requests,omitempty"`
		Limits   map[string]string `json:"limits,omitempty"`
	} `json:"resources"`
	ReadinessProbe *struct {
		InitialDelaySeconds int64 `json:"initialDelaySeconds,omitempty"`
	} `json:"readinessProbe,omitempty"`
	Ports        []ContainerPort `json:"ports,omitempty"`
	Env          []EnvVar        `json:"env,omitempty"`
	VolumeMounts []struct {
		Name        string `json:"name"`
		MountPath   string `json:"mountPath"`
		SubPathExpr string `json:"subPathExpr,omitempty"`
	} `json:"volumeMounts,omitempty"`
	// Stdin: the container's standard input stays open (kubectl run -i,
	// kubectl debug -i), so a shell waits on it.
	Stdin bool `json:"stdin,omitempty"`
}

// EphemeralContainer is core/v1 EphemeralContainer: a container, and the
// one whose namespaces it shares.
type EphemeralContainer struct {
	Container
	TargetContainerName string `json:"targetContainerName,omitempty"`
}

// EnvVar is core/v1 EnvVar: a value, or one of the Pod's fields.
type EnvVar struct {
	Name      string `json:"name"`
	Value     string `json:"value,omitempty"`
	ValueFrom *struct {
		FieldRef *struct {
			FieldPath string `json:"fieldPath"`
		} `json:"fieldRef,omitempty"`
	} `json:"valueFrom,omitempty"`
}

// ContainerPort is core/v1 ContainerPort.
type ContainerPort struct {
	Name          string `json:"name,omitempty"`
	HostPort      int64  `json:"hostPort,omitempty"`
	ContainerPort int64  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
	HostIP        string `json:"hostIP,omitempty"`
}

// PodStatus is core/v1 PodStatus: all of it that anything in kubeplay writes.
type PodStatus struct {
	Phase                      string            `json:"phase,omitempty"`
	Conditions                 []Condition       `json:"conditions,omitempty"`
	Message                    string            `json:"message,omitempty"`
	Reason                     string            `json:"reason,omitempty"`
	NominatedNodeName          string            `json:"nominatedNodeName,omitempty"`
	HostIP                     string            `json:"hostIP,omitempty"`
	HostIPs                    []IP              `json:"hostIPs,omitempty"`
	PodIP                      string            `json:"podIP,omitempty"`
	PodIPs                     []IP              `json:"podIPs,omitempty"`
	StartTime                  string            `json:"startTime,omitempty"`
	InitContainerStatuses      []ContainerStatus `json:"initContainerStatuses,omitempty"`
	ContainerStatuses          []ContainerStatus `json:"containerStatuses,omitempty"`
	EphemeralContainerStatuses []ContainerStatus `json:"ephemeralContainerStatuses,omitempty"`
	QOSClass                   string            `json:"qosClass,omitempty"`
}

// IP is a PodIP or HostIP.
type IP struct {
	IP string `json:"ip"`
}

// ContainerStatus is core/v1 ContainerStatus.
type ContainerStatus struct {
	Name         string         `json:"name"`
	State        ContainerState `json:"state"`
	LastState    ContainerState `json:"lastState"`
	Ready        bool           `json:"ready"`
	RestartCount int64          `json:"restartCount"`
	Image        string         `json:"image"`
	ImageID      string         `json:"imageID"`
	ContainerID  string         `json:"containerID,omitempty"`
	Started      *bool          `json:"started,omitempty"`
}

// ContainerState is one of waiting, running and terminated.
type ContainerState struct {
	Waiting    *Waiting    `json:"waiting,omitempty"`
	Running    *Running    `json:"running,omitempty"`
	Terminated *Terminated `json:"terminated,omitempty"`
}

// Waiting is a container's ContainerStateWaiting.
type Waiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Running is a container's ContainerStateRunning.
type Running struct {
	StartedAt string `json:"startedAt,omitempty"`
}

// Terminated is a container's ContainerStateTerminated.
type Terminated struct {
	ExitCode    int64  `json:"exitCode"`
	Reason      string `json:"reason,omitempty"`
	StartedAt   string `json:"startedAt,omitempty"`
	FinishedAt  string `json:"finishedAt,omitempty"`
	ContainerID string `json:"containerID,omitempty"`
}

// Node is core/v1 Node, as the scheduler reads it.
type Node struct {
	Object
	Spec struct {
		Unschedulable bool    `json:"unschedulable,omitempty"`
		Taints        []Taint `json:"taints,omitempty"`
	} `json:"spec"`
	Status struct {
		Allocatable map[string]string `json:"allocatable,omitempty"`
	} `json:"status"`
}

// Taint is core/v1 Taint.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// ReplicaSet is apps/v1 ReplicaSet.
type ReplicaSet struct {
	Object
	Spec struct {
		Replicas        *int64          `json:"replicas,omitempty"`
		MinReadySeconds int64           `json:"minReadySeconds,omitempty"`
		Selector        LabelSelector   `json:"selector"`
		Template        json.RawMessage `json:"template"`
	} `json:"spec"`
	Status ReplicaSetStatus `json:"status"`
}

// ReplicaSetStatus is apps/v1 ReplicaSetStatus.
type ReplicaSetStatus struct {
	Replicas             int64       `json:"replicas"`
	FullyLabeledReplicas int64       `json:"fullyLabeledReplicas,omitempty"`
	ReadyReplicas        int64       `json:"readyReplicas,omitempty"`
	AvailableReplicas    int64       `json:"availableReplicas,omitempty"`
	ObservedGeneration   int64       `json:"observedGeneration,omitempty"`
	Conditions           []Condition `json:"conditions,omitempty"`
}

// Deployment is apps/v1 Deployment.
type Deployment struct {
	Object
	Spec struct {
		Replicas *int64          `json:"replicas,omitempty"`
		Selector LabelSelector   `json:"selector"`
		Template json.RawMessage `json:"template"`
		Strategy struct {
			Type          string `json:"type,omitempty"`
			RollingUpdate *struct {
				MaxSurge       json.RawMessage `json:"maxSurge,omitempty"`
				MaxUnavailable json.RawMessage `json:"maxUnavailable,omitempty"`
			} `json:"rollingUpdate,omitempty"`
		} `json:"strategy"`
		MinReadySeconds         int64  `json:"minReadySeconds,omitempty"`
		RevisionHistoryLimit    *int64 `json:"revisionHistoryLimit,omitempty"`
		Paused                  bool   `json:"paused,omitempty"`
		ProgressDeadlineSeconds *int64 `json:"progressDeadlineSeconds,omitempty"`
	} `json:"spec"`
	Status DeploymentStatus `json:"status"`
}

// DeploymentStatus is apps/v1 DeploymentStatus.
type DeploymentStatus struct {
	ObservedGeneration  int64       `json:"observedGeneration,omitempty"`
	Replicas            int64       `json:"replicas,omitempty"`
	UpdatedReplicas     int64       `json:"updatedReplicas,omitempty"`
	ReadyReplicas       int64       `json:"readyReplicas,omitempty"`
	AvailableReplicas   int64       `json:"availableReplicas,omitempty"`
	UnavailableReplicas int64       `json:"unavailableReplicas,omitempty"`
	Conditions          []Condition `json:"conditions,omitempty"`
	CollisionCount      *int64      `json:"collisionCount,omitempty"`
}

// Service is core/v1 Service, as the endpoint controllers read it.
type Service struct {
	Object
	Spec struct {
		Type                     string            `json:"type,omitempty"`
		Selector                 map[string]string `json:"selector,omitempty"`
		ClusterIP                string            `json:"clusterIP,omitempty"`
		Ports                    []ServicePort     `json:"ports,omitempty"`
		PublishNotReadyAddresses bool              `json:"publishNotReadyAddresses,omitempty"`
	} `json:"spec"`
}

// ServicePort is core/v1 ServicePort.
type ServicePort struct {
	Name        string          `json:"name,omitempty"`
	Protocol    string          `json:"protocol,omitempty"`
	AppProtocol *string         `json:"appProtocol,omitempty"`
	Port        int64           `json:"port"`
	TargetPort  json.RawMessage `json:"targetPort,omitempty"`
}

// PersistentVolumeClaim is core/v1 PersistentVolumeClaim.
type PersistentVolumeClaim struct {
	Object
	Spec struct {
		AccessModes []string `json:"accessModes,omitempty"`
		Resources   struct {
			Requests map[string]string `json:"requests,omitempty"`
		} `json:"resources"`
		VolumeName       string  `json:"volumeName,omitempty"`
		StorageClassName *string `json:"storageClassName,omitempty"`
		VolumeMode       string  `json:"volumeMode,omitempty"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase,omitempty"`
	} `json:"status"`
}

// DaemonSet is apps/v1 DaemonSet.
type DaemonSet struct {
	Object
	Spec struct {
		Selector       LabelSelector   `json:"selector"`
		Template       json.RawMessage `json:"template"`
		UpdateStrategy struct {
			Type          string `json:"type,omitempty"`
			RollingUpdate *struct {
				MaxUnavailable json.RawMessage `json:"maxUnavailable,omitempty"`
			} `json:"rollingUpdate,omitempty"`
		} `json:"updateStrategy"`
		MinReadySeconds      int64  `json:"minReadySeconds,omitempty"`
		RevisionHistoryLimit *int64 `json:"revisionHistoryLimit,omitempty"`
	} `json:"spec"`
	Status DaemonSetStatus `json:"status"`
}

// DaemonSetStatus is apps/v1 DaemonSetStatus.
type DaemonSetStatus struct {
	CurrentNumberScheduled int64       `json:"currentNumberScheduled"`
	NumberMisscheduled     int64       `json:"numberMisscheduled"`
	DesiredNumberScheduled int64       `json:"desiredNumberScheduled"`
	NumberReady            int64       `json:"numberReady"`
	ObservedGeneration     int64       `json:"observedGeneration,omitempty"`
	UpdatedNumberScheduled int64       `json:"updatedNumberScheduled,omitempty"`
	NumberAvailable        int64       `json:"numberAvailable,omitempty"`
	NumberUnavailable      int64       `json:"numberUnavailable,omitempty"`
	CollisionCount         *int64      `json:"collisionCount,omitempty"`
	Conditions             []Condition `json:"conditions,omitempty"`
}

// StatefulSet is apps/v1 StatefulSet.
type StatefulSet struct {
	Object
	Spec struct {
		Replicas             *int64          `json:"replicas,omitempty"`
		Selector             LabelSelector   `json:"selector"`
		Template             json.RawMessage `json:"template"`
		VolumeClaimTemplates []struct {
			Metadata ObjectMeta      `json:"metadata"`
			Spec     json.RawMessage `json:"spec"`
		} `json:"volumeClaimTemplates,omitempty"`
		ServiceName         string `json:"serviceName"`
		PodManagementPolicy string `json:"podManagementPolicy,omitempty"`
		UpdateStrategy      struct {
			Type          string `json:"type,omitempty"`
			RollingUpdate *struct {
				Partition *int64 `json:"partition,omitempty"`
			} `json:"rollingUpdate,omitempty"`
		} `json:"updateStrategy"`
		RevisionHistoryLimit *int64 `json:"revisionHistoryLimit,omitempty"`
		MinReadySeconds      int64  `json:"minReadySeconds,omitempty"`
	} `json:"spec"`
	Status StatefulSetStatus `json:"status"`
}

// StatefulSetStatus is apps/v1 StatefulSetStatus.
type StatefulSetStatus struct {
	ObservedGeneration int64       `json:"observedGeneration,omitempty"`
	Replicas           int64       `json:"replicas"`
	ReadyReplicas      int64       `json:"readyReplicas,omitempty"`
	CurrentReplicas    int64       `json:"currentReplicas,omitempty"`
	UpdatedReplicas    int64       `json:"updatedReplicas,omitempty"`
	CurrentRevision    string      `json:"currentRevision,omitempty"`
	UpdateRevision     string      `json:"updateRevision,omitempty"`
	CollisionCount     *int64      `json:"collisionCount,omitempty"`
	Conditions         []Condition `json:"conditions,omitempty"`
	AvailableReplicas  int64       `json:"availableReplicas"`
}

// ControllerRevision is apps/v1 ControllerRevision: a revision of a
// DaemonSet's or StatefulSet's template.
type ControllerRevision struct {
	Object
	Data     json.RawMessage `json:"data,omitempty"`
	Revision int64           `json:"revision"`
}

// CronJob is batch/v1 CronJob.
type CronJob struct {
	Object
	Spec struct {
		Schedule                string  `json:"schedule"`
		TimeZone                *string `json:"timeZone,omitempty"`
		StartingDeadlineSeconds *int64  `json:"startingDeadlineSeconds,omitempty"`
		ConcurrencyPolicy       string  `json:"concurrencyPolicy,omitempty"`
		Suspend                 bool    `json:"suspend,omitempty"`
		JobTemplate             struct {
			Metadata ObjectMeta      `json:"metadata"`
			Spec     json.RawMessage `json:"spec"`
		} `json:"jobTemplate"`
		SuccessfulJobsHistoryLimit *int64 `json:"successfulJobsHistoryLimit,omitempty"`
		FailedJobsHistoryLimit     *int64 `json:"failedJobsHistoryLimit,omitempty"`
	} `json:"spec"`
	Status CronJobStatus `json:"status"`
}

// CronJobStatus is batch/v1 CronJobStatus.
type CronJobStatus struct {
	Active             []Reference `json:"active,omitempty"`
	LastScheduleTime   string      `json:"lastScheduleTime,omitempty"`
	LastSuccessfulTime string      `json:"lastSuccessfulTime,omitempty"`
}

// Job is batch/v1 Job.
type Job struct {
	Object
	Spec struct {
		Parallelism  *int64          `json:"parallelism,omitempty"`
		Completions  *int64          `json:"completions,omitempty"`
		BackoffLimit *int64          `json:"backoffLimit,omitempty"`
		Suspend      bool            `json:"suspend,omitempty"`
		Template     json.RawMessage `json:"template"`
		Selector     LabelSelector   `json:"selector"`
		// CompletionMode is NonIndexed or Indexed.
		CompletionMode       string            `json:"completionMode,omitempty"`
		PodFailurePolicy     *PodFailurePolicy `json:"podFailurePolicy,omitempty"`
		PodReplacementPolicy string            `json:"podReplacementPolicy,omitempty"`
	} `json:"spec"`
	Status JobStatus `json:"status"`
}

// PodFailurePolicy is batch/v1 PodFailurePolicy.
type PodFailurePolicy struct {
	Rules []struct {
		Action      string `json:"action"`
		OnExitCodes *struct {
			ContainerName *string `json:"containerName,omitempty"`
			Operator      string  `json:"operator"`
			Values        []int64 `json:"values"`
		} `json:"onExitCodes,omitempty"`
		OnPodConditions []PodConditionPattern `json:"onPodConditions,omitempty"`
	} `json:"rules"`
}

// PodConditionPattern is batch/v1 PodFailurePolicyOnPodConditionsPattern.
type PodConditionPattern struct {
	Type   string `json:"type"`
	Status string `json:"status"`
}

// Uncounted is batch/v1 UncountedTerminatedPods: the UIDs of finished Pods
// the Job controller has yet to count (it removes their finalizers first).
type Uncounted struct {
	Succeeded []string `json:"succeeded,omitempty"`
	Failed    []string `json:"failed,omitempty"`
}

// JobStatus is batch/v1 JobStatus.
type JobStatus struct {
	Conditions              []Condition `json:"conditions,omitempty"`
	StartTime               string      `json:"startTime,omitempty"`
	CompletionTime          string      `json:"completionTime,omitempty"`
	Active                  int64       `json:"active,omitempty"`
	Succeeded               int64       `json:"succeeded,omitempty"`
	Failed                  int64       `json:"failed,omitempty"`
	Terminating             *int64      `json:"terminating,omitempty"`
	UncountedTerminatedPods *Uncounted  `json:"uncountedTerminatedPods,omitempty"`
	Ready                   *int64      `json:"ready,omitempty"`
	CompletedIndexes        string      `json:"completedIndexes,omitempty"`
}

// typed is what Codec reads: a pointer to a struct that starts with Object.
type typed[T any] interface {
	*T
	object() *Object
}

// Codec reads objects of type T (Pod, ReplicaSet, ...) for a TypedInformer.
func Codec[T any, P typed[T]]() client.Codec[P] {
	return client.Codec[P]{
		Decode: func(data []byte) (P, error) {
			p := P(new(T))
			err := json.Unmarshal(data, p)
			p.object().Raw = data
			return p, err
		},
		Key:     func(p P) string { return p.object().Metadata.Key() },
		Version: func(p P) string { return p.object().Metadata.ResourceVersion },
	}
}
