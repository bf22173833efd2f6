package kubectl

// This file owns kubectl create's generators (create namespace, deployment,
// configmap, secret generic, service clusterip, job, cronjob): the object
// each builds, field for field and in its Go type's field order (what -o
// json prints), created as create -f creates one.
//
// kubectl's typed clients send these objects as protobuf; this package
// sends them as JSON (the same object), to keep core/encoding/protobuf's
// message table out of the module.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// ordered is a JSON object whose keys keep their order, as a Go struct's.
type ordered []member

// member is one of an ordered object's keys and its value.
type member struct {
	k string
	v any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.k)
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// objectMeta is metav1.ObjectMeta's fields in its order, those set.
func objectMeta(name, namespace string, labels, annotations map[string]string, owners []any) ordered {
	m := ordered{}
	if name != "" {
		m = append(m, member{"name", name})
	}
	if namespace != "" {
		m = append(m, member{"namespace", namespace})
	}
	m = append(m, member{"creationTimestamp", nil})
	if len(labels) > 0 {
		m = append(m, member{"labels", labels})
	}
	if len(annotations) > 0 {
		m = append(m, member{"annotations", annotations})
	}
	if len(owners) > 0 {
		m = append(m, member{"ownerReferences", owners})
	}
	return m
}

// generator is one create subcommand: its flags, and the object it builds
// from its NAME (with the namespace kubectl sets only under an explicit -n).
type generator struct {
	resource Resource // kubectl's typed client knows it: no discovery
	failure  string   // the format of a failed create's error: "failed to create deployment: %v" ("" if unwrapped)
	build    func(c *Cmd, name, namespace string) (any, error)
}

// registerGenerator registers "create SUB" (and its aliases: "create ns")
// with its own flags, and the flags every generator has.
func registerGenerator(path string, aliases []string, required []string, flags func(fs *pflag.FlagSet) generator) {
	for _, a := range aliases {
		registerGeneratorAs(a, path, required, flags)
	}
	registerGeneratorAs(path, path, required, flags)
}

func registerGeneratorAs(alias, path string, required []string, flags func(fs *pflag.FlagSet) generator) {
	register(alias, func(fs *pflag.FlagSet) runFunc {
		g := flags(fs)
		dry := addDryRun(fs)
		validate := addValidate(fs)
		output := addPrintFlags(fs, false)
		fieldManager := fs.String("field-manager", "kubectl-create", "Name of the manager used to track field ownership.")
		saveConfig := addSaveConfig(fs)
		return func(c *Cmd, args []string) error {
			if err := requireFlags(c, required...); err != nil {
				return err
			}
			d, err := dry()
			if err != nil {
				return err
			}
			v, err := validate()
			if err != nil {
				return err
			}
			if n := c.fs.ArgsLenAtDash(); n >= 0 {
				args = args[:n]
			}
			if len(args) != 1 {
				return fmt.Errorf("exactly one NAME is required, got %d\nSee 'kubectl %s -h' for help and examples", len(args), path)
			}
			r := g.resource
			obj, err := g.build(c, args[0], c.Namespace)
			if err != nil {
				return err
			}
			if *saveConfig {
				if obj, err = withLastApplied(obj); err != nil {
					return err
				}
			}
			if err := c.createTyped(r, obj, args[0], d, *fieldManager, output, "application/json", v); err != nil {
				var se *StatusError
				if g.failure != "" && errors.As(err, &se) {
					return fmt.Errorf(g.failure, se.Error())
				}
				return err
			}
			return nil
		}
	})
}

// withLastApplied is a built object with its last-applied-configuration
// annotation: the object as its Go type encodes it, in ObjectMeta's place
// for annotations.
func withLastApplied(obj any) (any, error) {
	typed, ok := obj.(ordered)
	if !ok {
		return obj, nil
	}
	value, err := encodeObject(typed)
	if err != nil {
		return nil, err
	}
	out := append(ordered{}, typed...)
	for i, m := range out {
		meta, ok := m.v.(ordered)
		if m.k != "metadata" || !ok {
			continue
		}
		// annotations follow labels (or creationTimestamp) in ObjectMeta.
		at := len(meta)
		for j, f := range meta {
			if f.k == "labels" || f.k == "creationTimestamp" {
				at = j + 1
			}
		}
		annotated := append(append(append(ordered{}, meta[:at]...), member{"annotations", map[string]string{lastApplied: string(value)}}), meta[at:]...)
		out[i] = member{"metadata", annotated}
	}
	return out, nil
}

