package cel

import (
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Sizes of kube's format library.
const (
	maxFormatSize          = 64
	maxNameFormatRegexSize = 128
)

// formatType is kube's NamedFormat; format a value of it.
var formatType = cel.ObjectType("kubernetes.NamedFormat")

type format struct {
	name         string
	validate     func(string) []string
	maxRegexSize int
}

func (f *format) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from 'Format' to '%v'", t)
}

func (f *format) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case formatType:
		return f
	case types.TypeType:
		return formatType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", formatType, t)
}

func (f *format) Equal(other ref.Val) ref.Val {
	o, ok := other.(*format)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(f.name == o.name)
}

func (f *format) Type() ref.Type { return formatType }
func (f *format) Value() any     { return f }

// maskTrailingDash is a generated name's prefix as kube checks it: a
// trailing dash stands for a character to come.
func maskTrailingDash(s string) string {
	if len(s) > 1 && strings.HasSuffix(s, "-") {
		return s[:len(s)-2] + "a"
	}
	return s
}

func prefixed(f func(string) []string) func(string) []string {
	return func(s string) []string { return f(maskTrailingDash(s)) }
}

var (
	uuidPattern = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	base64Re    = regexp.MustCompile(`^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$`)
	timePattern = regexp.MustCompile(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)
)

func isDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

func isDateTime(s string) bool {
	if len(s) < 4 {
		return false
	}
	parts := strings.Split(strings.ToLower(s), "t")
	if len(parts) < 2 || !isDate(parts[0]) {
		return false
	}
	m := timePattern.FindStringSubmatch(parts[1])
	return m != nil && m[1] <= "23" && m[2] <= "59" && m[3] <= "59"
}

func failing(ok func(string) bool, message string) func(string) []string {
	return func(s string) []string {
		if ok(s) {
			return nil
		}
		return []string{message}
	}
}

// formats are kube's named formats; the regex sizes are the lengths of the
// patterns kube's validators use.
var formats = map[string]*format{
	"dns1123Label":           {"DNS1123Label", dns1123Label, 30},
	"dns1123Subdomain":       {"DNS1123Subdomain", dns1123Subdomain, 60},
	"dns1035Label":           {"DNS1035Label", dns1035Label, 30},
	"qualifiedName":          {"QualifiedName", qualifiedName, 60},
	"dns1123LabelPrefix":     {"DNS1123LabelPrefix", prefixed(dns1123Label), 30},
	"dns1123SubdomainPrefix": {"DNS1123SubdomainPrefix", prefixed(dns1123Subdomain), 60},
	"dns1035LabelPrefix":     {"DNS1035LabelPrefix", prefixed(dns1035Label), 30},
	"labelValue":             {"LabelValue", labelValue, 40},
	"uri": {"URI", func(s string) []string {
		if _, err := url.ParseRequestURI(s); err != nil {
			return []string{err.Error()}
		}
		return nil
	}, 1103},
	"uuid":     {"uuid", failing(uuidPattern.MatchString, "does not match the UUID format"), 70},
	"byte":     {"byte", failing(base64Re.MatchString, "invalid base64"), 84},
	"date":     {"date", failing(isDate, "invalid date"), 71},
	"datetime": {"datetime", failing(isDateTime, "invalid datetime"), 71},
}

// formatLibrary is kube's format library.
func formatLibrary() *library {
	l := &library{name: "kubernetes.format", functions: []cel.EnvOption{
		cel.Function("validate", cel.MemberOverload("format-validate", []*cel.Type{formatType, cel.StringType}, cel.OptionalType(cel.ListType(cel.StringType)),
			binary(func(f, s ref.Val) ref.Val {
				fv, ok := f.(*format)
				if !ok {
					return types.MaybeNoSuchOverloadErr(f)
				}
				return onString(s, func(s string) ref.Val {
					if msgs := fv.validate(s); len(msgs) > 0 {
						return types.OptionalOf(types.NewStringList(types.DefaultTypeAdapter, msgs))
					}
					return types.OptionalNone
				})
			}))),
		cel.Function("format.named", cel.Overload("format-named", []*cel.Type{cel.StringType}, cel.OptionalType(formatType), unary(func(v ref.Val) ref.Val {
			return onString(v, func(s string) ref.Val {
				if f, ok := formats[s]; ok {
					return types.OptionalOf(f)
				}
				return types.OptionalNone
			})
		}))),
	}}
	for name, f := range formats {
		l.functions = append(l.functions, cel.Function("format."+name, cel.Overload("format."+name, nil, formatType,
			cel.FunctionBinding(func(...ref.Val) ref.Val { return f }))))
	}
	return l
}
