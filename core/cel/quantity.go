package cel

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"kubeplay/core/quantity"
)

// quantityType is kube's Quantity; quantityVal a value of it, its canonical
// string.
var quantityType = cel.ObjectType("kubernetes.Quantity")

type quantityVal string

func (q quantityVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf("").AssignableTo(t) {
		return string(q), nil
	}
	return nil, fmt.Errorf("type conversion error from 'Quantity' to '%v'", t)
}

func (q quantityVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case quantityType:
		return q
	case types.TypeType:
		return quantityType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", quantityType, t)
}

func (q quantityVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(quantityVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(quantity.Compare(string(q), string(o)) == 0)
}

func (q quantityVal) Type() ref.Type { return quantityType }
func (q quantityVal) Value() any     { return string(q) }

func onQuantity(f func(string) ref.Val) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		q, ok := v.(quantityVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(v)
		}
		return f(string(q))
	}
}

func onQuantities(f func(a, b string) ref.Val) func(a, b ref.Val) ref.Val {
	return func(a, b ref.Val) ref.Val {
		x, ok := a.(quantityVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(a)
		}
		y, ok := b.(quantityVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(a)
		}
		return f(string(x), string(y))
	}
}

func withInt(f func(q string, n int64) ref.Val) func(a, b ref.Val) ref.Val {
	return func(a, b ref.Val) ref.Val {
		x, ok := a.(quantityVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(a)
		}
		n, ok := b.Value().(int64)
		if !ok {
			return types.MaybeNoSuchOverloadErr(a)
		}
		return f(string(x), n)
	}
}

// quantityLibrary is kube's quantity library.
func quantityLibrary() *library {
	q := []*cel.Type{quantityType}
	qq := []*cel.Type{quantityType, quantityType}
	qi := []*cel.Type{quantityType, cel.IntType}
	intString := func(n int64) string { return fmt.Sprint(n) }
	return &library{name: "kubernetes.quantity", functions: []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{cel.StringType}, quantityType, unary(func(v ref.Val) ref.Val {
			return onString(v, func(s string) ref.Val {
				c, err := quantity.Canonical(s)
				if err != nil {
					return types.WrapErr(err)
				}
				return quantityVal(c)
			})
		}))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string", []*cel.Type{cel.StringType}, cel.BoolType, unary(func(v ref.Val) ref.Val {
			return onString(v, func(s string) ref.Val { _, err := quantity.Canonical(s); return types.Bool(err == nil) })
		}))),
		cel.Function("sign", cel.Overload("quantity_sign", q, cel.IntType, unary(onQuantity(func(s string) ref.Val { return types.Int(quantity.Sign(s)) })))),
		cel.Function("isGreaterThan", cel.MemberOverload("quantity_is_greater_than", qq, cel.BoolType,
			binary(onQuantities(func(a, b string) ref.Val { return types.Bool(quantity.Compare(a, b) == 1) })))),
		cel.Function("isLessThan", cel.MemberOverload("quantity_is_less_than", qq, cel.BoolType,
			binary(onQuantities(func(a, b string) ref.Val { return types.Bool(quantity.Compare(a, b) == -1) })))),
		cel.Function("compareTo", cel.MemberOverload("quantity_compare_to", qq, cel.IntType,
			binary(onQuantities(func(a, b string) ref.Val { return types.Int(quantity.Compare(a, b)) })))),
		cel.Function("asApproximateFloat", cel.MemberOverload("quantity_get_float", q, cel.DoubleType,
			unary(onQuantity(func(s string) ref.Val { return types.Double(quantity.Float64(s)) })))),
		cel.Function("asInteger", cel.MemberOverload("quantity_get_int", q, cel.IntType, unary(onQuantity(func(s string) ref.Val {
			n, ok := quantity.Int64(s)
			if !ok {
				return types.NewErr("cannot convert value to integer")
			}
			return types.Int(n)
		})))),
		cel.Function("isInteger", cel.MemberOverload("quantity_is_integer", q, cel.BoolType,
			unary(onQuantity(func(s string) ref.Val { _, ok := quantity.Int64(s); return types.Bool(ok) })))),
		cel.Function("add",
			cel.MemberOverload("quantity_add", qq, quantityType, binary(onQuantities(func(a, b string) ref.Val { return quantityVal(quantity.Add(a, b)) }))),
			cel.MemberOverload("quantity_add_int", qi, quantityType, binary(withInt(func(a string, n int64) ref.Val { return quantityVal(quantity.Add(a, intString(n))) })))),
		cel.Function("sub",
			cel.MemberOverload("quantity_sub", qq, quantityType, binary(onQuantities(func(a, b string) ref.Val { return quantityVal(quantity.Sub(a, b)) }))),
			cel.MemberOverload("quantity_sub_int", qi, quantityType, binary(withInt(func(a string, n int64) ref.Val { return quantityVal(quantity.Sub(a, intString(n))) })))),
	}}
}
