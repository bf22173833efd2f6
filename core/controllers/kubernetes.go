package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/version"
	"kubeplay/core/web"
)

// APIServerPort is where the `kubernetes` Service's endpoint, kube-apiserver,
// listens: kubeadm's and kind's port.
const APIServerPort = 6443

// apiServerHost is the host name kube-apiserver's identity is made from (a
// sandbox runs on no host of its own).
const apiServerHost = "kubeplay"

// EnsureKubernetesService creates, as kube-apiserver itself does, the
// `kubernetes` Service in default (the API at serviceIP:443) and its
// Endpoints and EndpointSlice (kube-apiserver at endpointIP:6443), and in
// kube-system its identity Lease and the ConfigMap of its legacy token
// tracking, those that are missing. now is the sandbox's first start.
func EnsureKubernetesService(ctx context.Context, h web.Handler, serviceIP, endpointIP string, now time.Time) error {
	c := client.New(h, user.APIServer, "kube-apiserver/"+version.Kubernetes+" (kubeplay)")
	id := APIServerID(apiServerHost)
	objects := []struct{ path, name, body string }{
		{"/api/v1/namespaces/default/services", "kubernetes", fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"kubernetes","labels":{"component":"apiserver","provider":"kubernetes"}},`+
			`"spec":{"type":"ClusterIP","clusterIP":%q,"sessionAffinity":"None","ports":[{"name":"https","port":443,"protocol":"TCP","targetPort":%d}]}}`, serviceIP, APIServerPort)},
		{"/api/v1/namespaces/default/endpoints", "kubernetes", fmt.Sprintf(`{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"kubernetes","labels":{"endpointslice.kubernetes.io/skip-mirror":"true"}},`+
			`"subsets":[{"addresses":[{"ip":%q}],"ports":[{"name":"https","port":%d,"protocol":"TCP"}]}]}`, endpointIP, APIServerPort)},
		{"/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", "kubernetes", fmt.Sprintf(`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"kubernetes","labels":{"kubernetes.io/service-name":"kubernetes"}},`+
			`"addressType":"IPv4","endpoints":[{"addresses":[%q],"conditions":{"ready":true}}],"ports":[{"name":"https","port":%d,"protocol":"TCP"}]}`, endpointIP, APIServerPort)},
		// kube-apiserver's identity (its APIServerIdentity controller), held
		// for an hour; the sandbox does not renew it every 10 s, as nothing
		// ticks in an idle sandbox.
		{"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", id, fmt.Sprintf(`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":%q,`+
			`"labels":{"apiserver.kubernetes.io/identity":"kube-apiserver","kubernetes.io/hostname":%q}},`+
			`"spec":{"holderIdentity":%q,"leaseDurationSeconds":3600,"renewTime":%q}}`, id, apiServerHost, id+"_"+object.NewUID(), now.UTC().Format("2006-01-02T15:04:05.000000Z07:00"))},
		// The day from which kube-apiserver tracks the use of legacy
		// ServiceAccount token Secrets (its legacytokentracking controller).
		{"/api/v1/namespaces/kube-system/configmaps", "kube-apiserver-legacy-service-account-token-tracking", fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap",`+
			`"metadata":{"name":"kube-apiserver-legacy-service-account-token-tracking"},"data":{"since":%q}}`, now.UTC().Format(time.DateOnly))},
	}
	for _, o := range objects {
		// A GET first: a sandbox restored has them, and a read costs a
		// fraction of a create refused (decoding, defaults, admission and
		// managed fields come before the conflict).
		if _, err := c.Do(ctx, web.MethodGet, o.path+"/"+o.name, "", nil); err == nil {
			continue
		} else if !client.IsNotFound(err) {
			return err
		}
		if _, err := c.Do(ctx, web.MethodPost, o.path, "application/json", []byte(o.body)); err != nil && !client.IsConflict(err) {
			return err
		}
	}
	return nil
}

// APIServerID is the identity kube-apiserver takes on host: apiserver- and
// the base32, in lower case, of the first half of the SHA-256 of the host
// name and "kube-apiserver", each after its length in two bytes.
func APIServerID(host string) string {
	var data []byte
	for _, part := range []string{host, "kube-apiserver"} {
		data = binary.BigEndian.AppendUint16(data, uint16(len(part)))
		data = append(data, part...)
	}
	sum := sha256.Sum256(data)
	return "apiserver-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:16]))
}
