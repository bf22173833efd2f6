package kubectl

// This file owns kubectl delete: objects named (TYPE NAME..., TYPE/NAME),
// selected (-l, --all: a list first) or read from files (-f), each DELETEd
// with kubectl's DeleteOptions body (propagationPolicy from --cascade,
// gracePeriodSeconds from --grace-period, --now, --force), "kind "name"
// deleted" printed as each goes, and then, unless --wait=false, kubectl's
// wait for each to be gone: a GET, and if it is still there with its UID, a
// list and a watch by its name until it is deleted.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"net/url"
	"strings"

	"github.com/spf13/pflag"
)

// deleteOptions are delete's flags, as kubectl completes them.
type deleteOptions struct {
	files          filenameFlags
	selector       string
	all            bool
	cascade        string
	gracePeriod    int
	now, force     bool
	ignoreNotFound bool
	wait           bool
	output         string
	dry            dryRun
}

func init() {
	register("delete", func(fs *pflag.FlagSet) runFunc {
		var o deleteOptions
		o.files.add(fs, "containing the resource to delete.")
		fs.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
		fs.BoolVar(&o.all, "all", false, "Delete all resources, in the namespace of the specified resource types.")
		fs.StringVar(&o.cascade, "cascade", "background", `Must be "background", "orphan", or "foreground". Selects the deletion cascading strategy for the dependents (e.g. Pods created by a ReplicationController). Defaults to background.`)
		fs.Lookup("cascade").NoOptDefVal = "background"
		fs.IntVar(&o.gracePeriod, "grace-period", -1, "Period of time in seconds given to the resource to terminate gracefully. Ignored if negative. Set to 1 for immediate shutdown. Can only be set to 0 when --force is true (force deletion).")
		fs.BoolVar(&o.now, "now", false, "If true, resources are signaled for immediate shutdown (same as --grace-period=1).")
		fs.BoolVar(&o.force, "force", false, "If true, immediately remove resources from API and bypass graceful deletion. Note that immediate deletion of some resources may result in inconsistency or data loss and requires confirmation.")
		fs.BoolVar(&o.ignoreNotFound, "ignore-not-found", false, "Treat \"resource not found\" as a successful delete. Defaults to \"true\" when --all is specified.")
		fs.BoolVar(&o.wait, "wait", true, "If true, wait for resources to be gone before returning. This waits for finalizers.")
		output := fs.StringP("output", "o", "", "Output mode. Use \"-o name\" for shorter output (resource/name).")
		dry := addDryRun(fs)
		return func(c *Cmd, args []string) error {
			var err error
			if o.dry, err = dry(); err != nil {
				return err
			}
			o.output = *output
			return c.runDelete(&o, args)
		}
	})
}

func (c *Cmd) runDelete(o *deleteOptions, args []string) error {
	policy, err := cascadePolicy(o.cascade)
	if err != nil {
		return err
	}
	if o.output != "" && o.output != "name" {
		return fmt.Errorf("unexpected -o output mode: %v. We only support '-o name'", o.output)
	}
	if o.all && o.selector != "" {
		return errors.New("setting 'all' parameter but found a non empty selector. ")
	}
	if (o.all || o.selector != "") && !c.fs.Changed("ignore-not-found") {
		o.ignoreNotFound = true
	}
	if o.now {
		if o.gracePeriod != -1 {
			return errors.New("--now and --grace-period cannot be specified together")
		}
		o.gracePeriod = 1
	}
	if o.gracePeriod == 0 && !o.force {
		o.gracePeriod = 1
	}
	if o.force && o.gracePeriod < 0 {
		o.gracePeriod = 0
	}
	if o.force && o.gracePeriod == 0 {
		fmt.Fprintln(c.Stderr, "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.")
	} else if o.force && o.gracePeriod > 0 {
		return errors.New("--force and --grace-period greater than 0 cannot be specified together")
	}
	if len(o.files.Filenames) == 0 && len(args) == 0 {
		return errors.New("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
	}
	targets, errs, err := c.selectTargets(selection{files: o.files, selector: o.selector, all: o.all}, args)
	if err != nil {
		return err
	}
	// metav1.DeleteOptions, in its fields' order.
	body := ordered{}
	if o.gracePeriod >= 0 {
		body = append(body, member{"gracePeriodSeconds", o.gracePeriod})
	}
	body = append(body, member{"propagationPolicy", policy})
	if o.dry == dryRunServer {
		body = append(body, member{"dryRun", []string{"All"}})
	}
	data, err := encodeObject(body)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if o.dry == dryRunClient {
			c.printDeleted(t, o)
			continue
		}
		answer, err := c.Do(&Request{Method: "DELETE", Path: t.Resource.Path(t.Namespace, t.Name),
			Header: [][2]string{{"Accept", "application/json"}, {"Content-Type", "application/json"}}, Body: data})
		if err != nil {
			var se *StatusError
			if o.ignoreNotFound && errors.As(err, &se) && se.Status.Reason == "NotFound" {
				continue
			}
			errs = append(errs, withSource("deleting", t.Source, err))
			continue
		}
		c.printDeleted(t, o)
		t.UID = answerUID(answer)
	}
	if len(targets) == 0 && len(errs) == 0 {
		fmt.Fprintln(c.Stdout, "No resources found")
		return nil
	}
	// kubectl waits for every object it tried (an ignored NotFound's too),
	// and only when none failed.
	if len(errs) > 0 || !o.wait || o.dry != dryRunNone {
		return errs.reduce()
	}
	for _, t := range targets {
		if err := c.waitDeleted(t); err != nil {
			return err
		}
	}
	return nil
}

