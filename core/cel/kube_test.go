package cel

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	kubecel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	kubeenv "k8s.io/apiserver/pkg/cel/environment"

	"kubeplay/core/object"
)

// kubeStructural is schema as kube's structural schema.
func kubeStructural(t *testing.T, schema string) *structuralschema.Structural {
	t.Helper()
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(schema), &v1); err != nil {
		t.Fatal(err)
	}
	var internal apiextensionsinternal.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		t.Fatal(err)
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// kubeValue is a JSON document as kube's unstructured objects hold it.
func kubeValue(t *testing.T, doc string) map[string]any {
	t.Helper()
	if doc == "" {
		return nil
	}
	var v map[string]any
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return toKube(v).(map[string]any)
}

func toKube(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = toKube(e)
		}
	case []any:
		for i, e := range v {
			v[i] = toKube(e)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

var selfTypeNumber = regexp.MustCompile(`selfType\d+`)

// TestRulesAsKube evaluates rules as k8s.io/apiextensions-apiserver's CEL
// validator does: the same errors, in the same words, and the same
// estimated costs.
func TestRulesAsKube(t *testing.T) {
	const spec = `"replicas":{"type":"integer"},"max":{"type":"integer"},"name":{"type":"string","maxLength":63},` +
		`"tags":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":20}},"free":{"type":"array","items":{"type":"string"}},` +
		`"labels":{"type":"object","additionalProperties":{"type":"string"}},"size":{"x-kubernetes-int-or-string":true},` +
		`"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer"}}}},` +
		`"set":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},"when":{"type":"string","format":"date-time"},` +
		`"timeout":{"type":"string","format":"duration"},"ratio":{"type":"number"},"mem":{"type":"string"},"addr":{"type":"string"},"url":{"type":"string"},"x-y":{"type":"string"}`
	const obj = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default"},"spec":{"replicas":5,"max":3,"name":"Web","tags":["a","b","a"],` +
		`"free":["x1","y2"],"labels":{"app":"web"},"size":"10%","ports":[{"name":"http","port":80},{"name":"https","port":443}],"set":["a","b"],` +
		`"when":"2024-01-02T03:04:05Z","timeout":"90s","ratio":0.5,"mem":"1Gi","addr":"10.0.0.1","url":"https://example.com:8443/a/b?x=1&x=2","x-y":"dash"}}`
	const old = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default"},"spec":{"replicas":2,"max":3,"name":"Web","tags":["a"],` +
		`"free":[],"labels":{},"size":1,"ports":[{"name":"https","port":443},{"name":"http","port":80}],"set":["b","a"],"when":"2024-01-02T03:04:05Z","timeout":"1m","ratio":1,"mem":"512Mi","addr":"10.0.0.2","url":"http://x","x-y":"dash"}}`
	// a list long enough that a rule over all its triples costs more than
	// a call may
	big := strings.Replace(obj, `"free":["x1","y2"]`, `"free":[`+strings.Repeat(`"x1",`, 299)+`"y2"]`, 1)
	rules := []string{
		`{"rule":"self.replicas <= self.max","message":"replicas must not exceed max"}`,
		`{"rule":"self.replicas <= self.max","messageExpression":"'replicas ' + string(self.replicas) + ' over ' + string(self.max)"}`,
		`{"rule":"self.replicas <= self.max","messageExpression":"self.name","reason":"FieldValueForbidden","fieldPath":".replicas"}`,
		`{"rule":"self.replicas >= oldSelf.replicas","message":"may not scale down"}`,
		`{"rule":"!oldSelf.hasValue() || self.max == oldSelf.value().max","optionalOldSelf":true}`,
		`{"rule":"oldSelf.hasValue() && self.name == oldSelf.value().name","optionalOldSelf":true,"message":"name is immutable"}`,
		`{"rule":"self.tags.isSorted() && self.tags.indexOf('b') == 1 && self.tags.lastIndexOf('a') == 2"}`,
		`{"rule":"[1,2,3].sum() == 6 && self.tags.min() == 'a' && self.tags.max() == 'b' && [1.5, 0.5].min() == 0.5"}`,
		`{"rule":"self.name.lowerAscii() == 'web' && self.name.upperAscii() == 'WEB' && self.name.substring(1) == 'eb' && 'a,b'.split(',').size() == 2"}`,
		`{"rule":"self.name.find('[A-Z]') == 'W' && self.free.all(f, f.findAll('[0-9]').size() == 1)"}`,
		`{"rule":"self.labels.all(k, k.matches('^[a-z]+$')) && 'app' in self.labels && self.labels['app'] == 'web'"}`,
		`{"rule":"type(self.size) == string ? self.size.endsWith('%') : self.size > 0"}`,
		`{"rule":"self.ports.exists(p, p.name == 'http' && p.port == 80) && self.ports.map(p, p.port).sum() == 523"}`,
		`{"rule":"self.ports == oldSelf.ports && self.set == oldSelf.set","message":"same ports"}`,
		`{"rule":"self.when < timestamp('2025-01-01T00:00:00Z') && self.timeout == duration('90s') && self.ratio < 1.0"}`,
		`{"rule":"quantity(self.mem).isGreaterThan(quantity('512Mi')) && quantity(self.mem).asInteger() == 1073741824 && isQuantity('1.5') && quantity('1.5').asApproximateFloat() == 1.5 && quantity('100m').add(quantity('200m')) == quantity('300m') && sign(quantity('1').sub(2)) == -1"}`,
		`{"rule":"isIP(self.addr) && ip(self.addr).family() == 4 && cidr('10.0.0.0/8').containsIP(self.addr) && cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && !ip('10.0.0.1').isLoopback() && ip.isCanonical('10.0.0.1') && cidr('10.0.0.1/8').masked() == cidr('10.0.0.0/8') && cidr('10.0.0.0/8').prefixLength() == 8 && string(ip('::1')) == '::1'"}`,
		`{"rule":"isURL(self.url) && url(self.url).getHostname() == 'example.com' && url(self.url).getPort() == '8443' && url(self.url).getScheme() == 'https' && url(self.url).getEscapedPath() == '/a/b' && url(self.url).getQuery()['x'] == ['1', '2'] && url(self.url).getHost() == 'example.com:8443'"}`,
		`{"rule":"!format.dns1123Label().validate(self.name).hasValue()","messageExpression":"format.dns1123Label().validate(self.name).value().join(', ')"}`,
		`{"rule":"format.named('uuid').hasValue() && format.uuid().validate('x').hasValue() && !format.labelValue().validate('ok').hasValue()"}`,
		`{"rule":"sets.contains(self.tags, ['a']) && sets.intersects(self.tags, ['b']) && self.x__dash__y == 'dash'"}`,
		`{"rule":"self.tags.all(i, t, i >= 0 && t != '')"}`,
		`{"rule":"self.name.replace('W', 'w') == 'web' && self.tags.join('-') == 'a-b-a' && self.name.indexOf('e') == 1 && '%s!'.format(['x']) == 'x!'"}`,
		`{"rule":"self.replicas / 0 == 1"}`,
		`{"rule":"self.metadata.name == 'w1' && self.kind == 'Widget'"}`,
		`{"rule":"self.free.all(a, self.free.all(b, self.free.all(c, a + b + c != '')))"}`,
		`{"rule":"self.replicas < 3","reason":"FieldValueDuplicate"}`,
		`{"rule":"self.replicas < 3","reason":"FieldValueRequired","message":"too many"}`,
	}
	for i, rule := range rules {
		schema := `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[` + rule + `],"properties":{` + spec + `}}}}`
		if strings.Contains(rule, "metadata") {
			schema = `{"type":"object","x-kubernetes-validations":[` + rule + `],"properties":{"spec":{"type":"object","properties":{` + spec + `}}}}`
		}
		ss := kubeStructural(t, schema)
		kubeValidator := kubecel.NewValidator(ss, true, celconfig.PerCallLimit)
		mine, err := ParseSchema([]byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		rules := NewRules(mine)
		for _, c := range []struct{ obj, old string }{{obj, ""}, {obj, old}, {old, obj}, {big, ""}} {
			kubeErrs, _ := kubeValidator.Validate(context.Background(), nil, ss, kubeValue(t, c.obj), kubeValue(t, c.old), celconfig.RuntimeCELCostBudget)
			var want []string
			for _, e := range kubeErrs {
				want = append(want, selfTypeNumber.ReplaceAllString(e.Error(), "selfType"))
			}
			o, _ := object.Decode([]byte(c.obj))
			var oldObj map[string]any
			if c.old != "" {
				oldObj, _ = object.Decode([]byte(c.old))
			}
			errs, _ := rules.Validate(context.Background(), o, oldObj)
			var got []string
			for _, e := range errs {
				got = append(got, selfTypeNumber.ReplaceAllString(e.Error(), "selfType"))
			}
			if !slices.Equal(got, want) {
				t.Errorf("rule %d %s (old: %v):\n got %q\nwant %q", i, rule, c.old != "", got, want)
			}
		}
		// the estimated costs of compilation
		var sub structuralschema.Structural = ss.Properties["spec"]
		node, decl, at := mine.Properties["spec"], schemaDecl(mine.Properties["spec"], false), &sub
		if strings.Contains(rule, "metadata") {
			node, decl, at = mine, schemaDecl(mine, true), ss
		}
		kubeResults, err := kubecel.Compile(at, model.SchemaDeclType(at, at == ss), celconfig.PerCallLimit,
			kubeenv.MustBaseEnvSet(kubeenv.DefaultCompatibilityVersion(), true), kubecel.NewExpressionsEnvLoader())
		if err != nil {
			t.Fatal(err)
		}
		results, err := compileRules(node, decl, func(string, bool) bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		for j, k := range kubeResults {
			m := results[j]
			if k.MaxCost != m.maxCost || k.MaxCardinality != m.maxCardinality || k.MessageExpressionMaxCost != m.messageMaxCost || k.UsesOldSelf != m.usesOldSelf {
				t.Errorf("rule %d %s: cost %d, cardinality %d, message cost %d, oldSelf %v; kube %d, %d, %d, %v", i, rule,
					m.maxCost, m.maxCardinality, m.messageMaxCost, m.usesOldSelf, k.MaxCost, k.MaxCardinality, k.MessageExpressionMaxCost, k.UsesOldSelf)
			}
			if (k.Error == nil) != (m.err == nil) || k.Error != nil && selfTypeNumber.ReplaceAllString(k.Error.Detail, "") != selfTypeNumber.ReplaceAllString(m.err.detail, "") {
				t.Errorf("rule %d %s: error %v, kube %v", i, rule, m.err, k.Error)
			}
		}
	}
}
