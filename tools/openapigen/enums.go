package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// enumSchema is the part of a generated OpenAPI definition (kube-openapi's
// spec.Schema literals in zz_generated.openapi.go) that leads to enums: a
// schema's description and enum values, and its properties, items and
// additionalProperties that hold enums.
type enumSchema struct {
	description string
	enum        []string
	properties  map[string]*enumSchema
	items       *enumSchema
	additional  *enumSchema
}

// readEnums reads the definitions generated from the Go types and returns,
// by OpenAPI definition name, those that hold an enum somewhere.
func readEnums(path string) (map[string]*enumSchema, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	// GetOpenAPIDefinitions maps Go type names to the functions building them.
	funcs := map[string]string{} // function name -> Go type name
	bodies := map[string]*ast.FuncDecl{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		bodies[fd.Name.Name] = fd
		if fd.Name.Name != "GetOpenAPIDefinitions" {
			continue
		}
		ast.Inspect(fd, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok {
				return true
			}
			call, ok := kv.Value.(*ast.CallExpr)
			if name, isName := stringLit(kv.Key); ok && isName {
				if id, ok := call.Fun.(*ast.Ident); ok {
					funcs[id.Name] = name
				}
			}
			return true
		})
	}
	if len(funcs) == 0 {
		return nil, fmt.Errorf("%s: no GetOpenAPIDefinitions", path)
	}
	out := map[string]*enumSchema{}
	for fn, goName := range funcs {
		fd := bodies[fn]
		if fd == nil {
			return nil, fmt.Errorf("%s: no function %s", path, fn)
		}
		var s *enumSchema
		ast.Inspect(fd, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok || s != nil {
				return s == nil
			}
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Schema" {
				if lit, ok := kv.Value.(*ast.CompositeLit); ok && isSelector(lit.Type, "spec", "Schema") {
					s = evalSchema(lit)
					return false
				}
			}
			return true
		})
		if s != nil && s.hasEnum() {
			out[definitionName(goName)] = s
		}
	}
	return out, nil
}

// definitionName is kube's OpenAPI name of a Go type:
// "k8s.io/api/apps/v1.Deployment" is "io.k8s.api.apps.v1.Deployment".
func definitionName(goName string) string {
	dot := strings.LastIndexByte(goName, '.')
	pkg, typ := goName[:dot], goName[dot+1:]
	segs := strings.Split(pkg, "/")
	host := strings.Split(segs[0], ".")
	for i, j := 0, len(host)-1; i < j; i, j = i+1, j-1 {
		host[i], host[j] = host[j], host[i]
	}
	return strings.Join(append(host, append(segs[1:], typ)...), ".")
}

func (s *enumSchema) hasEnum() bool {
	if s == nil {
		return false
	}
	if s.enum != nil || s.items.hasEnum() || s.additional.hasEnum() {
		return true
	}
	for _, p := range s.properties {
		if p.hasEnum() {
			return true
		}
	}
	return false
}

// evalSchema reads a spec.Schema{SchemaProps: spec.SchemaProps{...}} literal.
func evalSchema(lit *ast.CompositeLit) *enumSchema {
	s := &enumSchema{}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok || !isIdent(kv.Key, "SchemaProps") {
			continue
		}
		props, ok := kv.Value.(*ast.CompositeLit)
		if !ok {
			continue
		}
		for _, e := range props.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, _ := kv.Key.(*ast.Ident)
			if key == nil {
				continue
			}
			switch key.Name {
			case "Description":
				s.description, _ = stringLit(kv.Value)
			case "Enum":
				s.enum = []string{}
				if l, ok := kv.Value.(*ast.CompositeLit); ok {
					for _, v := range l.Elts {
						if str, ok := stringLit(v); ok {
							s.enum = append(s.enum, str)
						}
					}
				}
			case "Properties":
				if l, ok := kv.Value.(*ast.CompositeLit); ok {
					s.properties = map[string]*enumSchema{}
					for _, p := range l.Elts {
						pkv, ok := p.(*ast.KeyValueExpr)
						if !ok {
							continue
						}
						name, ok := stringLit(pkv.Key)
						if plit, isLit := pkv.Value.(*ast.CompositeLit); ok && isLit {
							s.properties[name] = evalSchema(plit)
						}
					}
				}
			case "Items", "AdditionalProperties":
				// &spec.SchemaOrArray{Schema: &spec.Schema{...}} or &spec.SchemaOrBool{..., Schema: &spec.Schema{...}}
				if inner := field(addressed(kv.Value), "Schema"); inner != nil {
					if key.Name == "Items" {
						s.items = evalSchema(inner)
					} else {
						s.additional = evalSchema(inner)
					}
				}
			}
		}
	}
	return s
}

// field is the composite literal a literal's field holds (through &).
func field(lit *ast.CompositeLit, name string) *ast.CompositeLit {
	if lit == nil {
		return nil
	}
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok && isIdent(kv.Key, name) {
			return addressed(kv.Value)
		}
	}
	return nil
}

// addressed is the composite literal of &T{...} or T{...}.
func addressed(e ast.Expr) *ast.CompositeLit {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	lit, _ := e.(*ast.CompositeLit)
	return lit
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func isSelector(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && isIdent(sel.X, pkg) && sel.Sel.Name == name
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// enumMarker starts the part of an enum's description that the published
// documents leave out.
const enumMarker = "Possible enum values:"

// overlayEnums gives the schemas of defs the enums kube-apiserver serves: the
// values, and the description that lists them. The published description must
// be the generated one without that list, or the documents disagree.
func overlayEnums(defs map[string]any, enums map[string]*enumSchema) error {
	for _, n := range slices.Sorted(maps.Keys(defs)) {
		if e := enums[n]; e != nil {
			if err := overlay(defs[n], e, n); err != nil {
				return err
			}
		}
	}
	return nil
}

func overlay(v any, e *enumSchema, at string) error {
	if !e.hasEnum() {
		return nil
	}
	s, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: the generated definitions have an enum that the document lacks", at)
	}
	if e.enum != nil {
		if _, has := s["enum"]; has {
			return fmt.Errorf("%s: already has an enum", at)
		}
		published, _ := s["description"].(string)
		short := e.description
		if i := strings.Index(short, enumMarker); i >= 0 {
			short = strings.TrimSuffix(short[:i], "\n\n")
		}
		if published != short {
			return fmt.Errorf("%s: description %q is not the generated %q", at, published, short)
		}
		if e.description != "" {
			s["description"] = e.description
		}
		values := make([]any, len(e.enum))
		for i, v := range e.enum {
			values[i] = v
		}
		s["enum"] = values
	}
	props, _ := s["properties"].(map[string]any)
	for name, p := range e.properties {
		if p.hasEnum() {
			if err := overlay(props[name], p, at+"."+name); err != nil {
				return err
			}
		}
	}
	if err := overlay(s["items"], e.items, at+"[]"); e.items.hasEnum() && err != nil {
		return err
	}
	if err := overlay(s["additionalProperties"], e.additional, at+"{}"); e.additional.hasEnum() && err != nil {
		return err
	}
	return nil
}