// cascadePolicy is --cascade's propagation policy.
func cascadePolicy(cascade string) (string, error) {
	switch strings.ToLower(cascade) {
	case "background", "true":
		return "Background", nil
	case "foreground":
		return "Foreground", nil
	case "orphan", "false":
		return "Orphan", nil
	}
	return "", fmt.Errorf(`invalid cascade value (%v). Must be "background", "foreground", or "orphan"`, cascade)
}

// answerUID is the deleted object's UID: the Status's details', or the
// object's.
func answerUID(data []byte) string {
	var a struct {
		Kind    string `json:"kind"`
		Details struct {
			UID string `json:"uid"`
		} `json:"details"`
		Metadata struct {
			UID string `json:"uid"`
		} `json:"metadata"`
	}
	json.Unmarshal(data, &a)
	if a.Kind == "Status" {
		return a.Details.UID
	}
	return a.Metadata.UID
}

func (c *Cmd) printDeleted(t *target, o *deleteOptions) {
	if o.output == "name" {
		fmt.Fprintf(c.Stdout, "%s/%s\n", t.Resource.kindName(), t.Name)
		return
	}
	verb := "deleted"
	if o.gracePeriod == 0 {
		verb = "force deleted"
	}
	fmt.Fprintf(c.Stdout, "%s %q %s%s\n", t.Resource.kindName(), t.Name, verb, o.dry.suffix())
}

// waitDeleted is kubectl's wait for a deleted object (its IsDeleted
// condition): gone when a GET finds nothing or another object of its name,
// else when a watch by its name (after a list) sees it deleted.
func (c *Cmd) waitDeleted(t *target) error {
	accept := [][2]string{{"Accept", "application/json"}}
	data, err := c.Do(&Request{Method: "GET", Path: t.Resource.Path(t.Namespace, t.Name), Header: accept})
	var se *StatusError
	if errors.As(err, &se) && se.Status.Reason == "NotFound" {
		return nil
	}
	if err != nil {
		return err
	}
	if uid := answerUID(data); t.UID != "" && uid != t.UID {
		return nil
	}
	field := "metadata.name=" + t.Name
	data, err = c.Do(&Request{Method: "GET", Path: t.Resource.Path(t.Namespace, ""), Header: accept,
		Query: url.Values{"fieldSelector": {field}, "limit": {"500"}, "resourceVersion": {"0"}}})
	if err != nil {
		return err
	}
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []struct {
			Metadata struct {
				UID string `json:"uid"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return err
	}
	present := false
	for _, it := range list.Items {
		present = present || t.UID == "" || it.Metadata.UID == t.UID
	}
	if !present {
		return nil
	}
	// The reflector's watch timeout: between 5 and 10 minutes.
	timeout := fmt.Sprint(300 + rand.Intn(300))
	resp, err := c.Stream(&Request{Method: "GET", Path: t.Resource.Path(t.Namespace, ""), Header: accept,
		Query: url.Values{"allowWatchBookmarks": {"true"}, "fieldSelector": {field}, "resourceVersion": {list.Metadata.ResourceVersion},
			"timeoutSeconds": {timeout}, "watch": {"true"}}})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.Code/100 != 2 {
		return fmt.Errorf("watching %s %q: %d", t.Resource.Resource, t.Name, resp.Code)
	}
	d := json.NewDecoder(bufio.NewReader(resp.Body))
	for {
		var ev struct {
			Type   string `json:"type"`
			Object struct {
				Metadata struct {
					UID string `json:"uid"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if err := d.Decode(&ev); err != nil {
			if c.Ctx.Err() != nil {
				return c.Ctx.Err()
			}
			return fmt.Errorf("timed out waiting for the condition on %s/%s", t.Resource.Resource, t.Name)
		}
		if ev.Type == "DELETED" && (t.UID == "" || ev.Object.Metadata.UID == t.UID) {
			return nil
		}
	}
}
