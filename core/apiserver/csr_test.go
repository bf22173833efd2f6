package apiserver

import (
	"strings"
	"testing"

	"kubeplay/core/auth"
)

// The requests to certificates.k8s.io/v1 CertificateSigningRequests whose
// answers kube-apiserver 1.32.13 gave are recorded in
// testdata/csr-kube-1.32.13.json (TestRecordCSRKube writes it): the
// requester written into a new one, its approval and status subresources
// (the condition rules, the timestamps, the certificate), the field
// selector on its signer, and its validation; its Table in
// testdata/csr-table-kube-1.32.13.json.

const (
	csrKubeFile      = "testdata/csr-kube-1.32.13.json"
	csrTableKubeFile = "testdata/csr-table-kube-1.32.13.json"
	kubeCSRs         = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
	csrTable         = kubeCSRs + "?includeObject=None"
	// csrRequest is a PEM certificate request (CN=alice, O=dev, P-256),
	// base64; csrCertificate a PEM certificate for it.
	csrRequest = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIYU1JR0FBZ0VBTUI0eERqQU1CZ05WQkFNTUJXRnNhV05sTVF3d0NnWURWUVFLREFOa1pYWXdXVEFUQmdjcQpoa2pPUFFJQkJnZ3Foa2pPUFFNQkJ3TkNBQVJ4ZkcvazBTRm1HeUV4TlQ3L01abUpxRERQVjQ5cHJHMHFxV3F3CkhYcWtFc0N0dmhRa0ttQTJlanRWRjNaTWdLaENmeVBpY2J0Y0lzS1dQRUdORHFqK29BQXdDZ1lJS29aSXpqMEUKQXdJRFNRQXdSZ0loQUxySkNFeVlwQmtOZTJrOStRNGlmZEpkQittS3lmY3hWWXR5eGRPZUh6OEJBaUVBdzFnMgo1K0YwbUUyb2Y1Q3dTdXVsT25LUWg3cG90d3Q1WCtKN1IyNWFlZjQ9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo="
	// csrMastersRequest asks for the system:masters group (CN=eve,
	// O=system:masters), which kube's CertificateSubjectRestriction refuses
	// to the kube-apiserver-client signer.
	csrMastersRequest = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIaU1JR0pBZ0VBTUNjeEREQUtCZ05WQkFNTUEyVjJaVEVYTUJVR0ExVUVDZ3dPYzNsemRHVnRPbTFoYzNSbApjbk13V1RBVEJnY3Foa2pPUFFJQkJnZ3Foa2pPUFFNQkJ3TkNBQVNKeXhoak1UOVRpTWdiS25VUkJ0KzBVOUl3CkxNTmNRREZIdDZBWEpUZU5WOExFZnp5MWNyUEVTQjU1QThMeW1TK1FTZWlxTFhvT29md05kdmttalBnUW9BQXcKQ2dZSUtvWkl6ajBFQXdJRFNBQXdSUUloQUk3YkcyenIvd0N6OWpBTldzOFZSa0VZb1dDWlkzbExHc293NTc4Lwo4aTMwQWlCMUVmRVhzSjhpS2psYW0zUExuZjNPRHpGSkxNSmNUVTJFd2VuY0ZvNlRXdz09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo="
	csrCertificate    = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENDQVRlZ0F3SUJBZ0lVSFR3T1VieVVndHNVNndXcVdKMW5ocDhNbDhrd0NnWUlLb1pJemowRUF3SXcKSGpFT01Bd0dBMVVFQXd3RllXeHBZMlV4RERBS0JnTlZCQW9NQTJSbGRqQWVGdzB5TmpFeU1ESXhORFUwTlRSYQpGdzB6TmpFeE1qa3hORFUwTlRSYU1CNHhEakFNQmdOVkJBTU1CV0ZzYVdObE1Rd3dDZ1lEVlFRS0RBTmtaWFl3CldUQVRCZ2NxaGtqT1BRSUJCZ2dxaGtqT1BRTUJCd05DQUFSeGZHL2swU0ZtR3lFeE5UNy9NWm1KcUREUFY0OXAKckcwcXFXcXdIWHFrRXNDdHZoUWtLbUEyZWp0VkYzWk1nS2hDZnlQaWNidGNJc0tXUEVHTkRxaitvMU13VVRBZApCZ05WSFE0RUZnUVVuZm5hUnFJbWs5Z1FJZ2lCRnBSRVZ6cEdQa1V3SHdZRFZSMGpCQmd3Rm9BVW5mbmFScUltCms5Z1FJZ2lCRnBSRVZ6cEdQa1V3RHdZRFZSMFRBUUgvQkFVd0F3RUIvekFLQmdncWhrak9QUVFEQWdOSUFEQkYKQWlBa2lHOGJmVXcyVml0bDA3akhxbjViNTFZTCt0dGRkWmM2OVpLL3A1L2VEQUloQUpib2lIYXk4a1lKK3pSbApWMWkvQlhiVkYydjFFYklkcHkvS1k1SGRpamdYCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K"
)