// createTyped sends an object kubectl builds itself (unless the dry run is
// the client's), encoded as its Go type is, and prints the outcome.
func (c *Cmd) createTyped(r Resource, obj any, name string, d dryRun, fieldManager string, output *printFlags, accept string, v validation) error {
	var result any = obj
	if d != dryRunClient {
		body, err := encodeObject(obj)
		if err != nil {
			return err
		}
		data, err := c.Do(&Request{Method: "POST", Path: r.Path(c.NamespaceOrDefault(), ""), Query: d.query(fieldManager, v),
			Header: [][2]string{{"Accept", accept}, {"Content-Type", "application/json"}}, Body: body})
		if err != nil {
			return err
		}
		if result, err = decodeObject(data); err != nil {
			return err
		}
	}
	return c.printResult(output, r, result, name, "created", d)
}

// containerName is the container kubectl create deployment names after an
// image: its last path element without tag or digest, "_" and "." made
// "-" with a random suffix.
func containerName(image string) string {
	name := image[strings.LastIndex(image, "/")+1:]
	name, _, _ = strings.Cut(name, ":")
	name, _, _ = strings.Cut(name, "@")
	if strings.ContainsAny(name, "_.") {
		name = strings.NewReplacer("_", "-", ".", "-").Replace(name) + "-" + randomSuffix(5)
	}
	return name
}

// randomSuffix is apimachinery's utilrand.String: n of its alphabet.
func randomSuffix(n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rand.Intn(len(alphabet))]
	}
	return string(b)
}

// container is a corev1.Container with kubectl's few fields.
func container(name, image string, command []string, ports []any) ordered {
	c := ordered{{"name", name}, {"image", image}}
	if len(command) > 0 {
		c = append(c, member{"command", command})
	}
	if len(ports) > 0 {
		c = append(c, member{"ports", ports})
	}
	return append(c, member{"resources", ordered{}})
}

// keyedData is a ConfigMap's or Secret's data: the --from-literal values,
// then the --from-file sources ("path" keyed by its base name, or
// "key=path"), each value as encode writes it; dup is the error of a key
// given twice.
func (c *Cmd) keyedData(literals, files []string, dup func(key string) error, encode func([]byte) string) (map[string]string, error) {
	data := map[string]string{}
	add := func(k string, v []byte) error {
		if _, ok := data[k]; ok {
			return dup(k)
		}
		data[k] = encode(v)
		return nil
	}
	for _, l := range literals {
		k, v, err := literal(l)
		if err != nil {
			return nil, err
		}
		if err := add(k, []byte(v)); err != nil {
			return nil, err
		}
	}
	for _, s := range files {
		key, path, ok := strings.Cut(s, "=")
		if !ok {
			key, path = filepath.Base(s), s
		}
		v, err := c.readFile(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("error reading %s: no such file or directory", path)
			}
			return nil, fmt.Errorf("error reading %s: %v", path, err)
		}
		if err := add(key, v); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// literal splits a --from-literal "key=value".
func literal(s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return "", "", fmt.Errorf("invalid literal source %v, expected key=value", s)
	}
	return k, v, nil
}

