package e2e

import (
	"context"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kubeplay/core/apiserver"
)

// TestCONF_1_HorizontalPodAutoscalerProtobuf: client-go's typed clients
// write and read one HorizontalPodAutoscaler in autoscaling/v2 and
// autoscaling/v1, in protobuf: what v1 cannot say survives a v1 status
// write, and v1's CPU target is v2's CPU metric.
func TestCONF_1_HorizontalPodAutoscalerProtobuf(t *testing.T) {
	hs, _ := startServer(t, apiserver.Config{})
	const pb = "application/vnd.kubernetes.protobuf"
	cs := encodingClientset(t, hs.URL, pb, pb)
	ctx := context.Background()
	seventy, window := int32(70), int32(120)
	avg := resource.MustParse("500m")
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MaxReplicas:    5,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &seventy}}},
				{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "rps"},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &avg}}},
			},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &window}},
		},
	}
	created, err := cs.AutoscalingV2().HorizontalPodAutoscalers(cgNamespace).Create(ctx, hpa, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.MinReplicas == nil || *created.Spec.MinReplicas != 1 || len(created.Spec.Behavior.ScaleUp.Policies) != 2 {
		t.Fatalf("v2 defaults missing: %+v", created.Spec)
	}
	v1, err := cs.AutoscalingV1().HorizontalPodAutoscalers(cgNamespace).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v1.Spec.TargetCPUUtilizationPercentage == nil || *v1.Spec.TargetCPUUtilizationPercentage != 70 ||
		v1.Annotations["autoscaling.alpha.kubernetes.io/metrics"] != `[{"type":"Pods","pods":{"metricName":"rps","targetAverageValue":"500m"}}]` {
		t.Fatalf("v1 form: %+v %v", v1.Spec, v1.Annotations)
	}
	fifty := int32(50)
	v1.Status = autoscalingv1.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 3, CurrentCPUUtilizationPercentage: &fifty}
	if _, err := cs.AutoscalingV1().HorizontalPodAutoscalers(cgNamespace).UpdateStatus(ctx, v1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := cs.AutoscalingV2().HorizontalPodAutoscalers(cgNamespace).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Metrics) != 2 || got.Spec.Metrics[1].Pods == nil || *got.Spec.Behavior.ScaleDown.StabilizationWindowSeconds != 120 || len(got.Annotations) != 0 {
		t.Fatalf("v2 spec after a v1 write: %+v %v", got.Spec, got.Annotations)
	}
	if got.Status.DesiredReplicas != 3 || len(got.Status.CurrentMetrics) != 1 || *got.Status.CurrentMetrics[0].Resource.Current.AverageUtilization != 50 {
		t.Fatalf("v2 status after a v1 status write: %+v", got.Status)
	}
}
