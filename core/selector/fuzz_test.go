package selector

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The fuzz targets check the parsers' contracts on arbitrary input: no panic, a
// non-empty message for every error, and a canonical String() that parses back to
// the same selector (the server binds continue tokens to it and prints it).
// testdata/fuzz/FuzzParseLabels and FuzzParseFields hold checked-in seeds.

var labelSeeds = []string{
	"",
	"app=web",
	"app==web",
	"app!=web",
	"app",
	"!app",
	"app in (web,api)",
	"app notin (web, api)",
	"tier in (),x",
	"env in (,prod)",
	"x in (a,,b)",
	"replicas>3",
	"replicas<-1",
	"replicas>a",
	"example.com/role=backend,!example.com/deprecated,version notin (v1,v2)",
	"a=b,c=d,a=e",
	"a=",
	"a=,b",
	"in=notin",
	"notin in (in, notin)",
	"a in (b",
	"a in b",
	"a=(b)",
	"a==",
	"!a=b",
	"a,,b",
	",a",
	"a,",
	"a=b c",
	"a===b",
	"a=!b",
	"-a=b",
	"a/b/c=d",
	strings.Repeat("k", 64) + "=v",
	"k=" + strings.Repeat("v", 64),
	"a=b\x00c=d",
	"a\t=\nb",
	"é=ü",
}

