// Package bootstrap owns API Priority and Fairness's built-in configuration:
// the mandatory objects (the exempt and catch-all PriorityLevelConfigurations
// and FlowSchemas, whose specs no one may change) and the suggested ones
// (node-high, system, leader-election, workload-high, workload-low,
// global-default and their FlowSchemas), as kube-apiserver 1.32 writes them.
//
// bootstrap.json is kube's own: recorded from kube-apiserver 1.32.13 right
// after start (its `source` field says how), so the objects are already
// defaulted as kube stores them. The registry checks mandatory specs against it;
// core/flowcontrol's ensurer creates and maintains the objects from it.
package bootstrap

import (
	_ "embed"
	"encoding/json"

	"kubeplay/core/object"
)

// The names kube gives the mandatory objects, and the annotation that says
// whether kube-apiserver maintains an object's spec.
const (
	Exempt               = "exempt"
	CatchAll             = "catch-all"
	AutoUpdateAnnotation = "apf.kubernetes.io/autoupdate-spec"
)

//go:embed bootstrap.json
var data []byte

// config is bootstrap.json's objects, read as every stored object is read
// (object.Decode: numbers stay exact).
var config = func() (c struct{ mandatoryPL, mandatoryFS, suggestedPL, suggestedFS []object.Object }) {
	var raw map[string]json.RawMessage // the lists, and the source's description
	if err := json.Unmarshal(data, &raw); err != nil {
		panic("bootstrap.json: " + err.Error())
	}
	decode := func(key string) []object.Object {
		var list []json.RawMessage
		if err := json.Unmarshal(raw[key], &list); err != nil {
			panic("bootstrap.json: " + err.Error())
		}
		var out []object.Object
		for _, r := range list {
			o, err := object.Decode(r)
			if err != nil {
				panic("bootstrap.json: " + err.Error())
			}
			out = append(out, o)
		}
		return out
	}
	c.mandatoryPL, c.mandatoryFS = decode("mandatoryPriorityLevelConfigurations"), decode("mandatoryFlowSchemas")
	c.suggestedPL, c.suggestedFS = decode("suggestedPriorityLevelConfigurations"), decode("suggestedFlowSchemas")
	return c
}()

// Kinds of the configuration objects.
const (
	FlowSchema                 = "FlowSchema"
	PriorityLevelConfiguration = "PriorityLevelConfiguration"
)

// Mandatory returns deep copies of the mandatory objects of kind, in kube's order.
func Mandatory(kind string) []object.Object {
	if kind == FlowSchema {
		return copies(config.mandatoryFS)
	}
	return copies(config.mandatoryPL)
}

// Suggested returns deep copies of the suggested objects of kind, in kube's order.
func Suggested(kind string) []object.Object {
	if kind == FlowSchema {
		return copies(config.suggestedFS)
	}
	return copies(config.suggestedPL)
}

// MandatorySpec is the fixed spec of the mandatory object of kind named name,
// or nil when name is not mandatory.
func MandatorySpec(kind, name string) map[string]any {
	for _, o := range Mandatory(kind) {
		if object.MetaString(o, "name") == name {
			spec, _ := o["spec"].(map[string]any)
			return spec
		}
	}
	return nil
}

func copies(objs []object.Object) []object.Object {
	out := make([]object.Object, len(objs))
	for i, o := range objs {
		out[i] = object.DeepCopy(o)
	}
	return out
}
