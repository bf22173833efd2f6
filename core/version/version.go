// Package version owns the one Kubernetes release kubeplay follows, v1.32.13:
// the version kube-apiserver's /version reports here (with +kubeplay), the
// simulated kubelets', and the user agents of the components that run inside
// a sandbox, so every place a learner reads a version tells the same story.
package version

// Kubernetes is the release whose wire behaviour kubeplay follows, recorded
// against kube-apiserver of the same version.
const Kubernetes = "v1.32.13"

// Major and Minor are Kubernetes' parts, as /version reports them.
const (
	Major = "1"
	Minor = "32"
)

// Server is kube-apiserver's gitVersion here: the release, and kubeplay as
// semantic versioning's build metadata.
const Server = Kubernetes + "+kubeplay"
