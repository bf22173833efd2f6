package kubectl

// This file owns `kubectl cluster-info`: the control plane's URL and the
// kube-system Services labelled kubernetes.io/cluster-service=true with
// their proxy URLs, and kubectl's closing hint.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

func init() {
	register("cluster-info dump", func(fs *pflag.FlagSet) runFunc {
		return func(c *Cmd, args []string) error {
			return errors.New("cluster-info dump is not available in this kubectl: it writes every object and Pod log of the cluster")
		}
	})
	register("cluster-info", func(fs *pflag.FlagSet) runFunc {
		return func(c *Cmd, args []string) error {
			ns := c.Namespace
			if ns == "" {
				ns = "kube-system"
			}
			data, err := c.Do(&Request{Method: "GET", Path: "/api/v1/namespaces/" + ns + "/services",
				Query: url.Values{"labelSelector": {"kubernetes.io/cluster-service=true"}}, Header: [][2]string{{"Accept", acceptTypedAny}}})
			if err == nil {
				err = c.printClusterInfo(data)
			}
			fmt.Fprint(c.Stdout, "\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n")
			return err
		}
	})
}

func (c *Cmd) printClusterInfo(data []byte) error {
	var list struct {
		Items []struct {
			Metadata struct {
				Name      string            `json:"name"`
				Namespace string            `json:"namespace"`
				Labels    map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				Ports []struct {
					Name string `json:"name"`
					Port int    `json:"port"`
				} `json:"ports"`
			} `json:"spec"`
			Status struct {
				LoadBalancer struct {
					Ingress []struct {
						IP       string `json:"ip"`
						Hostname string `json:"hostname"`
					} `json:"ingress"`
				} `json:"loadBalancer"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return err
	}
	host := strings.TrimRight(c.Server, "/")
	fmt.Fprintf(c.Stdout, "Kubernetes control plane is running at %s\n", host)
	for _, s := range list.Items {
		var link string
		if ing := s.Status.LoadBalancer.Ingress; len(ing) > 0 {
			ip := ing[0].IP
			if ip == "" {
				ip = ing[0].Hostname
			}
			for _, p := range s.Spec.Ports {
				link += "http://" + ip + ":" + strconv.Itoa(p.Port) + " "
			}
		} else {
			name := s.Metadata.Name
			if len(s.Spec.Ports) > 0 {
				p := s.Spec.Ports[0]
				scheme := ""
				if p.Name == "https" || p.Port == 443 {
					scheme = "https"
				}
				// utilnet.JoinSchemeNamePort
				switch {
				case scheme != "":
					name = scheme + ":" + name + ":" + p.Name
				case p.Name != "":
					name = name + ":" + p.Name
				}
			}
			link = host + "/api/v1/namespaces/" + s.Metadata.Namespace + "/services/" + name + "/proxy"
		}
		name := s.Metadata.Labels["kubernetes.io/name"]
		if name == "" {
			name = s.Metadata.Name
		}
		fmt.Fprintf(c.Stdout, "%s is running at %s\n", name, link)
	}
	return nil
}