var fieldSeeds = []string{
	"",
	"metadata.name=web",
	"metadata.name==web",
	"metadata.name!=web",
	"metadata.namespace=default,status.phase!=Running",
	"spec.nodeName=",
	`metadata.name=a\,b`,
	`metadata.name=a\=b`,
	`metadata.name=a\\b`,
	`metadata.name=a\b`,
	`metadata.name=a\`,
	"metadata.name=a=b",
	"metadata.name",
	"=x",
	",,a=b,,",
	"a!==b",
	"a===b",
	"b=2,a=1,a!=3",
	"status.phase in (Running)",
	"a=\xff\\,",
	" a = b ",
}

func FuzzParseLabels(f *testing.F) {
	for _, s := range labelSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sel, err := ParseLabels(in)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParseLabels(%q): error with an empty message", in)
			}
			if sel != nil {
				t.Fatalf("ParseLabels(%q): error %q with a selector %v", in, err, sel)
			}
			return
		}
		for i := 1; i < len(sel); i++ {
			if sel[i-1].Key > sel[i].Key {
				t.Fatalf("ParseLabels(%q): requirements not sorted by key: %#v", in, sel)
			}
		}
		for _, r := range sel {
			switch r.Op {
			case Exists, DoesNotExist:
				if len(r.Values) != 0 {
					t.Fatalf("ParseLabels(%q): %s has values %q", in, r.Op, r.Values)
				}
			case In, NotIn:
				if len(r.Values) == 0 {
					t.Fatalf("ParseLabels(%q): %s without values", in, r.Op)
				}
			default:
				if len(r.Values) != 1 {
					t.Fatalf("ParseLabels(%q): %s with values %q", in, r.Op, r.Values)
				}
			}
		}
		str := sel.String()
		again, err := ParseLabels(str)
		if err != nil {
			t.Fatalf("ParseLabels(%q) printed %q, which does not parse: %v", in, str, err)
		}
		// Requirements are sorted by key only and, as in apimachinery, not stably:
		// equal keys may trade places, so compare them as sets.
		if !reflect.DeepEqual(normLabels(sel), normLabels(again)) {
			t.Fatalf("round trip of %q through %q:\n got %#v\nwant %#v", in, str, again, sel)
		}
		if s2 := again.String(); normLabels(again).String() != normLabels(sel).String() {
			t.Fatalf("String() not canonical for %q: %q then %q", in, str, s2)
		}
		// Matching never panics and agrees between the two parses, on a label set
		// built from the selector itself and on the empty set.
		labels := map[string]string{}
		for _, r := range sel {
			if len(r.Values) > 0 {
				labels[r.Key] = r.Values[0]
			}
		}
		for _, l := range []map[string]string{labels, nil} {
			if sel.Matches(l) != again.Matches(l) {
				t.Fatalf("%q and its round trip disagree on %v", in, l)
			}
		}
		if sel.Empty() != (len(sel) == 0) {
			t.Fatalf("Empty() wrong for %q", in)
		}
	})
}

// normLabels makes nil and empty value lists compare equal and orders
// requirements with equal keys by their text.
func normLabels(s Labels) Labels {
	out := make(Labels, len(s))
	for i, r := range s {
		if len(r.Values) == 0 {
			r.Values = nil
		}
		out[i] = r
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		return out[i].String() < out[j].String()
	})
	return out
}

func FuzzParseFields(f *testing.F) {
	for _, s := range fieldSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sel, err := ParseFields(in)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParseFields(%q): error with an empty message", in)
			}
			if sel != nil {
				t.Fatalf("ParseFields(%q): error %q with a selector %v", in, err, sel)
			}
			return
		}
		str := sel.String()
		again, err := ParseFields(str)
		if err != nil {
			t.Fatalf("ParseFields(%q) printed %q, which does not parse: %v", in, str, err)
		}
		if len(sel) == 0 && len(again) == 0 {
			return
		}
		// Terms keep the order of their raw text, as in apimachinery, and "a==b"
		// prints as "a=b": a round trip may reorder them, so compare them as sets.
		if !reflect.DeepEqual(normFields(sel), normFields(again)) {
			t.Fatalf("round trip of %q through %q:\n got %#v\nwant %#v", in, str, again, sel)
		}
		if s2 := normFields(again).String(); s2 != normFields(sel).String() {
			t.Fatalf("String() not canonical for %q: %q then %q", in, str, s2)
		}
		// A term alone matches exactly when its field has (or lacks) its value.
		for _, term := range sel {
			one := Fields{term}
			if one.Matches(map[string]string{term.Field: term.Value}) != term.Equal {
				t.Fatalf("%q: term %s disagrees with its own value", in, term)
			}
		}
		fields := map[string]string{}
		for _, term := range sel {
			fields[term.Field] = term.Value
		}
		if sel.Matches(fields) != again.Matches(fields) {
			t.Fatalf("%q and its round trip disagree on %v", in, fields)
		}
	})
}

// normFields orders terms by their text.
func normFields(s Fields) Fields {
	out := append(Fields(nil), s...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// TestK8S_WATCH_6_SelectorEdgesAsApimachinery pins inputs on which the parsers once
// differed from k8s.io/apimachinery v0.32 (found by fuzzing the two side by side);
// the expectations are apimachinery's answers.
func TestK8S_WATCH_6_SelectorEdgesAsApimachinery(t *testing.T) {
	const nameRegex = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	for _, c := range []struct{ in, str, err string }{
		// A NUL ending an identifier or operator is consumed with it; one where a
		// token would start ends the input.
		{in: "0\x000", err: "unable to parse requirement: found '0', expected: in, notin, =, ==, !=, gt, lt"},
		{in: "a=\x00=b", err: "unable to parse requirement: found '=', expected: identifier"},
		{in: "a=b\x00,c", str: "a=b,c"},
		{in: "  \x00a", str: ""},
		// An empty name part fails both checks.
		{in: "0/", err: `unable to parse requirement: <nil>: Invalid value: "0/": name part must be non-empty; ` + nameRegex},
		{in: "/x", err: `unable to parse requirement: <nil>: Invalid value: "/x": prefix part must be non-empty`},
		// "!key" ends the requirement whatever follows.
		{in: "!0!", err: "found '!', expected: ',' or 'end of string'"},
		{in: "!a=b", err: "found '=', expected: ',' or 'end of string'"},
		{in: "!a,b", str: "!a,b"},
		// Equal keys keep the order of apimachinery's (unstable) sort.
		{in: "0,0,0,0,0,0,0<0,0,0,00,0,0,0", str: "0<0,0,0,0,0,0,0,0,0,0,0,0,00"},
	} {
		sel, err := ParseLabels(c.in)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("ParseLabels(%q) = %q, %v; want error %q", c.in, sel, err, c.err)
		case c.err == "" && (err != nil || sel.String() != c.str):
			t.Errorf("ParseLabels(%q) = %q, %v; want %q", c.in, sel, err, c.str)
		}
	}
	for _, c := range []struct{ in, str, err string }{
		// Raw terms are sorted before parsing: the first bad one in that order is
		// reported, and String keeps that order.
		{in: `b=\x,a=\y`, err: `invalid field selector: invalid escape sequence: \y`},
		{in: "a==x,a=w", str: "a=x,a=w"},
		{in: "b=1,a=2", str: "a=2,b=1"},
		{in: `z!=1,a=\,`, str: `a=\,,z!=1`},
	} {
		sel, err := ParseFields(c.in)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("ParseFields(%q) = %q, %v; want error %q", c.in, sel, err, c.err)
		case c.err == "" && (err != nil || sel.String() != c.str):
			t.Errorf("ParseFields(%q) = %q, %v; want %q", c.in, sel, err, c.str)
		}
	}
}
