package encoding

import "sigs.k8s.io/yaml"

// JSONToYAML renders a JSON document as kube-apiserver's YAML serializer does:
// through sigs.k8s.io/yaml, so map keys come out sorted.
func JSONToYAML(doc []byte) ([]byte, error) { return yaml.JSONToYAML(doc) }

// YAMLToJSON reads a YAML request body (its first document) as JSON, as
// kube-apiserver's YAML decoder does. The parser refuses documents whose aliases
// expand excessively ("billion laughs"), so a small body cannot blow up memory.
func YAMLToJSON(doc []byte) ([]byte, error) { return yaml.YAMLToJSON(doc) }

// YAMLStrictError is what kube's strict read of a YAML body
// (sigs.k8s.io/yaml's YAMLToJSONStrict) finds in doc, which YAMLToJSON read:
// the keys given twice in a mapping, as one error listing them by line
// ("yaml: unmarshal errors:\n  line 8: key \"a\" already set in map"), or nil.
func YAMLStrictError(doc []byte) error {
	_, err := yaml.YAMLToJSONStrict(doc)
	return err
}
