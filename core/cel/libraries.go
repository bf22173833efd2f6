package cel

import (
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"reflect"
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// library is a set of kube's functions: its declarations and what programs
// need of it.
type library struct {
	name      string
	functions []cel.EnvOption
	program   []cel.ProgramOption
}

func (l *library) LibraryName() string                    { return l.name }
func (l *library) CompileOptions() []cel.EnvOption        { return l.functions }
func (l *library) ProgramOptions() []cel.ProgramOption    { return l.program }
func lib(l *library) cel.EnvOption                        { return cel.Lib(l) }
func unary(f func(ref.Val) ref.Val) cel.OverloadOpt       { return cel.UnaryBinding(f) }
func binary(f func(a, b ref.Val) ref.Val) cel.OverloadOpt { return cel.BinaryBinding(f) }

// listsLibrary is kube's lists library: isSorted, sum, min, max, indexOf and
// lastIndexOf on lists.
func listsLibrary() *library {
	comparable := []*cel.Type{cel.IntType, cel.UintType, cel.DoubleType, cel.BoolType, cel.DurationType, cel.TimestampType, cel.StringType, cel.BytesType}
	summable := map[*cel.Type]ref.Val{cel.IntType: types.Int(0), cel.UintType: types.Uint(0), cel.DoubleType: types.Double(0), cel.DurationType: types.Duration{}}
	var isSorted, sum, minimum, maximum []cel.FunctionOpt
	for _, t := range comparable {
		n := typeName(t)
		isSorted = append(isSorted, cel.MemberOverload("list_"+n+"_is_sorted_bool", []*cel.Type{cel.ListType(t)}, cel.BoolType, unary(listIsSorted)))
		maximum = append(maximum, cel.MemberOverload("list_"+n+"_max_"+n, []*cel.Type{cel.ListType(t)}, t, unary(listExtreme("max", types.IntNegOne))))
		minimum = append(minimum, cel.MemberOverload("list_"+n+"_min_"+n, []*cel.Type{cel.ListType(t)}, t, unary(listExtreme("min", types.IntOne))))
	}
	for _, t := range []*cel.Type{cel.IntType, cel.UintType, cel.DoubleType, cel.DurationType} {
		n, zero := typeName(t), summable[t]
		sum = append(sum, cel.MemberOverload("list_"+n+"_sum_"+n, []*cel.Type{cel.ListType(t)}, t, unary(func(l ref.Val) ref.Val { return listSum(l, zero) })))
	}
	a := cel.TypeParamType("A")
	return &library{name: "kubernetes.lists", functions: []cel.EnvOption{
		cel.Function("isSorted", isSorted...),
		cel.Function("sum", sum...),
		cel.Function("max", maximum...),
		cel.Function("min", minimum...),
		cel.Function("indexOf", cel.MemberOverload("list_a_index_of_int", []*cel.Type{cel.ListType(a), a}, cel.IntType, binary(func(l, e ref.Val) ref.Val { return listIndex(l, e, false) }))),
		cel.Function("lastIndexOf", cel.MemberOverload("list_a_last_index_of_int", []*cel.Type{cel.ListType(a), a}, cel.IntType, binary(func(l, e ref.Val) ref.Val { return listIndex(l, e, true) }))),
	}}
}

func typeName(t *cel.Type) string {
	if t == cel.TimestampType {
		return "timestamp"
	}
	return t.String()
}

func listIsSorted(v ref.Val) ref.Val {
	l, ok := v.(traits.Iterable)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	var prev traits.Comparer
	for it := l.Iterator(); it.HasNext() == types.True; {
		next := it.Next()
		c, ok := next.(traits.Comparer)
		if !ok {
			return types.MaybeNoSuchOverloadErr(next)
		}
		if prev != nil && prev.Compare(next) == types.IntOne {
			return types.False
		}
		prev = c
	}
	return types.True
}

func listSum(v ref.Val, zero ref.Val) ref.Val {
	l, ok := v.(traits.Iterable)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	acc := zero
	for it := l.Iterator(); it.HasNext() == types.True; {
		a, ok := acc.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(acc)
		}
		next := it.Next()
		if _, ok := next.(traits.Adder); !ok {
			return types.MaybeNoSuchOverloadErr(next)
		}
		acc = a.Add(next)
	}
	return acc
}