func init() {
	registerGenerator("create namespace", []string{"create ns"}, nil, func(fs *pflag.FlagSet) generator {
		return generator{resource: Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}, build: func(c *Cmd, name, _ string) (any, error) {
			return ordered{{"kind", "Namespace"}, {"apiVersion", "v1"}, {"metadata", objectMeta(name, "", nil, nil, nil)},
				{"spec", ordered{}}, {"status", ordered{}}}, nil
		}}
	})
	registerGenerator("create deployment", []string{"create deploy"}, []string{"image"}, func(fs *pflag.FlagSet) generator {
		images := fs.StringSlice("image", nil, "Image names to run. A deployment can have multiple images set for multi-container pod.")
		replicas := fs.Int32P("replicas", "r", 1, "Number of replicas to create. Default is 1.")
		port := fs.Int32("port", -1, "The containerPort that this deployment exposes.")
		return generator{resource: Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}, failure: "failed to create deployment: %v", build: func(c *Cmd, name, ns string) (any, error) {
			command := dashArgs(c)
			if len(*images) > 1 && len(command) > 0 {
				return nil, errors.New("cannot specify multiple --image options and command")
			}
			labels := map[string]string{"app": name}
			var containers []any
			for i, img := range *images {
				var ports []any
				if i == 0 && *port >= 0 {
					ports = []any{ordered{{"containerPort", *port}}}
				}
				containers = append(containers, container(containerName(img), img, command, ports))
			}
			spec := ordered{{"replicas", *replicas}, {"selector", ordered{{"matchLabels", labels}}},
				{"template", ordered{{"metadata", objectMeta("", "", labels, nil, nil)}, {"spec", ordered{{"containers", containers}}}}},
				{"strategy", ordered{}}}
			return ordered{{"kind", "Deployment"}, {"apiVersion", "apps/v1"}, {"metadata", objectMeta(name, ns, labels, nil, nil)},
				{"spec", spec}, {"status", ordered{}}}, nil
		}}
	})
	registerGenerator("create configmap", []string{"create cm"}, nil, func(fs *pflag.FlagSet) generator {
		files := fs.StringSlice("from-file", nil, "Key file can be specified using its file path, in which case file basename will be used as configmap key, or optionally with a key and file path, in which case the given key will be used.  Specifying a directory will iterate each named file in the directory whose basename is a valid configmap key.")
		literals := fs.StringArray("from-literal", nil, "Specify a key and literal value to insert in configmap (i.e. mykey=somevalue)")
		return generator{resource: Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}, failure: "failed to create configmap: %v", build: func(c *Cmd, name, ns string) (any, error) {
			data, err := c.keyedData(*literals, *files, func(k string) error {
				return fmt.Errorf("cannot add key %q, another key by that name already exists in Data for ConfigMap %q", k, name)
			}, func(v []byte) string { return string(v) })
			if err != nil {
				return nil, err
			}
			obj := ordered{{"kind", "ConfigMap"}, {"apiVersion", "v1"}, {"metadata", objectMeta(name, ns, nil, nil, nil)}}
			if len(data) > 0 {
				obj = append(obj, member{"data", data})
			}
			return obj, nil
		}}
	})
	registerGenerator("create secret generic", nil, nil, func(fs *pflag.FlagSet) generator {
		files := fs.StringSlice("from-file", nil, "Key files can be specified using their file path, in which case a default name will be given to them, or optionally with a name and file path, in which case the given name will be used.  Specifying a directory will iterate each named file in the directory that is a valid secret key.")
		literals := fs.StringArray("from-literal", nil, "Specify a key and literal value to insert in secret (i.e. mykey=somevalue)")
		typ := fs.String("type", "", "The type of secret to create")
		return generator{resource: Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}, failure: "failed to create secret %v", build: func(c *Cmd, name, ns string) (any, error) {
			data, err := c.keyedData(*literals, *files, func(k string) error {
				return fmt.Errorf("cannot add key %s, another key by that name already exists", k)
			}, base64.StdEncoding.EncodeToString)
			if err != nil {
				return nil, err
			}
			obj := ordered{{"kind", "Secret"}, {"apiVersion", "v1"}, {"metadata", objectMeta(name, ns, nil, nil, nil)}}
			if len(data) > 0 {
				obj = append(obj, member{"data", data})
			}
			if *typ != "" {
				obj = append(obj, member{"type", *typ})
			}
			return obj, nil
		}}
	})
	registerGenerator("create service clusterip", []string{"create svc clusterip"}, nil, func(fs *pflag.FlagSet) generator {
		tcp := fs.StringSlice("tcp", nil, "Port pairs can be specified as '<port>:<targetPort>'.")
		clusterIP := fs.String("clusterip", "", "Assign your own ClusterIP or set to 'None' for a 'headless' service (no loadbalancing).")
		return generator{resource: Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}, failure: "failed to create ClusterIP service: %v", build: func(c *Cmd, name, ns string) (any, error) {
			if len(*tcp) == 0 && *clusterIP != "None" {
				return nil, errors.New("at least one tcp port specifier must be provided")
			}
			var ports []any
			for _, t := range *tcp {
				port, target, err := servicePorts(t)
				if err != nil {
					return nil, err
				}
				ports = append(ports, ordered{{"name", strings.ReplaceAll(t, ":", "-")}, {"protocol", "TCP"}, {"port", port}, {"targetPort", target}})
			}
			labels := map[string]string{"app": name}
			spec := ordered{}
			if len(ports) > 0 {
				spec = append(spec, member{"ports", ports})
			}
			spec = append(spec, member{"selector", labels})
			if *clusterIP != "" {
				spec = append(spec, member{"clusterIP", *clusterIP})
			}
			spec = append(spec, member{"type", "ClusterIP"})
			return ordered{{"kind", "Service"}, {"apiVersion", "v1"}, {"metadata", objectMeta(name, ns, labels, nil, nil)},
				{"spec", spec}, {"status", ordered{{"loadBalancer", ordered{}}}}}, nil
		}}
	})
	registerGenerator("create job", nil, nil, func(fs *pflag.FlagSet) generator {
		image := fs.String("image", "", "Image name to run.")
		from := fs.String("from", "", "The name of the resource to create a Job from (only cronjob is supported).")
		return generator{resource: Resource{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true}, failure: "failed to create job: %v", build: func(c *Cmd, name, ns string) (any, error) {
			command := dashArgs(c)
			switch {
			case *image == "" && *from == "":
				return nil, errors.New("either --image or --from must be specified")
			case *from != "" && len(command) > 0:
				return nil, errors.New("cannot specify --from and command")
			case *from != "":
				return c.jobFromCronJob(*from, name, ns)
			}
			template := ordered{{"metadata", objectMeta("", "", nil, nil, nil)},
				{"spec", ordered{{"containers", []any{container(name, *image, command, nil)}}, {"restartPolicy", "Never"}}}}
			return ordered{{"kind", "Job"}, {"apiVersion", "batch/v1"}, {"metadata", objectMeta(name, ns, nil, nil, nil)},
				{"spec", ordered{{"template", template}}}, {"status", ordered{}}}, nil
		}}
	})
	registerGenerator("create cronjob", []string{"create cj"}, []string{"schedule"}, func(fs *pflag.FlagSet) generator {
		image := fs.String("image", "", "Image name to run.")
		schedule := fs.String("schedule", "", "A schedule in the Cron format the job should be run with.")
		restart := fs.String("restart", "", "job's restart policy. supported values: OnFailure, Never")
		return generator{resource: Resource{Group: "batch", Version: "v1", Resource: "cronjobs", Kind: "CronJob", Namespaced: true}, failure: "failed to create cronjob: %v", build: func(c *Cmd, name, ns string) (any, error) {
			policy := *restart
			if policy == "" {
				policy = "OnFailure"
			}
			template := ordered{{"metadata", objectMeta("", "", nil, nil, nil)},
				{"spec", ordered{{"containers", []any{container(name, *image, dashArgs(c), nil)}}, {"restartPolicy", policy}}}}
			jobTemplate := ordered{{"metadata", objectMeta(name, "", nil, nil, nil)}, {"spec", ordered{{"template", template}}}}
			return ordered{{"kind", "CronJob"}, {"apiVersion", "batch/v1"}, {"metadata", objectMeta(name, ns, nil, nil, nil)},
				{"spec", ordered{{"schedule", *schedule}, {"jobTemplate", jobTemplate}}}, {"status", ordered{}}}, nil
		}}
	})
}