// kcsr is a CertificateSigningRequest named name with spec members spec.
func kcsr(name, spec string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{` + spec + `}}`
}

var csrCases = []kubeCase{
	kcase("csr create, approve, issue, update and delete",
		kpost(kubeCSRs, `{"metadata":{"name":"csr1"},"spec":{"request":"`+csrRequest+`","signerName":"example.com/signer","usages":["digital signature","client auth"],"expirationSeconds":3600,"username":"someone","uid":"u","groups":["g"]},"status":{"conditions":[{"type":"Approved","status":"True"}]}}`),
		kubeStep{"GET", kubeCSRs + "/csr1", ""},
		kput(kubeCSRs+"/csr1", `{"metadata":{"name":"csr1","labels":{"a":"b"}},"spec":{"request":"`+csrRequest+`","signerName":"example.com/other","usages":["server auth"]},"status":{"conditions":[{"type":"Denied","status":"True"}]}}`),
		kpatch(kubeCSRs+"/csr1/status", `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"R","message":"M"}]}}`),
		kpatch(kubeCSRs+"/csr1/approval", `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"ByTest","message":"approved by the test","lastUpdateTime":"2026-01-02T03:04:05Z","lastTransitionTime":"2026-01-02T03:04:05Z"}]}}`),
		kpatch(kubeCSRs+"/csr1/approval", `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"ByTest","message":"approved by the test","lastUpdateTime":"2026-01-02T03:04:05Z","lastTransitionTime":"2026-01-02T03:04:05Z"},{"type":"Denied","status":"True"}]}}`),
		kpatch(kubeCSRs+"/csr1/approval", `{"status":{"conditions":[{"type":"Denied","status":"False"}]}}`),
		kpatch(kubeCSRs+"/csr1/status", `{"status":{"certificate":"`+csrCertificate+`","conditions":[{"type":"Approved","status":"True","reason":"ByTest","message":"approved by the test","lastUpdateTime":"2026-01-02T03:04:05Z","lastTransitionTime":"2026-01-02T03:04:05Z"},{"type":"Failed","status":"True","reason":"F","lastUpdateTime":"2026-01-02T03:04:06Z","lastTransitionTime":"2026-01-02T03:04:06Z"}]}}`),
		kpatch(kubeCSRs+"/csr1/status", `{"status":{"certificate":"aGVsbG8="}}`),
		kpatch(kubeCSRs+"/csr1", `{"status":{"certificate":null}}`),
		kubeStep{"GET", kubeCSRs + "?fieldSelector=spec.signerName%3Dexample.com%2Fsigner", ""},
		kubeStep{"GET", kubeCSRs + "?fieldSelector=spec.signerName%3Dexample.com%2Fother", ""},
		kpost(kubeCSRs, kcsr("csr2", `"request":"`+csrRequest+`","signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth"]`)),
		kpost(kubeCSRs, kcsr("csr3", `"request":"`+csrRequest+`","signerName":"example.com/signer","usages":["client auth"]`)),
		kubeStep{"DELETE", kubeCSRs + "/csr3", ""},
	),
	kcase("csr subject restriction",
		kpost(kubeCSRs, kcsr("eve1", `"request":"`+csrMastersRequest+`","signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth"]`)),
		kpost(kubeCSRs, kcsr("eve2", `"request":"`+csrMastersRequest+`","signerName":"example.com/signer","usages":["client auth"]`)),
		kpost(kubeCSRs, kcsr("eve3", `"request":"`+csrMastersRequest+`","signerName":"kubernetes.io/kube-apiserver-client"`)),
		kpost(kubeCSRs, kcsr("eve4", `"request":"aGVsbG8=","signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth"]`)),
	),
	kcase("csr invalid",
		kpost(kubeCSRs, kcsr("bad1", `"request":"aGVsbG8=","signerName":"bad","expirationSeconds":60`)),
		kpost(kubeCSRs, kcsr("bad2", `"request":"`+csrRequest+`","signerName":"kubernetes.io/legacy-unknown","usages":["bogus","client auth","client auth"]`)),
		kpost(kubeCSRs, kcsr("bad3", `"request":"`+csrRequest+`","usages":["client auth"]`)),
		kpost(kubeCSRs, kcsr("bad4", `"request":"`+csrRequest+`","signerName":"Example_Com/a/b","usages":["client auth"]`)),
		kpost(kubeCSRs, kcsr("bad5", `"request":"`+csrRequest+`","signerName":"example/Signer_Name","usages":["client auth"]`)),
	),
}

// TestRecordCSRKube writes csrKubeFile and csrTableKubeFile from a real
// kube-apiserver (a fresh instance).
func TestRecordCSRKube(t *testing.T) {
	recordKube(t, csrKubeFile, "the requests of csrCases in csr_test.go", csrCases)
	recordKubeTable(t, csrTableKubeFile, csrTable)
}

// TestK8S_URI_3_CertificateSigningRequestAsKube: CertificateSigningRequests
// are stored with their requester, approved, issued, replaced and refused as
// kube does them, and printed in kube's columns (ages aside).
func TestK8S_URI_3_CertificateSigningRequestAsKube(t *testing.T) {
	// The refapi kit's admin, whom kube writes in as the requester.
	tokens, err := auth.ParseTokens("tokens.csv", strings.NewReader("refapi-admin-token,admin,admin-uid,\"system:masters\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, testConfig{Authorization: auth.ModeAlwaysAllow, Tokens: tokens})
	replayKube(t, s, csrKubeFile, csrCases, "Authorization", "Bearer refapi-admin-token")
	compareKubeTable(t, s, csrTableKubeFile, csrTable, 1, "Authorization", "Bearer refapi-admin-token")
}

// csrSignerFile holds kube's answers, under RBAC, to csrSignerSteps: its
// CertificateApproval and CertificateSigning admissions, which ask the
// authorizer whether the writer may approve or sign for the signer.
const csrSignerFile = "testdata/csr-signers-kube-1.32.13.json"

const (
	csrApproved = `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"R","lastUpdateTime":"2026-01-02T03:04:05Z","lastTransitionTime":"2026-01-02T03:04:05Z"}]}}`
	csrIssued   = `{"status":{"certificate":"` + csrCertificate + `"}}`
)

var csrSignerCases = []rbacCase{{"csr signers", []rbacStep{
	admin(kpost(kubeCSRs, kcsr("csr-a", `"request":"`+csrRequest+`","signerName":"example.com/signer","usages":["client auth"]`))),
	admin(kpost(kubeClusterRoles, `{"metadata":{"name":"csr-writer"},"rules":[{"apiGroups":["certificates.k8s.io"],"resources":["certificatesigningrequests","certificatesigningrequests/approval","certificatesigningrequests/status"],"verbs":["get","update","patch"]}]}`)),
	admin(kpost(kubeCRBs, `{"metadata":{"name":"alice-csr-writer"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"csr-writer"},"subjects":[{"kind":"User","name":"alice"}]}`)),
	{token: "t-alice", kubeStep: kpatch(kubeCSRs+"/csr-a/approval", csrApproved)},
	{token: "t-alice", kubeStep: kpatch(kubeCSRs+"/csr-a/status", csrIssued)},
	{token: "t-alice", kubeStep: kpatch(kubeCSRs+"/csr-a/status", `{"metadata":{"labels":{"a":"b"}}}`)},
	admin(kpost(kubeClusterRoles, `{"metadata":{"name":"example-signer"},"rules":[{"apiGroups":["certificates.k8s.io"],"resources":["signers"],"resourceNames":["example.com/*"],"verbs":["approve","sign"]}]}`)),
	admin(kpost(kubeCRBs, `{"metadata":{"name":"alice-example-signer"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"example-signer"},"subjects":[{"kind":"User","name":"alice"}]}`)),
	{token: "t-alice", kubeStep: kpatch(kubeCSRs+"/csr-a/approval", csrApproved)},
	{token: "t-alice", kubeStep: kpatch(kubeCSRs+"/csr-a/status", csrIssued)}}}}

// TestRecordCSRSignersKube writes csrSignerFile from a fresh kube-apiserver
// under RBAC with rbacTokens (see TestRecordRBACKube).
func TestRecordCSRSignersKube(t *testing.T) {
	recordRBACKube(t, csrSignerFile, "csrSignerCases in csr_test.go", csrSignerCases)
}

// TestCONF_1_CSRSignersAsKube: under RBAC, approving a request needs
// "approve" and issuing or conditioning it "sign" on its signer (or its
// domain's), with kube's 403s; a status write that changes neither needs
// nothing.
func TestCONF_1_CSRSignersAsKube(t *testing.T) {
	replayRBACKube(t, newRBACServer(t), csrSignerFile, csrSignerCases)
}