// listExtreme is min (prefer: 1, the current is greater) or max (-1).
func listExtreme(name string, prefer ref.Val) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		l, ok := v.(traits.Iterable)
		if !ok {
			return types.MaybeNoSuchOverloadErr(v)
		}
		var result traits.Comparer
		for it := l.Iterator(); it.HasNext() == types.True; {
			next := it.Next()
			c, ok := next.(traits.Comparer)
			if !ok {
				return types.MaybeNoSuchOverloadErr(next)
			}
			if result == nil || result.Compare(next) == prefer {
				result = c
			}
		}
		if result == nil {
			return types.NewErr("%s called on empty list", name)
		}
		return result.(ref.Val)
	}
}

func listIndex(v, e ref.Val, last bool) ref.Val {
	l, ok := v.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	n := l.Size().(types.Int)
	for i := range n {
		if last {
			i = n - 1 - i
		}
		if l.Get(i).Equal(e) == types.True {
			return i
		}
	}
	return types.Int(-1)
}

// regexLibrary is kube's regex library: find and findAll.
func regexLibrary() *library {
	find := func(re *regexp.Regexp, s string) ref.Val { return types.String(re.FindString(s)) }
	findAll := func(re *regexp.Regexp, s string, n int64) ref.Val {
		return types.NewStringList(types.DefaultTypeAdapter, re.FindAllString(s, int(n)))
	}
	return &library{name: "kubernetes.regex",
		functions: []cel.EnvOption{
			cel.Function("find", cel.MemberOverload("string_find_string", []*cel.Type{cel.StringType, cel.StringType}, cel.StringType,
				binary(func(s, re ref.Val) ref.Val {
					return withRegex(s, re, func(r *regexp.Regexp, s string) ref.Val { return find(r, s) })
				}))),
			cel.Function("findAll",
				cel.MemberOverload("string_find_all_string", []*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType),
					binary(func(s, re ref.Val) ref.Val {
						return withRegex(s, re, func(r *regexp.Regexp, s string) ref.Val { return findAll(r, s, -1) })
					})),
				cel.MemberOverload("string_find_all_string_int", []*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType),
					cel.FunctionBinding(func(args ...ref.Val) ref.Val {
						n, ok := args[2].Value().(int64)
						if !ok {
							return types.MaybeNoSuchOverloadErr(args[2])
						}
						return withRegex(args[0], args[1], func(r *regexp.Regexp, s string) ref.Val { return findAll(r, s, n) })
					}))),
		},
		program: []cel.ProgramOption{cel.OptimizeRegex(
			regexOptimization("find", func(re *regexp.Regexp, args []ref.Val) ref.Val {
				return onString(args[0], func(s string) ref.Val { return find(re, s) })
			}),
			regexOptimization("findAll", func(re *regexp.Regexp, args []ref.Val) ref.Val {
				n := int64(-1)
				if len(args) == 3 {
					var ok bool
					if n, ok = args[2].Value().(int64); !ok {
						return types.MaybeNoSuchOverloadErr(args[2])
					}
				}
				return onString(args[0], func(s string) ref.Val { return findAll(re, s, n) })
			}),
		)},
	}
}

func onString(v ref.Val, f func(string) ref.Val) ref.Val {
	s, ok := v.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	return f(s)
}

func withRegex(s, re ref.Val, f func(*regexp.Regexp, string) ref.Val) ref.Val {
	str, ok := s.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s)
	}
	pattern, ok := re.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(re)
	}
	r, err := regexp.Compile(pattern)
	if err != nil {
		return types.NewErr("Illegal regex: %v", err.Error())
	}
	return f(r, str)
}

