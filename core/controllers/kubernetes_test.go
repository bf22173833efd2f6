package controllers

import "testing"

// TestK8S_FID_1_APIServerIdentity: kube-apiserver 1.32.13 on host "vm" (the
// refapi kit's) names its identity Lease apiserver-wlv32tlttr4jl3gtroqexyxapa.
func TestK8S_FID_1_APIServerIdentity(t *testing.T) {
	if got, want := APIServerID("vm"), "apiserver-wlv32tlttr4jl3gtroqexyxapa"; got != want {
		t.Fatalf("APIServerID(vm) = %s, want %s", got, want)
	}
}
