package cel

import (
	"math"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// costs is kube's cost model of its libraries (k8s.io/apiserver's
// library.CostEstimator): the estimate of a call when a rule is compiled
// (from the sizes the schema allows) and its actual cost when it runs;
// the calls it does not price are cel-go's.
type costs struct {
	root *declType // the type of self, whose sizes the estimates use; nil: none
}

// sizeOf is what the schema says of the size of the value at node's path
// (self.spec.items.@items...).
func (c *costs) EstimateSize(node checker.AstNode) *checker.SizeEstimate {
	path := node.Path()
	if c.root == nil || len(path) == 0 {
		return nil
	}
	t := c.root
	for _, step := range path[1:] {
		switch step {
		case "@items", "@values":
			t = t.elem
		case "@keys":
			t = t.key
		default:
			f, ok := t.fields[step]
			if !ok {
				return nil
			}
			t = f.typ
		}
		if t == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(t.maxElem)}
}

func (c *costs) size(node checker.AstNode) checker.SizeEstimate {
	if sz := node.ComputedSize(); sz != nil {
		return *sz
	}
	if sz := c.EstimateSize(node); sz != nil {
		return *sz
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

// itemsNode stands for a list's elements, for their sizes.
type itemsNode struct {
	checker.AstNode
	path []string
	t    *types.Type
}

func (n itemsNode) Path() []string                      { return n.path }
func (n itemsNode) Type() *types.Type                   { return n.t }
func (n itemsNode) ComputedSize() *checker.SizeEstimate { return nil }

func (c *costs) elementNode(list checker.AstNode) checker.AstNode {
	params := list.Type().Parameters()
	if len(params) == 0 {
		return nil
	}
	var path []string
	if p := list.Path(); p != nil {
		path = append(append(path, p...), "@items")
	}
	return itemsNode{path: path, t: params[0]}
}

var one = checker.CostEstimate{Min: 1, Max: 1}

func estimate(e checker.CostEstimate) *checker.CallEstimate {
	return &checker.CallEstimate{CostEstimate: e}
}

// EstimateCallCost is the estimate of a call of kube's libraries.
func (c *costs) EstimateCallCost(function, overload string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	const traversal = common.StringTraversalCostFactor
	switch function {
	case "check":
		return estimate(checker.CostEstimate{Min: 350000, Max: 350000})
	case "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason", "error", "errored":
		return estimate(one)
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf":
		if target == nil {
			return nil
		}
		if el := c.elementNode(*target); el != nil {
			elCost := one
			if k := el.Type().Kind(); k == types.StringKind || k == types.BytesKind {
				elCost = elCost.Add(c.size(el).MultiplyByCostFactor(traversal))
			}
			return estimate(c.size(*target).MultiplyByCost(elCost))
		}
		return estimate(c.size(*target).MultiplyByCostFactor(traversal)) // a string's indexOf
	case "url":
		if len(args) == 1 {
			sz := c.size(args[0])
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(traversal), ResultSize: &sz}
		}
	case "lowerAscii", "upperAscii", "substring", "trim":
		if target != nil {
			sz := c.size(*target)
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(traversal), ResultSize: &sz}
		}
	case "replace":
		if target != nil && len(args) >= 2 {
			return c.replaceEstimate(c.size(*target), c.size(args[0]), c.size(args[1]))
		}
	case "split":
		if target != nil {
			sz := c.size(*target)
			most := sz.Max
			if len(args) > 1 {
				if v := args[1].Expr().AsLiteral(); v != nil {
					if i, ok := v.Value().(int64); ok {
						most = uint64(i)
					}
				}
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * traversal), ResultSize: &checker.SizeEstimate{Min: 0, Max: most}}
		}
	case "join":
		if target != nil {
			var sz checker.SizeEstimate
			n := c.size(*target)
			if el := c.elementNode(*target); el != nil {
				sz = n.Multiply(c.size(el))
			}
			if len(args) > 0 {
				var fewest, most uint64
				if n.Min > 0 {
					fewest = n.Min - 1
				}
				if n.Max > 0 {
					most = n.Max - 1
				}
				sz = sz.Add(c.size(args[0]).Multiply(checker.SizeEstimate{Min: fewest, Max: most}))
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(traversal), ResultSize: &sz}
		}
	case "find", "findAll":
		if target != nil && len(args) >= 1 {
			sz := c.size(*target)
			str := sz.Add(checker.SizeEstimate{Min: 1, Max: 1}).MultiplyByCostFactor(traversal)
			re := c.size(args[0]).MultiplyByCostFactor(common.RegexStringLengthCostFactor)
			return &checker.CallEstimate{CostEstimate: str.Multiply(re), ResultSize: &checker.SizeEstimate{Min: 0, Max: sz.Max}}
		}
	case "cidr", "isIP", "isCIDR", "quantity", "isQuantity":
		if target != nil {
			return estimate(c.size(args[0]).MultiplyByCostFactor(traversal))
		}
	case "ip":
		if target != nil && len(args) >= 1 {
			if overload == "cidr_ip" {
				return estimate(one)
			}
			return estimate(c.size(args[0]).MultiplyByCostFactor(traversal))
		} else if target != nil {
			return estimate(one)
		}
	case "ip.isCanonical":
		if target != nil && len(args) >= 1 {
			return estimate(c.size(args[0]).MultiplyByCostFactor(2 * traversal))
		}
	case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast",
		"format.named", "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub",
		"getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return estimate(one)
	case "containsIP", "containsCIDR":
		if target != nil && len(args) >= 1 {
			ip := checker.SizeEstimate{Min: 4, Max: 16}
			cost := ip.Add(ip).MultiplyByCostFactor(traversal)
			if function == "containsCIDR" {
				cost = cost.Add(ip.MultiplyByCostFactor(traversal)).Add(one)
			}
			if overload == "cidr_contains_ip_string" || overload == "cidr_contains_cidr_string" {
				cost = cost.Add(checker.CostEstimate(c.size(args[0])).MultiplyByCostFactor(traversal))
			}
			return estimate(cost)
		}
	case "validate":
		if target != nil {
			return estimate(c.size(args[0]).MultiplyByCostFactor(traversal).MultiplyByCostFactor(maxNameFormatRegexSize * common.RegexStringLengthCostFactor))
		}
	case "_==_":
		if len(args) == 2 && args[0].Type().Equal(args[1].Type()) == types.True {
			switch t := args[0].Type(); t.TypeName() {
			case ipType.TypeName(), cidrType.TypeName(), quantityType.TypeName():
				return estimate(one)
			case formatType.TypeName():
				return estimate(checker.CostEstimate{Min: 1, Max: maxFormatSize}.MultiplyByCostFactor(traversal))
			case urlType.TypeName():
				size := checker.SizeEstimate{Min: 1, Max: 1}
				// kube sizes both sides by the right one's
				if rh := args[1].ComputedSize(); rh != nil {
					size = rh.Union(*rh)
				}
				return estimate(checker.CostEstimate{Min: 1, Max: size.Max}.MultiplyByCostFactor(traversal))
			}
		}
	}
	return nil
}

