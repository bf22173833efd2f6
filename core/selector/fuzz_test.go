package selector

import (
	"reflect"
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
		if !reflect.DeepEqual(normLabels(sel), normLabels(again)) {
			t.Fatalf("round trip of %q through %q:\n got %#v\nwant %#v", in, str, again, sel)
		}
		if s2 := again.String(); s2 != str {
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

// normLabels makes nil and empty value lists compare equal.
func normLabels(s Labels) Labels {
	out := make(Labels, len(s))
	for i, r := range s {
		if len(r.Values) == 0 {
			r.Values = nil
		}
		out[i] = r
	}
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
		if !reflect.DeepEqual(sel, again) {
			t.Fatalf("round trip of %q through %q:\n got %#v\nwant %#v", in, str, again, sel)
		}
		if s2 := again.String(); s2 != str {
			t.Fatalf("String() not canonical for %q: %q then %q", in, str, s2)
		}
		// A term alone matches exactly when its field has (or lacks) its value.
		for _, term := range sel {
			one := Fields{term}
			if one.Matches(map[string]string{term.Field: term.Value}) != term.Equal {
				t.Fatalf("%q: term %s disagrees with its own value", in, term)
			}
			if v, ok := one.Lookup(term.Field); ok != term.Equal || (ok && v != term.Value) {
				t.Fatalf("%q: Lookup(%q) = %q, %v for term %s", in, term.Field, v, ok, term)
			}
		}
		fields := map[string]string{}
		for _, term := range sel {
			fields[term.Field] = term.Value
		}
		if sel.Matches(fields) != again.Matches(fields) {
			t.Fatalf("%q and its round trip disagree on %v", in, fields)
		}
		if err := sel.Check(func(string) bool { return true }, "Pod"); err != nil {
			t.Fatalf("Check with every field supported: %v", err)
		}
	})
}