// regexOptimization compiles a literal pattern once, with the program.
func regexOptimization(function string, call func(*regexp.Regexp, []ref.Val) ref.Val) *interpreter.RegexOptimization {
	return &interpreter.RegexOptimization{Function: function, RegexIndex: 1,
		Factory: func(c interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
			re, err := regexp.Compile(pattern)
			if err != nil {
				return nil, err
			}
			return interpreter.NewCall(c.ID(), c.Function(), c.OverloadID(), c.Args(), func(args ...ref.Val) ref.Val {
				if len(args) < 2 || len(args) > 3 {
					return types.NoSuchOverloadErr()
				}
				return call(re, args)
			}), nil
		}}
}

// urlType is kube's URL type; urlVal a value of it.
var urlType = cel.ObjectType("kubernetes.URL")

type urlVal struct{ *url.URL }

func (u urlVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(u.URL).AssignableTo(t) {
		return u.URL, nil
	}
	if reflect.TypeOf("").AssignableTo(t) {
		return u.URL.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'URL' to '%v'", t)
}

func (u urlVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case urlType:
		return u
	case types.TypeType:
		return urlType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", urlType, t)
}

func (u urlVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(urlVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(u.URL.String() == o.URL.String())
}

func (u urlVal) Type() ref.Type { return urlType }
func (u urlVal) Value() any     { return u.URL }

// urlsLibrary is kube's urls library.
func urlsLibrary() *library {
	part := func(id string, f func(*url.URL) string) cel.FunctionOpt {
		return cel.MemberOverload(id, []*cel.Type{urlType}, cel.StringType, unary(func(v ref.Val) ref.Val {
			u, ok := v.(urlVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return types.String(f(u.URL))
		}))
	}
	return &library{name: "kubernetes.urls", functions: []cel.EnvOption{
		cel.Function("url", cel.Overload("string_to_url", []*cel.Type{cel.StringType}, urlType, unary(func(v ref.Val) ref.Val {
			return onString(v, func(s string) ref.Val {
				if _, err := url.ParseRequestURI(s); err != nil {
					return types.NewErr("URL parse error during conversion from string: %v", err)
				}
				u, err := url.Parse(s)
				if err != nil {
					return types.NewErr("URL parse error during conversion from string: %v", err)
				}
				return urlVal{u}
			})
		}))),
		cel.Function("getScheme", part("url_get_scheme", func(u *url.URL) string { return u.Scheme })),
		cel.Function("getHost", part("url_get_host", func(u *url.URL) string { return u.Host })),
		cel.Function("getHostname", part("url_get_hostname", (*url.URL).Hostname)),
		cel.Function("getPort", part("url_get_port", (*url.URL).Port)),
		cel.Function("getEscapedPath", part("url_get_escaped_path", (*url.URL).EscapedPath)),
		cel.Function("getQuery", cel.MemberOverload("url_get_query", []*cel.Type{urlType}, cel.MapType(cel.StringType, cel.ListType(cel.StringType)),
			unary(func(v ref.Val) ref.Val {
				u, ok := v.(urlVal)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				out := map[ref.Val]ref.Val{}
				for k, vs := range u.Query() {
					out[types.String(k)] = types.NewStringList(types.DefaultTypeAdapter, vs)
				}
				return types.NewRefValMap(types.DefaultTypeAdapter, out)
			}))),
		cel.Function("isURL", cel.Overload("is_url_string", []*cel.Type{cel.StringType}, cel.BoolType, unary(func(v ref.Val) ref.Val {
			return onString(v, func(s string) ref.Val {
				_, err := url.ParseRequestURI(s)
				return types.Bool(err == nil)
			})
		}))),
	}}
}

// ipType and cidrType are kube's net.IP and net.CIDR.
var (
	ipType   = cel.OpaqueType("net.IP")
	cidrType = cel.OpaqueType("net.CIDR")
)

type ipVal struct{ netip.Addr }

func (ip ipVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(ip.Addr).AssignableTo(t) {
		return ip.Addr, nil
	}
	if reflect.TypeOf("").AssignableTo(t) {
		return ip.Addr.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'IP' to '%v'", t)
}

func (ip ipVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case ipType:
		return ip
	case types.TypeType:
		return ipType
	case types.StringType:
		return types.String(ip.Addr.String())
	}
	return types.NewErr("type conversion error from '%s' to '%s'", ipType, t)
}

func (ip ipVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(ipVal)
	if !ok {
		return types.ValOrErr(other, "no such overload")
	}
	return types.Bool(ip.Addr == o.Addr)
}

func (ip ipVal) Type() ref.Type { return ipType }
func (ip ipVal) Value() any     { return ip.Addr }
func (ip ipVal) Size() ref.Val  { return types.Int(int(math.Ceil(float64(ip.Addr.BitLen()) / 8))) }

type cidrVal struct{ netip.Prefix }

func (c cidrVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(c.Prefix).AssignableTo(t) {
		return c.Prefix, nil
	}
	if reflect.TypeOf("").AssignableTo(t) {
		return c.Prefix.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'CIDR' to '%v'", t)
}

func (c cidrVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case cidrType:
		return c
	case types.TypeType:
		return cidrType
	case types.StringType:
		return types.String(c.Prefix.String())
	}
	return types.NewErr("type conversion error from '%s' to '%s'", cidrType, t)
}

func (c cidrVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(cidrVal)
	if !ok {
		return types.ValOrErr(other, "no such overload")
	}
	return types.Bool(c.Prefix == o.Prefix)
}

func (c cidrVal) Type() ref.Type { return cidrType }
func (c cidrVal) Value() any     { return c.Prefix }
func (c cidrVal) Size() ref.Val  { return types.Int(int(math.Ceil(float64(c.Prefix.Bits()) / 8))) }

func parseIP(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	switch {
	case err != nil:
		return netip.Addr{}, fmt.Errorf("IP Address %q parse error during conversion from string: %v", s, err)
	case a.Zone() != "":
		return netip.Addr{}, fmt.Errorf("IP address %q with zone value is not allowed", s)
	case a.Is4In6():
		return netip.Addr{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", s)
	}
	return a, nil
}

func parseCIDR(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil:
		return netip.Prefix{}, fmt.Errorf("network address parse error during conversion from string: %v", err)
	case p.Addr().Is4In6():
		return netip.Prefix{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", s)
	}
	return p, nil
}

func stringToIP(v ref.Val) ref.Val {
	return onString(v, func(s string) ref.Val {
		a, err := parseIP(s)
		if err != nil {
			return types.NewErr("%v", err)
		}
		return ipVal{a}
	})
}

func stringToCIDR(v ref.Val) ref.Val {
	return onString(v, func(s string) ref.Val {
		p, err := parseCIDR(s)
		if err != nil {
			return types.NewErr("network address parse error during conversion from string: %v", err)
		}
		return cidrVal{p}
	})
}

func onIP(f func(netip.Addr) ref.Val) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		ip, ok := v.(ipVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(v)
		}
		return f(ip.Addr)
	}
}

func onCIDR(f func(netip.Prefix) ref.Val) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		c, ok := v.(cidrVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(v)
		}
		return f(c.Prefix)
	}
}

