package kubectl

// This file owns `kubectl version`: the client's version, kustomize's, and
// the server's from /version (asked afresh each time, as kubectl
// invalidates its cache for it), as text, yaml or json.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"runtime"

	"github.com/spf13/pflag"
)

// versionInfo is apimachinery's version.Info, in its field order.
type versionInfo struct {
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

// kustomizeVersion is the kustomize kubectl 1.32 embeds.
const kustomizeVersion = "v5.5.0"

func init() {
	register("version", func(fs *pflag.FlagSet) runFunc {
		client := fs.Bool("client", false, "If true, shows client version only (no server required).")
		output := fs.StringP("output", "o", "", "One of 'yaml' or 'json'.")
		return func(c *Cmd, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("extra arguments: %v", args)
			}
			if *output != "" && *output != "yaml" && *output != "json" {
				return errors.New(`--output must be 'yaml' or 'json'`)
			}
			var v struct {
				ClientVersion    *versionInfo `json:"clientVersion,omitempty"`
				KustomizeVersion string       `json:"kustomizeVersion,omitempty"`
				ServerVersion    *versionInfo `json:"serverVersion,omitempty"`
			}
			v.ClientVersion = &versionInfo{Major: "1", Minor: minorOf(Version), GitVersion: Version, GitCommit: "kubeplay",
				GitTreeState: "clean", BuildDate: "1970-01-01T00:00:00Z", GoVersion: runtime.Version(), Compiler: "gc", Platform: c.Platform}
			v.KustomizeVersion = kustomizeVersion
			var serverErr error
			if !*client {
				var data []byte
				data, serverErr = c.Do(&Request{Method: "GET", Path: "/version", Query: url.Values{"timeout": {discoveryTimeout}},
					Header: [][2]string{{"Accept", "application/json, */*"}}})
				if serverErr == nil {
					v.ServerVersion = &versionInfo{}
					serverErr = json.Unmarshal(data, v.ServerVersion)
				}
			}
			switch *output {
			case "":
				fmt.Fprintf(c.Stdout, "Client Version: %s\nKustomize Version: %s\n", v.ClientVersion.GitVersion, v.KustomizeVersion)
				if v.ServerVersion != nil {
					fmt.Fprintf(c.Stdout, "Server Version: %s\n", v.ServerVersion.GitVersion)
				}
			case "yaml":
				data, err := toYAML(v)
				if err != nil {
					return err
				}
				fmt.Fprintln(c.Stdout, string(data))
			case "json":
				data, err := json.MarshalIndent(v, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(c.Stdout, string(data))
			}
			return serverErr
		}
	})
}

// minorOf is a version's minor number ("32" of "v1.32.13").
func minorOf(v string) string {
	var major, minor int
	fmt.Sscanf(v, "v%d.%d", &major, &minor)
	return fmt.Sprint(minor)
}
