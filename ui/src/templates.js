// templates.js — example requests for the builder. "{ns}" in a path or body is
// replaced by the namespace field when a template is loaded.

const JSON_HEADERS = [['Accept', 'application/json'], ['Content-Type', 'application/json']];

const configMapYaml = `apiVersion: v1
kind: ConfigMap
metadata:
  name: demo
  namespace: {ns}
  labels:
    app: demo
data:
  greeting: hello
`;

const deploymentJson = JSON.stringify(
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: '{ns}', labels: { app: 'web' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
      },
    },
  },
  null,
  2,
);

const xdsClusterYaml = `apiVersion: xds.kubeplay.dev/v1
kind: Cluster
metadata:
  name: web
spec:
  connectTimeout: 1s
  type: STATIC
  loadAssignment:
    clusterName: web
    endpoints:
    - lbEndpoints:
      - endpoint:
          address:
            socketAddress: {address: 10.0.0.10, portValue: 8080}
# ttl: 30s          # the node drops it unless the server's heartbeats refresh it
# aliases: [web.default]
`;

export const TEMPLATES = [
  { id: 'version', title: 'Server version', spec: { method: 'GET', path: '/version' } },
  {
    id: 'whoami',
    title: 'Who am I (SelfSubjectReview, kubectl auth whoami)',
    spec: { method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', headers: JSON_HEADERS, body: '{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}' },
  },
  { id: 'flowschemas', title: 'API Priority and Fairness: FlowSchemas', spec: { method: 'GET', path: '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas' } },
  { id: 'apf-state', title: 'API Priority and Fairness: levels, queues, flows (kubeplay)', spec: { method: 'GET', path: '/debug/kubeplay/apf' } },
  { id: 'apis', title: 'Discovery: API groups', spec: { method: 'GET', path: '/apis' } },
  { id: 'list-namespaces', title: 'List namespaces', spec: { method: 'GET', path: '/api/v1/namespaces' } },
  { id: 'list-pods', title: 'List pods', spec: { method: 'GET', path: '/api/v1/namespaces/{ns}/pods' } },
  {
    id: 'create-configmap',
    title: 'Create a ConfigMap (YAML body, sent as JSON)',
    spec: { method: 'POST', path: '/api/v1/namespaces/{ns}/configmaps', body: configMapYaml, bodyMode: 'yaml' },
  },
  { id: 'get-configmap', title: 'Get the ConfigMap', spec: { method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps/demo' } },
  {
    id: 'list-configmaps-label',
    title: 'List ConfigMaps by label, 2 per page',
    spec: { method: 'GET', path: '/api/v1/namespaces/{ns}/configmaps', params: [['labelSelector', 'app=demo'], ['limit', '2']] },
  },
  {
    id: 'list-configmaps-table',
    title: 'List ConfigMaps as a Table',
    spec: {
      method: 'GET',
      path: '/api/v1/namespaces/{ns}/configmaps',
      headers: [['Accept', 'application/json;as=Table;v=v1;g=meta.k8s.io']],
    },
  },
  // The four PATCH types (kube tells them apart by Content-Type).
  {
    id: 'json-patch-configmap',
    title: 'PATCH: JSON patch the ConfigMap (RFC 6902, with a test)',
    spec: {
      method: 'PATCH',
      path: '/api/v1/namespaces/{ns}/configmaps/demo',
      headers: [['Accept', 'application/json'], ['Content-Type', 'application/json-patch+json']],
      body: JSON.stringify(
        [
          { op: 'test', path: '/data/greeting', value: 'hello' },
          { op: 'replace', path: '/data/greeting', value: 'hi there' },
          { op: 'add', path: '/metadata/labels/patched', value: 'json' },
        ],
        null,
        2,
      ) + '\n',
    },
  },
  {
    id: 'merge-patch-configmap',
    title: 'PATCH: merge-patch the ConfigMap (RFC 7386; null deletes)',
    spec: {
      method: 'PATCH',
      path: '/api/v1/namespaces/{ns}/configmaps/demo',
      headers: [['Accept', 'application/json'], ['Content-Type', 'application/merge-patch+json']],
      body: '{\n  "data": {\n    "greeting": "hi there"\n  }\n}\n',
    },
  },
  {
    id: 'strategic-patch-deployment',
    title: 'PATCH: strategic-merge-patch the Deployment (containers merged by name)',
    spec: {
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/{ns}/deployments/web',
      headers: [['Accept', 'application/json'], ['Content-Type', 'application/strategic-merge-patch+json']],
      body: JSON.stringify(
        { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } } } },
        null,
        2,
      ) + '\n',
    },
  },
  {
    id: 'scale-deployment',
    title: 'PATCH: scale the Deployment (scale subresource)',
    spec: {
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/{ns}/deployments/web/scale',
      headers: [['Accept', 'application/json'], ['Content-Type', 'application/merge-patch+json']],
      body: '{\n  "spec": {\n    "replicas": 3\n  }\n}\n',
    },
  },
  {
    id: 'apply-configmap',
    title: 'PATCH: server-side apply the ConfigMap',
    spec: {
      method: 'PATCH',
      path: '/api/v1/namespaces/{ns}/configmaps/demo',
      params: [['fieldManager', 'playground']],
      headers: [['Accept', 'application/json'], ['Content-Type', 'application/apply-patch+yaml']],
      body: configMapYaml.replace('greeting: hello', 'greeting: applied'),
      bodyMode: 'yaml',
    },
  },
  {
    id: 'watch-configmaps',
    title: 'Watch ConfigMaps (streams; Stop to end)',
    spec: {
      method: 'GET',
      path: '/api/v1/namespaces/{ns}/configmaps',
      params: [['watch', 'true'], ['allowWatchBookmarks', 'true']],
    },
  },
  { id: 'delete-configmap', title: 'Delete the ConfigMap', spec: { method: 'DELETE', path: '/api/v1/namespaces/{ns}/configmaps/demo' } },
  {
    id: 'create-namespace',
    title: 'Create a namespace',
    spec: { method: 'POST', path: '/api/v1/namespaces', body: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: playground\n', bodyMode: 'yaml' },
  },
  {
    id: 'create-deployment',
    title: 'Create a Deployment',
    spec: { method: 'POST', path: '/apis/apps/v1/namespaces/{ns}/deployments', body: deploymentJson + '\n', bodyMode: 'json' },
  },
  // xDS: the discovery service's resources are API objects (watch the xDS tab).
  {
    id: 'xds-apply-cluster',
    title: 'xDS: apply a Cluster (an Envoy resource as an API object)',
    spec: {
      method: 'PATCH',
      path: '/apis/xds.kubeplay.dev/v1/clusters/web',
      params: [['fieldManager', 'playground'], ['force', 'true']],
      headers: [['Content-Type', 'application/apply-patch+yaml'], ['Accept', 'application/json']],
      body: xdsClusterYaml,
      bodyMode: 'yaml',
    },
  },
  {
    id: 'xds-poll-clusters',
    title: 'xDS: poll every Cluster (REST-JSON, state of the world)',
    spec: { method: 'POST', path: '/v3/discovery:clusters', body: '{\n  "node": {"id": "playground"}\n}\n', bodyMode: 'json' },
  },
  {
    id: 'compact',
    title: 'Compact history (old resourceVersions → 410 Gone)',
    spec: { method: 'POST', path: '/debug/kubeplay/compact', headers: [['Accept', 'application/json']] },
  },
];

/** The template's spec with {ns} filled in and defaults completed. */
export function instantiate(template, ns) {
  const n = ns || 'default';
  const fill = (s) => (typeof s === 'string' ? s.split('{ns}').join(n) : s);
  const s = template.spec;
  return {
    method: s.method,
    path: fill(s.path),
    namespace: n,
    params: (s.params || []).map(([k, v]) => [k, fill(v)]),
    headers: s.headers ? s.headers.map((x) => [...x]) : JSON_HEADERS.map((x) => [...x]),
    body: fill(s.body || ''),
    bodyMode: s.bodyMode || 'json',
  };
}
