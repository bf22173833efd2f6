// Package core is kubeplay: everything that answers a Kubernetes API request,
// with nothing that knows where it runs. Its packages form layers, bottom-up;
// a package imports only its own layer and those below it (layers_test.go
// holds them to it):
//
//   - API machinery, the leaves every other layer shares: objects and their
//     fields, selectors, quantities, Status errors, identities, the clock, the
//     HTTP surface (web), the served resources' definitions (api) and the
//     built-in kinds' Go types (types), their encodings (and gzip made of
//     pieces compressed once, gzipjoin) and their rules
//     (validation, conversion, quota's arithmetic), the list algebra of
//     strategic merge patches that server and client share (patch/lists),
//     client-go's JSONPath (jsonpath: CRD printer columns and kubectl's -o
//     jsonpath), and the request log;
//   - storage: the revisioned store, its history, watches and persistence,
//     and a sandbox's export file of it (export);
//   - the server: the registry (reads and writes of every kind) and the
//     admission it runs (kube's plugins, the admission webhooks), the
//     kinds' descriptors, defaults, patch and apply, authentication, API
//     Priority and Fairness, CustomResourceDefinitions, OpenAPI, the
//     revision timeline (who changed what, from history and the request
//     log), the share document (the objects a sandbox's clients made), and
//     apiserver, the HTTP surface that composes them;
//   - the clients of the API: the in-process client, the controllers, the
//     simulated cluster, its metrics-server, the xDS discovery service and
//     the page's kubectl.
//     They reach the server only through requests, as kube's do through
//     client-go, so they import no server package (the server may run a
//     client: APF's configuration controller, the CRD controller, the
//     aggregator's metrics-server);
//   - sandbox, which assembles one of each for a host.
package core
