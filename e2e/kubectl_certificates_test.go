package e2e

import "testing"

// TestK8S_ENC_5_KubectlCertificateSigningRequests: kubectl 1.32 creates
// CertificateSigningRequests (the requester written in), prints them in
// kube's columns, and approves and denies them through the approval
// subresource.
func TestK8S_ENC_5_KubectlCertificateSigningRequests(t *testing.T) {
	t.Parallel()
	// A whole sandbox, whose filters authenticate kubectl as
	// kubernetes-admin (the requester).
	k := newRBACKubectl(t)
	const request = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIYU1JR0FBZ0VBTUI0eERqQU1CZ05WQkFNTUJXRnNhV05sTVF3d0NnWURWUVFLREFOa1pYWXdXVEFUQmdjcQpoa2pPUFFJQkJnZ3Foa2pPUFFNQkJ3TkNBQVJ4ZkcvazBTRm1HeUV4TlQ3L01abUpxRERQVjQ5cHJHMHFxV3F3CkhYcWtFc0N0dmhRa0ttQTJlanRWRjNaTWdLaENmeVBpY2J0Y0lzS1dQRUdORHFqK29BQXdDZ1lJS29aSXpqMEUKQXdJRFNRQXdSZ0loQUxySkNFeVlwQmtOZTJrOStRNGlmZEpkQittS3lmY3hWWXR5eGRPZUh6OEJBaUVBdzFnMgo1K0YwbUUyb2Y1Q3dTdXVsT25LUWg3cG90d3Q1WCtKN1IyNWFlZjQ9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo="
	k.must("create", "-f", k.file("csr.yaml", `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: alice}
spec: {request: `+request+`, signerName: example.com/signer, usages: [client auth], expirationSeconds: 86400}
---
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: mallory}
spec: {request: `+request+`, signerName: example.com/signer, usages: [client auth]}
`))
	k.must("certificate", "approve", "alice")
	k.must("certificate", "deny", "mallory")
	wantRows(t, "get csr", kcTable(k.must("get", "csr")), [][]string{
		{"NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION"},
		{"alice", `\d+s`, `example\.com/signer`, "kubernetes-admin", "24h", "Approved"},
		{"mallory", `\d+s`, `example\.com/signer`, "kubernetes-admin", "<none>", "Denied"},
	})
}
