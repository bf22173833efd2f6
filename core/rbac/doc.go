// Package rbac owns who may do what, as kube-apiserver's RBAC authorizer
// decides it: the rules of Roles and ClusterRoles, the subjects of their
// bindings, a request's attributes matched against them (verbs, API groups,
// resources and subresources, names, non-resource paths), the rules a user
// holds in a namespace and whether they cover others (the escalation check
// of the RBAC kinds' storage), the rules an aggregated ClusterRole gathers,
// and the bootstrap policy kube-apiserver creates when it starts.
//
// A Policy is built from the stored objects (core/registry keeps one
// current) and answers from them; the filters that ask it are core/auth's.
// The clusterrole aggregation controller runs here too, as a client of the
// API (the server may run clients, as kube-apiserver runs client-go).
package rbac
