package kubectl

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/pflag"
)

func init() {
	register("version", func(fs *pflag.FlagSet) runFunc {
		client := fs.Bool("client", false, "If true, shows client version only (no server required).")
		return func(c *Cmd, args []string) error {
			fmt.Fprintf(c.Stdout, "Client Version: %s\nKustomize Version: v5.5.0\n", Version)
			if *client {
				return nil
			}
			data, err := c.Do(&Request{Method: "GET", Path: "/version", Header: [][2]string{{"Accept", "application/json, */*"}}})
			if err != nil {
				return err
			}
			var v struct {
				GitVersion string `json:"gitVersion"`
			}
			if err := json.Unmarshal(data, &v); err != nil {
				return err
			}
			fmt.Fprintf(c.Stdout, "Server Version: %s\n", v.GitVersion)
			return nil
		}
	})
}
