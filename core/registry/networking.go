package registry

import "kubeplay/core/object"

// defaultIngressClass is kube's DefaultIngressClass admission: a new
// Ingress that names no class (neither spec.ingressClassName nor the
// deprecated annotation) gets the default IngressClass, the newest when
// several are marked default.
type defaultIngressClass struct{ store *Store }

func (a defaultIngressClass) Admit(op Operation, t Target, obj, _ object.Object) error {
	if op != Create || t.Res.Group != "networking.k8s.io" || t.Res.Plural != "ingresses" || t.Sub != "" {
		return nil
	}
	spec := object.Child(obj, "spec")
	if _, ok := object.StringMap(object.Meta(obj), "annotations")["kubernetes.io/ingress.class"]; ok || spec["ingressClassName"] != nil {
		return nil
	}
	res := a.store.schema.Lookup("networking.k8s.io", "v1", "ingressclasses")
	if best := a.store.newestDefault(res, "ingressclass.kubernetes.io/is-default-class"); best != "" {
		spec["ingressClassName"] = best
	}
	return nil
}
