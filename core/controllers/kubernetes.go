package controllers

import (
	"context"
	"fmt"

	"kubeplay/core/client"
	"kubeplay/core/user"
	"kubeplay/core/version"
	"kubeplay/core/web"
)

// APIServerPort is where the `kubernetes` Service's endpoint, kube-apiserver,
// listens: kubeadm's and kind's port.
const APIServerPort = 6443

// EnsureKubernetesService creates, as kube-apiserver itself does, the
// `kubernetes` Service in default (the API at serviceIP:443) and its
// Endpoints and EndpointSlice (kube-apiserver at endpointIP:6443), those that
// are missing.
func EnsureKubernetesService(ctx context.Context, h web.Handler, serviceIP, endpointIP string) error {
	c := client.New(h, user.APIServer, "kube-apiserver/"+version.Kubernetes+" (kubeplay)")
	objects := []struct{ path, body string }{
		{"/api/v1/namespaces/default/services", fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"kubernetes","labels":{"component":"apiserver","provider":"kubernetes"}},`+
			`"spec":{"type":"ClusterIP","clusterIP":%q,"sessionAffinity":"None","ports":[{"name":"https","port":443,"protocol":"TCP","targetPort":%d}]}}`, serviceIP, APIServerPort)},
		{"/api/v1/namespaces/default/endpoints", fmt.Sprintf(`{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"kubernetes","labels":{"endpointslice.kubernetes.io/skip-mirror":"true"}},`+
			`"subsets":[{"addresses":[{"ip":%q}],"ports":[{"name":"https","port":%d,"protocol":"TCP"}]}]}`, endpointIP, APIServerPort)},
		{"/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", fmt.Sprintf(`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"kubernetes","labels":{"kubernetes.io/service-name":"kubernetes"}},`+
			`"addressType":"IPv4","endpoints":[{"addresses":[%q],"conditions":{"ready":true}}],"ports":[{"name":"https","port":%d,"protocol":"TCP"}]}`, endpointIP, APIServerPort)},
	}
	for _, o := range objects {
		// A GET first: a sandbox restored has them, and a read costs a
		// fraction of a create refused (decoding, defaults, admission and
		// managed fields come before the conflict).
		if _, err := c.Do(ctx, web.MethodGet, o.path+"/kubernetes", "", nil); err == nil {
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
