package apiserver

import (
	"testing"

	"kubeplay/internal/refapi"
)

// The answers kube-apiserver 1.32.13 gives to the kinds it never stores when
// asked for them as a Table, or as metadata alone, are recorded in
// testdata/reviewtable-kube-1.32.13.json (TestRecordReviewTableKube writes
// it): kube has no table convertor for them, so a Table is not acceptable
// (406) and nothing is done; another clause of Accept is served.

const reviewTableKubeFile = "testdata/reviewtable-kube-1.32.13.json"

// reviewTableSteps are sent with the Accept headers of reviewTableAccepts.
var (
	reviewTableSteps = []kubeStep{
		kpost("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", `{"spec":{"nonResourceAttributes":{"path":"/","verb":"get"}}}`),
		kpost("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", `{"spec":{"nonResourceAttributes":{"path":"/","verb":"get"}}}`),
		kpost("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", `{"spec":{"nonResourceAttributes":{"path":"/","verb":"get"}}}`),
		kpost("/apis/authorization.k8s.io/v1/subjectaccessreviews", `{"spec":{"user":"u","resourceAttributes":{"verb":"get","resource":"pods"}}}`),
		kpost("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", `{"spec":{"namespace":"default"}}`),
		kpost("/api/v1/namespaces/default/bindings", `{"metadata":{"name":"nobody"},"target":{"kind":"Node","name":"n1"}}`),
	}
	reviewTableAccepts = []string{
		asTable,
		"application/yaml;as=Table;v=v1;g=meta.k8s.io",
		asTable + ", application/json",
		asTable,
		asTable,
		asTable,
	}
)

// TestRecordReviewTableKube writes reviewTableKubeFile from a real
// kube-apiserver.
func TestRecordReviewTableKube(t *testing.T) {
	kube := refapi.Connect(t)
	var got []kubeAnswer
	for i, s := range reviewTableSteps {
		got = append(got, askKube(t, kube, s, map[string]string{"Accept": reviewTableAccepts[i]}))
	}
	writeKubeAnswers(t, reviewTableKubeFile, "Answers of kube-apiserver v1.32.13 (the refapi kit: --feature-gates=CBORServingAndStorage=true, the ServiceAccount admission plugin off) to reviewTableSteps in reviewtable_test.go, each sent with its Accept of reviewTableAccepts; recorded by "+t.Name()+".", []string{"reviews as Table"}, [][]kubeAnswer{got})
}

// TestK8S_ENC_5_NoTableForReviews: a review or a Binding asked for as a
// Table is answered 406 with kube's Status, and done with nothing; a later
// clause of Accept is served.
func TestK8S_ENC_5_NoTableForReviews(t *testing.T) {
	want := loadKube(t, reviewTableKubeFile)["reviews as Table"]
	replayKubeSteps(t, newTestServer(t, testConfig{}), "reviews as Table", want, reviewTableSteps, func(i int) []string {
		return []string{"Accept", reviewTableAccepts[i]}
	})
}
