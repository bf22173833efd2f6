package apiserver

import "testing"

// Who may name a ValidatingAdmissionPolicy's parameters: under RBAC, kube
// refuses a policy whose writer may not get every object of its paramKind,
// and a binding whose writer may not read what its paramRef names (by the
// policy's paramKind), as invalid, its paramKind or paramRef forbidden;
// recorded in testdata/admissionpolicy-rbac-kube-1.32.13.json from
// kube-apiserver 1.32.13 with --authorization-mode=RBAC and rbacTokens
// (see TestRecordRBACKube), by TestRecordAdmissionPolicyRBACKube.

const admissionPolicyRBACKubeFile = "testdata/admissionpolicy-rbac-kube-1.32.13.json"

var admissionPolicyRBACCases = []rbacCase{
	{"who may name parameters", []rbacStep{
		admin(kpost(kubeClusterRoles, `{"metadata":{"name":"policy-writer"},"rules":[{"apiGroups":["admissionregistration.k8s.io"],"resources":["validatingadmissionpolicies","validatingadmissionpolicybindings"],"verbs":["create","update","patch","get"]}]}`)),
		admin(kpost(kubeCRBs, `{"metadata":{"name":"alice-writes-policies"},"subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}],"roleRef":{"kind":"ClusterRole","name":"policy-writer","apiGroup":"rbac.authorization.k8s.io"}}`)),
		alice(kpost(kubeVAPs, `{"metadata":{"name":"no-params"},"spec":{`+quietPolicy+`,"validations":[{"expression":"true"}]}}`)),
		alice(kpost(kubeVAPs, `{"metadata":{"name":"cm-params"},"spec":{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},`+quietPolicy+`,"validations":[{"expression":"true"}]}}`)),
		alice(kpost(kubeVAPs, `{"metadata":{"name":"thing-params"},"spec":{"paramKind":{"apiVersion":"example.com/v1","kind":"Thing"},`+quietPolicy+`,"validations":[{"expression":"true"}]}}`)),
		admin(kpost(kubeVAPs, `{"metadata":{"name":"cm-params"},"spec":{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},`+quietPolicy+`,"validations":[{"expression":"true"}]}}`)),
		alice(kpatch(kubeVAPs+"/cm-params", `{"spec":{"failurePolicy":"Ignore"}}`)),
		alice(kpatch(kubeVAPs+"/no-params", `{"spec":{"paramKind":{"apiVersion":"v1","kind":"Secret"}}}`)),
		alice(kpost(kubeVAPBs, `{"metadata":{"name":"b-none"},"spec":{"policyName":"cm-params","validationActions":["Deny"]}}`)),
		alice(kpost(kubeVAPBs, `{"metadata":{"name":"b-named"},"spec":{"policyName":"cm-params","paramRef":{"name":"limits","namespace":"default","parameterNotFoundAction":"Deny"},"validationActions":["Deny"]}}`)),
		alice(kpost(kubeVAPBs, `{"metadata":{"name":"b-selected"},"spec":{"policyName":"cm-params","paramRef":{"selector":{},"parameterNotFoundAction":"Allow"},"validationActions":["Deny"]}}`)),
		alice(kpost(kubeVAPBs, `{"metadata":{"name":"b-missing"},"spec":{"policyName":"no-such-policy","paramRef":{"name":"limits","parameterNotFoundAction":"Deny"},"validationActions":["Deny"]}}`)),
		admin(kpost(kubeRoles, `{"metadata":{"name":"limits-reader"},"rules":[{"apiGroups":[""],"resources":["configmaps"],"resourceNames":["limits"],"verbs":["get"]}]}`)),
		admin(kpost(kubeRoleBindings, `{"metadata":{"name":"alice-reads-limits"},"subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}],"roleRef":{"kind":"Role","name":"limits-reader","apiGroup":"rbac.authorization.k8s.io"}}`)),
		alice(kpost(kubeVAPBs, `{"metadata":{"name":"b-named"},"spec":{"policyName":"cm-params","paramRef":{"name":"limits","namespace":"default","parameterNotFoundAction":"Deny"},"validationActions":["Deny"]}}`)),
		alice(kpatch(kubeVAPBs+"/b-named", `{"spec":{"validationActions":["Warn"]}}`)),
		alice(kpatch(kubeVAPBs+"/b-named", `{"spec":{"paramRef":{"name":"other"}}}`)),
	}},
}

// TestRecordAdmissionPolicyRBACKube writes admissionPolicyRBACKubeFile from
// a real kube-apiserver started as TestRecordRBACKube says.
func TestRecordAdmissionPolicyRBACKube(t *testing.T) {
	recordRBACKube(t, admissionPolicyRBACKubeFile, "the requests of admissionPolicyRBACCases in admissionpolicy_rbac_test.go", admissionPolicyRBACCases)
}

// TestCONF_1_AdmissionPolicyParamsAuthorizedAsKube: a policy's paramKind
// and a binding's paramRef need their writer to be allowed to read the
// parameters, as kube has it.
func TestCONF_1_AdmissionPolicyParamsAuthorizedAsKube(t *testing.T) {
	replayRBACKube(t, newRBACServer(t), admissionPolicyRBACKubeFile, admissionPolicyRBACCases)
}
