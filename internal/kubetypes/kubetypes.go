// Package kubetypes pairs kubeplay's built-in kinds with their k8s.io/api Go
// types, for the tests that hold core/types' typed forms and
// core/encoding/protobuf's encoding to kube's own. Only tests import it: it
// brings in k8s.io modules that no build of kubeplay may carry.
package kubetypes

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Message is what k8s.io/api's generated types implement.
type Message interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// Kind is one built-in kind with its k8s.io/api type.
type Kind struct {
	APIVersion, Kind string
	New              func() Message
}

// All are the kinds whose typed forms and encodings the tests compare with
// kube's own: the served built-in kinds and their lists, and the meta kinds.
func All() []Kind {
	return []Kind{
		{"v1", "Namespace", func() Message { return &corev1.Namespace{} }},
		{"v1", "NamespaceList", func() Message { return &corev1.NamespaceList{} }},
		{"v1", "Pod", func() Message { return &corev1.Pod{} }},
		{"v1", "PodList", func() Message { return &corev1.PodList{} }},
		{"v1", "ConfigMap", func() Message { return &corev1.ConfigMap{} }},
		{"v1", "ConfigMapList", func() Message { return &corev1.ConfigMapList{} }},
		{"v1", "Secret", func() Message { return &corev1.Secret{} }},
		{"v1", "SecretList", func() Message { return &corev1.SecretList{} }},
		{"v1", "Service", func() Message { return &corev1.Service{} }},
		{"v1", "ServiceList", func() Message { return &corev1.ServiceList{} }},
		{"v1", "Endpoints", func() Message { return &corev1.Endpoints{} }},
		{"v1", "EndpointsList", func() Message { return &corev1.EndpointsList{} }},
		{"v1", "Node", func() Message { return &corev1.Node{} }},
		{"v1", "NodeList", func() Message { return &corev1.NodeList{} }},
		{"v1", "Event", func() Message { return &corev1.Event{} }},
		{"v1", "EventList", func() Message { return &corev1.EventList{} }},
		{"v1", "ServiceAccount", func() Message { return &corev1.ServiceAccount{} }},
		{"v1", "ServiceAccountList", func() Message { return &corev1.ServiceAccountList{} }},
		{"apps/v1", "Deployment", func() Message { return &appsv1.Deployment{} }},
		{"apps/v1", "DeploymentList", func() Message { return &appsv1.DeploymentList{} }},
		{"apps/v1", "ReplicaSet", func() Message { return &appsv1.ReplicaSet{} }},
		{"apps/v1", "ReplicaSetList", func() Message { return &appsv1.ReplicaSetList{} }},
		{"coordination.k8s.io/v1", "Lease", func() Message { return &coordinationv1.Lease{} }},
		{"coordination.k8s.io/v1", "LeaseList", func() Message { return &coordinationv1.LeaseList{} }},
		{"policy/v1", "Eviction", func() Message { return &policyv1.Eviction{} }},
		{"autoscaling/v1", "Scale", func() Message { return &autoscalingv1.Scale{} }},
		{"v1", "Status", func() Message { return &metav1.Status{} }},
		{"apps/v1", "DeleteOptions", func() Message { return &metav1.DeleteOptions{} }},
		{"meta.k8s.io/v1", "WatchEvent", func() Message { return &metav1.WatchEvent{} }},
		{"meta.k8s.io/v1", "PartialObjectMetadata", func() Message { return &metav1.PartialObjectMetadata{} }},
		{"meta.k8s.io/v1", "PartialObjectMetadataList", func() Message { return &metav1.PartialObjectMetadataList{} }},
		{"meta.k8s.io/v1", "ListMeta", func() Message { return &metav1.ListMeta{} }},
		{"meta.k8s.io/v1", "ObjectMeta", func() Message { return &metav1.ObjectMeta{} }},
	}
}

// ProtobufOnly are the kinds typed in protobuf alone (core/types'
// LookupProtobuf): the CustomResourceDefinition and its list.
func ProtobufOnly() []Kind {
	return []Kind{
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", func() Message { return &apiextensionsv1.CustomResourceDefinition{} }},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinitionList", func() Message { return &apiextensionsv1.CustomResourceDefinitionList{} }},
	}
}
