// Package version owns the one Kubernetes release kubeplay follows, v1.32.13:
// the version kube-apiserver's /version reports here (with +kubeplay), the
// simulated kubelets', and the user agents of the components that run inside
// a sandbox, so every place a learner reads a version tells the same story;
// and the version document (Info) /version serves and kubectl version prints.
package version

import "runtime"

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

// Info is apimachinery's version.Info, in its field order: the /version
// document, and kubectl version's clientVersion and serverVersion.
type Info struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

// NewInfo is the Info of a kubeplay component at gitVersion running on
// platform ("linux/amd64"): this release's major and minor, built by this
// Go from a clean tree at no particular date.
func NewInfo(gitVersion, platform string) Info {
	return Info{
		Major: Major, Minor: Minor, GitVersion: gitVersion, GitCommit: "kubeplay",
		GitTreeState: "clean", BuildDate: "1970-01-01T00:00:00Z", GoVersion: runtime.Version(),
		Compiler: runtime.Compiler, Platform: platform,
	}
}