// dashArgs is the command after "--".
func dashArgs(c *Cmd) []string {
	if i := c.fs.ArgsLenAtDash(); i >= 0 {
		return c.fs.Args()[i:]
	}
	return nil
}

// servicePorts parses "port[:targetPort]".
func servicePorts(s string) (int, any, error) {
	p, t, hasTarget := strings.Cut(s, ":")
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return 0, nil, fmt.Errorf("invalid port %q", p)
	}
	if !hasTarget {
		return port, port, nil
	}
	if n, err := strconv.Atoi(t); err == nil {
		if n < 1 || n > 65535 {
			return 0, nil, errors.New("must be between 1 and 65535, inclusive")
		}
		return port, n, nil
	}
	return port, t, nil
}

// jobFromCronJob is create job --from=cronjob/NAME: the CronJob's job
// template, owned by it, annotated as instantiated by hand.
func (c *Cmd) jobFromCronJob(from, name, ns string) (any, error) {
	typ, cjName, ok := strings.Cut(from, "/")
	if !ok {
		return nil, errors.New("from must be an existing cronjob")
	}
	r, err := c.Resolve(typ)
	if err != nil {
		return nil, err
	}
	if r.Kind != "CronJob" {
		return nil, fmt.Errorf("unknown object type %s", r.Kind)
	}
	data, err := c.Do(&Request{Method: "GET", Path: r.Path(c.NamespaceOrDefault(), cjName),
		Header: [][2]string{{"Accept", "application/json"}}})
	if err != nil {
		return nil, err
	}
	var cj struct {
		Metadata struct {
			Name string `json:"name"`
			UID  string `json:"uid"`
		} `json:"metadata"`
		Spec struct {
			JobTemplate struct {
				Metadata struct {
					Labels      map[string]string `json:"labels"`
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
				Spec json.RawMessage `json:"spec"`
			} `json:"jobTemplate"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(data, &cj); err != nil {
		return nil, err
	}
	annotations := map[string]string{"cronjob.kubernetes.io/instantiate": "manual"}
	for k, v := range cj.Spec.JobTemplate.Metadata.Annotations {
		annotations[k] = v
	}
	owner := ordered{{"apiVersion", "batch/v1"}, {"kind", "CronJob"}, {"name", cj.Metadata.Name}, {"uid", cj.Metadata.UID}, {"controller", true}}
	return ordered{{"kind", "Job"}, {"apiVersion", "batch/v1"},
		{"metadata", objectMeta(name, ns, cj.Spec.JobTemplate.Metadata.Labels, annotations, []any{owner})},
		{"spec", cj.Spec.JobTemplate.Spec}, {"status", ordered{}}}, nil
}
