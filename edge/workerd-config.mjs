// The local edge as a workerd config (Cap'n Proto text): the front Worker
// (front.mjs, with the Go control plane),
// the sandbox Worker with its Durable Object classes on local-disk SQLite storage,
// the built playground as a disk service, and (for benchmarks) the floor Worker.
// The front Worker listens on plain HTTP and, given a key pair, on HTTPS too:
// kubectl sends a kubeconfig's bearer token only over TLS.
// Module paths are relative to the config file, which lives in build/edge.

export const COMPATIBILITY_DATE = '2025-09-01';

/**
 * workerdConfig returns the config text.
 *   siteDir, storageDir  absolute directories (the playground, Durable Object storage)
 *   vars                 text bindings of the front Worker (INSTRUCTOR_TOKEN, limits)
 *   sandboxVars          text bindings of the sandbox Worker (UNLOAD_IDLE_SECONDS)
 *   sandboxEntry         path (from build/edge) of a module to run as the sandbox
 *                        Worker's entry in place of sandbox.mjs, which it may import (tests)
 *   floor                also serve the floor Worker on the socket "floor"
 *   tls                  {key, cert} PEM: also serve the front Worker on the socket "https"
 */
export function workerdConfig({ siteDir, storageDir, vars = {}, sandboxVars = {}, sandboxEntry = null, floor = false, tls = null }) {
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "front", worker = .front),
    (name = "sandbox", worker = .sandbox),
    (name = "assets", disk = (path = ${q(siteDir)}, writable = false)),
    (name = "storage", disk = (path = ${q(storageDir)}, writable = true)),${floor ? '\n    (name = "floor", worker = .floor),' : ''}
  ],
  sockets = [
    (name = "http", address = "127.0.0.1:0", http = (), service = "front"),${tls ? `
    (name = "https", address = "127.0.0.1:0", service = "front",
     https = (options = (), tlsOptions = (keypair = (privateKey = ${q(tls.key)}, certificateChain = ${q(tls.cert)})))),` : ''}${floor ? '\n    (name = "floor", address = "127.0.0.1:0", http = (), service = "floor"),' : ''}
  ],
);

const front :Workerd.Worker = (
  modules = [
    (name = "front.mjs", esModule = embed "front/front.mjs"),
    (name = "kube.mjs", esModule = embed "front/kube.mjs"),
    (name = "bridge.mjs", esModule = embed "front/bridge.mjs"),
    (name = "sitepolicy.json", json = embed "front/sitepolicy.json"),
    (name = "worker.mjs", esModule = embed "front/worker.mjs"),
    (name = "runtime.mjs", esModule = embed "front/runtime.mjs"),
    (name = "wasm_exec.js", esModule = embed "front/wasm_exec.js"),
    (name = "app.wasm", wasm = embed "front/app.wasm"),
  ],
  compatibilityDate = "${COMPATIBILITY_DATE}",
  bindings = [
    (name = "SANDBOX", durableObjectNamespace = (className = "Sandbox", serviceName = "sandbox")),
    (name = "LIMITER", durableObjectNamespace = (className = "CreationLimiter", serviceName = "sandbox")),
    (name = "REGISTRY", durableObjectNamespace = (className = "Registry", serviceName = "sandbox")),
    (name = "ASSETS", service = "assets"),
${textBindings(vars)}
  ],
);

const sandbox :Workerd.Worker = (
  modules = [${sandboxEntry ? `\n    (name = "entry.mjs", esModule = embed ${q(sandboxEntry)}),` : ''}
    (name = "sandbox.mjs", esModule = embed "sandbox/sandbox.mjs"),
    (name = "kube.mjs", esModule = embed "sandbox/kube.mjs"),
    (name = "bridge.mjs", esModule = embed "sandbox/bridge.mjs"),
    (name = "wasm_exec.js", esModule = embed "sandbox/wasm_exec.js"),
    (name = "kubeplay.wasm", wasm = embed "sandbox/kubeplay.wasm"),
    (name = "kubeplay-xds.wasm", wasm = embed "sandbox/kubeplay-xds.wasm"),
    (name = "openapi-documents.bin", data = embed "sandbox/openapi-documents.bin"),
  ],
  compatibilityDate = "${COMPATIBILITY_DATE}",
  durableObjectNamespaces = [
    (className = "Sandbox", uniqueKey = "kubeplay-sandbox", enableSql = true),
    (className = "CreationLimiter", uniqueKey = "kubeplay-creation-limiter", enableSql = true),
    (className = "Registry", uniqueKey = "kubeplay-registry", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "storage"),
  bindings = [
${textBindings(sandboxVars)}
  ],
);
${floor ? `
const floor :Workerd.Worker = (
  modules = [
    (name = "worker.mjs", esModule = embed "floor/worker.mjs"),
    (name = "runtime.mjs", esModule = embed "floor/runtime.mjs"),
    (name = "wasm_exec.js", esModule = embed "floor/wasm_exec.js"),
    (name = "app.wasm", wasm = embed "floor/app.wasm"),
  ],
  compatibilityDate = "${COMPATIBILITY_DATE}",
);
` : ''}`;
}

function textBindings(vars) {
  return Object.entries(vars)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([name, value]) => `    (name = ${q(name)}, text = ${q(String(value))}),`)
    .join('\n');
}

function q(s) {
  return JSON.stringify(s);
}