// ipLibrary is kube's ip library.
func ipLibrary() *library {
	is := func(name, id string, f func(netip.Addr) bool) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{ipType}, cel.BoolType, unary(onIP(func(a netip.Addr) ref.Val { return types.Bool(f(a)) }))))
	}
	return &library{name: "kubernetes.net.ip", functions: []cel.EnvOption{
		cel.Types(ipType), cel.Variable(ipType.TypeName(), types.NewTypeTypeWithParam(ipType)),
		cel.Function("ip", cel.Overload("string_to_ip", []*cel.Type{cel.StringType}, ipType, unary(stringToIP))),
		cel.Function("family", cel.MemberOverload("ip_family", []*cel.Type{ipType}, cel.IntType, unary(onIP(func(a netip.Addr) ref.Val {
			switch {
			case a.Is4():
				return types.Int(4)
			case a.Is6():
				return types.Int(6)
			}
			return types.NewErr("IP address %q is not an IPv4 or IPv6 address", a.String())
		})))),
		cel.Function("ip.isCanonical", cel.Overload("ip_is_canonical", []*cel.Type{cel.StringType}, cel.BoolType, unary(func(v ref.Val) ref.Val {
			return onString(v, func(s string) ref.Val {
				a, err := parseIP(s)
				if err != nil {
					return types.NewErr("%v", err)
				}
				return types.Bool(a.String() == s)
			})
		}))),
		is("isUnspecified", "ip_is_unspecified", netip.Addr.IsUnspecified),
		is("isLoopback", "ip_is_loopback", netip.Addr.IsLoopback),
		is("isLinkLocalMulticast", "ip_is_link_local_multicast", netip.Addr.IsLinkLocalMulticast),
		is("isLinkLocalUnicast", "ip_is_link_local_unicast", netip.Addr.IsLinkLocalUnicast),
		is("isGlobalUnicast", "ip_is_global_unicast", netip.Addr.IsGlobalUnicast),
		cel.Function("isIP", cel.Overload("is_ip", []*cel.Type{cel.StringType}, cel.BoolType, unary(func(v ref.Val) ref.Val {
			return onString(v, func(s string) ref.Val { _, err := parseIP(s); return types.Bool(err == nil) })
		}))),
		cel.Function("string", cel.Overload("ip_to_string", []*cel.Type{ipType}, cel.StringType, unary(onIP(func(a netip.Addr) ref.Val { return types.String(a.String()) })))),
	}}
}

