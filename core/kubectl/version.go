package kubectl

// This file owns `kubectl version`: the client's version, kustomize's, and
// the server's from /version (asked afresh each time, as kubectl
// invalidates its cache for it), as text, yaml or json.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/spf13/pflag"

	"kubeplay/core/version"
)

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
				ClientVersion    *version.Info `json:"clientVersion,omitempty"`
				KustomizeVersion string        `json:"kustomizeVersion,omitempty"`
				ServerVersion    *version.Info `json:"serverVersion,omitempty"`
			}
			info := version.NewInfo(Version, c.Platform)
			v.ClientVersion = &info
			v.KustomizeVersion = kustomizeVersion
			var serverErr error
			if !*client {
				var data []byte
				data, serverErr = c.Do(&Request{Method: "GET", Path: "/version", Query: url.Values{"timeout": {discoveryTimeout}},
					Header: [][2]string{{"Accept", acceptTypedAny}}})
				if serverErr == nil {
					v.ServerVersion = &version.Info{}
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