// replaceEstimate is the estimate of s.replace(old, new): a traversal of s
// twice, its result as long as the replacements can make it.
func (c *costs) replaceEstimate(sz, old, repl checker.SizeEstimate) *checker.CallEstimate {
	var count, kept checker.SizeEstimate
	switch {
	case old.Min == 0:
		count.Max = sz.Max
		if sz.Max < math.MaxUint64 {
			count.Max = sz.Max + 1
		}
		kept.Max = sz.Max
	case repl.Max <= old.Min:
		kept.Max = sz.Max
	default:
		count.Max = uint64(math.Ceil(float64(sz.Max) / float64(old.Min)))
	}
	switch {
	case old.Max == 0:
		count.Min = sz.Min
		if sz.Min < math.MaxUint64 {
			count.Min = sz.Min + 1
		}
		kept.Min = sz.Min
	case old.Max <= repl.Min:
		kept.Min = sz.Min
	default:
		count.Min = uint64(math.Ceil(float64(sz.Min) / float64(old.Max)))
	}
	size := count.Multiply(repl).Add(kept)
	return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * common.StringTraversalCostFactor), ResultSize: &size}
}

// CallCost is the actual cost of a call of kube's libraries.
func (c *costs) CallCost(function, overload string, args []ref.Val, result ref.Val) *uint64 {
	const traversal = common.StringTraversalCostFactor
	cost := func(n uint64) *uint64 { return &n }
	strCost := func(v ref.Val, factor float64) *uint64 {
		return cost(uint64(math.Ceil(float64(actualSize(v)) * factor)))
	}
	switch function {
	case "check":
		return cost(350000)
	case "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason", "error", "errored":
		return cost(1)
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf":
		var n uint64
		if len(args) > 0 {
			n = traversalCost(args[0])
		}
		return &n
	case "url", "lowerAscii", "upperAscii", "substring", "trim", "cidr", "isIP", "isCIDR", "quantity", "isQuantity":
		if len(args) >= 1 {
			return strCost(args[0], traversal)
		}
	case "replace", "split":
		if len(args) >= 1 {
			return strCost(args[0], 2*traversal)
		}
	case "join":
		if len(args) >= 1 {
			return strCost(result, 2*traversal)
		}
	case "find", "findAll":
		if len(args) >= 2 {
			str := uint64(math.Ceil((1.0 + float64(actualSize(args[0]))) * traversal))
			re := uint64(math.Ceil(float64(actualSize(args[1])) * common.RegexStringLengthCostFactor))
			return cost(str * re)
		}
	case "ip":
		if len(args) >= 1 {
			if overload == "cidr_ip" {
				return cost(1)
			}
			return strCost(args[0], traversal)
		}
	case "ip.isCanonical":
		if len(args) >= 1 {
			return strCost(args[0], 2*traversal)
		}
	case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast",
		"format.named", "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub",
		"getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return cost(1)
	case "containsIP", "containsCIDR":
		if len(args) >= 2 {
			cidrSize, otherSize := actualSize(args[0]), actualSize(args[1])
			n := uint64(math.Ceil(float64(cidrSize+cidrSize) * traversal))
			if function == "containsCIDR" {
				n += uint64(math.Ceil(float64(cidrSize)*traversal)) + 1
			}
			if overload == "cidr_contains_ip_string" || overload == "cidr_contains_cidr_string" {
				n += uint64(math.Ceil(float64(otherSize) * traversal))
			}
			return &n
		}
	case "validate":
		if len(args) >= 2 {
			if f, ok := args[0].(*format); ok {
				str := uint64(math.Ceil((1.0 + float64(actualSize(args[1]))) * traversal))
				re := uint64(math.Ceil(float64(f.maxRegexSize) * common.RegexStringLengthCostFactor))
				return cost(str * re)
			}
		}
	case "_==_":
		if len(args) == 2 {
			switch args[0].(type) {
			case quantityVal, ipVal, cidrVal, *format, urlVal: // the authorizer's values cost cel-go's 1 too
				return cost(1)
			}
		}
	}
	return nil
}

// actualSize is a value's size() (1 for values without one).
func actualSize(v ref.Val) uint64 {
	if sz, ok := v.(traits.Sizer); ok {
		return uint64(sz.Size().(types.Int))
	}
	return 1
}

// traversalCost is the cost of visiting every part of v once.
func traversalCost(v ref.Val) uint64 {
	switch v := v.(type) {
	case types.String:
		return uint64(float64(len(string(v))) * common.StringTraversalCostFactor)
	case types.Bytes:
		return uint64(float64(len(v)) * common.StringTraversalCostFactor)
	case traits.Lister:
		var n uint64
		for it := v.Iterator(); it.HasNext() == types.True; {
			n += traversalCost(it.Next())
		}
		return n
	case traits.Mapper:
		var n uint64
		for it := v.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			n += traversalCost(k) + traversalCost(v.Get(k))
		}
		return n
	}
	return 1
}