// cidrLibrary is kube's cidr library.
func cidrLibrary() *library {
	containsIP := func(c, ip ref.Val) ref.Val {
		cv, ok := c.(cidrVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(c)
		}
		iv, ok := ip.(ipVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(ip)
		}
		return types.Bool(cv.Contains(iv.Addr))
	}
	containsCIDR := func(c, other ref.Val) ref.Val {
		cv, ok := c.(cidrVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(c)
		}
		ov, ok := other.(cidrVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(other)
		}
		return types.Bool(cv.Overlaps(ov.Prefix) && cv.Bits() <= ov.Bits())
	}
	return &library{name: "kubernetes.net.cidr", functions: []cel.EnvOption{
		cel.Types(cidrType), cel.Variable(cidrType.TypeName(), types.NewTypeTypeWithParam(cidrType)),
		cel.Function("cidr", cel.Overload("string_to_cidr", []*cel.Type{cel.StringType}, cidrType, unary(stringToCIDR))),
		cel.Function("containsIP",
			cel.MemberOverload("cidr_contains_ip_string", []*cel.Type{cidrType, cel.StringType}, cel.BoolType, binary(func(c, s ref.Val) ref.Val { return containsIP(c, stringToIP(s)) })),
			cel.MemberOverload("cidr_contains_ip_ip", []*cel.Type{cidrType, ipType}, cel.BoolType, binary(containsIP))),
		cel.Function("containsCIDR",
			cel.MemberOverload("cidr_contains_cidr_string", []*cel.Type{cidrType, cel.StringType}, cel.BoolType, binary(func(c, s ref.Val) ref.Val { return containsCIDR(c, stringToCIDR(s)) })),
			cel.MemberOverload("cidr_contains_cidr", []*cel.Type{cidrType, cidrType}, cel.BoolType, binary(containsCIDR))),
		cel.Function("ip", cel.MemberOverload("cidr_ip", []*cel.Type{cidrType}, ipType, unary(onCIDR(func(p netip.Prefix) ref.Val { return ipVal{p.Addr()} })))),
		cel.Function("prefixLength", cel.MemberOverload("cidr_prefix_length", []*cel.Type{cidrType}, cel.IntType, unary(onCIDR(func(p netip.Prefix) ref.Val { return types.Int(p.Bits()) })))),
		cel.Function("masked", cel.MemberOverload("cidr_masked", []*cel.Type{cidrType}, cidrType, unary(onCIDR(func(p netip.Prefix) ref.Val { return cidrVal{p.Masked()} })))),
		cel.Function("isCIDR", cel.Overload("is_cidr", []*cel.Type{cel.StringType}, cel.BoolType, unary(func(v ref.Val) ref.Val {
			return onString(v, func(s string) ref.Val { _, err := parseCIDR(s); return types.Bool(err == nil) })
		}))),
		cel.Function("string", cel.Overload("cidr_to_string", []*cel.Type{cidrType}, cel.StringType, unary(onCIDR(func(p netip.Prefix) ref.Val { return types.String(p.String()) })))),
	}}
}
