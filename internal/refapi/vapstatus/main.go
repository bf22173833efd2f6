//go:build ignore

// Command vapstatus runs kube-controller-manager's ValidatingAdmissionPolicy
// status controller (upstream's validatingadmissionpolicystatus.Controller,
// its type checker and schema resolver wired as cmd/kube-controller-manager
// wires them) against the refapi kit's kube-apiserver, which runs no
// controllers: TestRecordVAPStatusKube (core/sandbox) records the status it
// writes. It links k8s.io/kubernetes, so it builds in the kit's module, not
// kubeplay's:
//
//	mkdir /tmp/vapstatus && cp main.go $KIT/go.mod $KIT/go.sum /tmp/vapstatus
//	cd /tmp/vapstatus && GOFLAGS=-mod=mod go build -o vapstatus main.go
//	./vapstatus $REFAPI_HOME/kubeconfig &   # until the recording is done
package main

import (
	"context"
	"os"
	"time"

	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	pluginvalidatingadmissionpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	k8sscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/kubernetes/pkg/controller/validatingadmissionpolicystatus"
	"k8s.io/kubernetes/pkg/generated/openapi"
)

func main() {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	if err != nil {
		panic(err)
	}
	cfg.UserAgent = "kube-controller-manager/v1.32.13 (linux/amd64) kubernetes/vapstatus/validatingadmissionpolicy-status-controller"
	client := kubernetes.NewForConfigOrDie(cfg)
	disc := memory.NewMemCacheClient(client.Discovery())
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(disc)
	schemaResolver := resolver.NewDefinitionsSchemaResolver(openapi.GetOpenAPIDefinitions, k8sscheme.Scheme, apiextensionsscheme.Scheme).
		Combine(&resolver.ClientDiscoveryResolver{Discovery: client.Discovery()})
	tc := &pluginvalidatingadmissionpolicy.TypeChecker{SchemaResolver: schemaResolver, RestMapper: mapper}
	f := informers.NewSharedInformerFactory(client, 10*time.Minute)
	c, err := validatingadmissionpolicystatus.NewController(f.Admissionregistration().V1().ValidatingAdmissionPolicies(), client.AdmissionregistrationV1().ValidatingAdmissionPolicies(), tc)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	f.Start(ctx.Done())
	c.Run(ctx, 5)
}
