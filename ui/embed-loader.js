// embed.js — put kubeplay in any page (LEARN-4): one tutorial, one exercise
// or a sandbox with a terminal, in a frame from the kubeplay site this
// script comes from. Where the script is, it writes
//
//   <script src="https://KUBEPLAY/embed.js" data-tutorial="what-kubectl-sends"></script>
//   <script src="https://KUBEPLAY/embed.js" data-exercise="deployment-replicas" data-height="720"></script>
//   <script src="https://KUBEPLAY/embed.js" data-terminal data-manifest="https://docs.example/app.yaml"></script>
//
// an <iframe> of KUBEPLAY/embed/ with the same choice (data-cluster=
// "simulated" too). The frame runs its own in-browser sandbox, which the
// browser keeps apart from every other site's; it cannot reach this page,
// nor this page it. The same frame can be written by hand:
//   <iframe src="https://KUBEPLAY/embed/?tutorial=ID" width="100%" height="640"></iframe>
(function () {
  var script = document.currentScript;
  if (!script) return;
  var d = script.dataset;
  var q = new URLSearchParams();
  if (d.tutorial) q.set('tutorial', d.tutorial);
  else if (d.exercise) q.set('exercise', d.exercise);
  else q.set('terminal', '');
  if (d.manifest) q.set('manifest', new URL(d.manifest, document.baseURI).href);
  if (d.cluster) q.set('cluster', d.cluster);
  var frame = document.createElement('iframe');
  frame.src = new URL('/embed/?' + q.toString(), script.src).href;
  frame.title = d.title || 'kubeplay: the Kubernetes API in your browser';
  frame.width = '100%';
  frame.height = d.height || '640';
  frame.loading = 'lazy';
  frame.allow = 'clipboard-write';
  // Its own origin's scripts and storage (the sandbox's service worker),
  // links opened in a new tab; never this page's navigation.
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox');
  frame.style.border = '1px solid #d1d5db';
  frame.style.borderRadius = '6px';
  frame.className = 'kubeplay-embed';
  // After the script; in the body when the script is in the head.
  if (script.parentNode !== document.head) script.parentNode.insertBefore(frame, script.nextSibling);
  else if (document.body) document.body.insertBefore(frame, document.body.firstChild);
  else document.addEventListener('DOMContentLoaded', function () { document.body.insertBefore(frame, document.body.firstChild); });
})();
