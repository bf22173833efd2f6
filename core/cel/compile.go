package cel

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
)

// ruleError is why a rule or its messageExpression did not compile.
type ruleError struct {
	required bool // kube's ErrorTypeRequired
	internal bool // kube's ErrorTypeInternal
	detail   string
}

// compiled is one rule compiled, as kube's CompilationResult.
type compiled struct {
	rule           Rule
	program        cel.Program
	err            *ruleError
	usesOldSelf    bool
	maxCost        uint64
	maxCardinality uint64
	message        cel.Program
	messageErr     *ruleError
	messageMaxCost uint64
	fieldPath      string // normalized, "" for none
}

// ruleEnvs are the environments a schema node's rules compile in: with
// oldSelf of self's type, or optional.
type ruleEnvs struct {
	plain, optional *cel.Env
	costs           *costs
}

func newRuleEnvs(base *cel.Env, t *declType) (*ruleEnvs, error) {
	self := t.named(fmt.Sprintf("selfType%d", time.Now().Nanosecond()))
	p := &provider{Provider: base.CELTypeProvider(), objects: self.objects(map[string]*declType{})}
	plain, err := base.Extend(cel.CustomTypeProvider(p), cel.Variable("self", self.cel), cel.Variable("oldSelf", self.cel))
	if err != nil {
		return nil, err
	}
	optional, err := base.Extend(cel.CustomTypeProvider(p), cel.Variable("self", self.cel), cel.Variable("oldSelf", cel.OptionalType(self.cel)))
	if err != nil {
		return nil, err
	}
	return &ruleEnvs{plain: plain, optional: optional, costs: &costs{root: t}}, nil
}

// compileRules compiles the rules of s, of type t, as kube's Compile: an
// expression in the environment existing says it is in (stored ones in every
// option kube 1.32 has, new ones in its compatibility version's); nil
// existing: every expression is stored.
func compileRules(s *Schema, t *declType, existing func(expr string, message bool) bool) ([]compiled, error) {
	if len(s.Rules) == 0 {
		return nil, nil
	}
	if t == nil {
		return nil, errors.New("failed to convert to declType for CEL validation rules")
	}
	envs := map[environment]*ruleEnvs{}
	envFor := func(expr string, message, optional bool) (*cel.Env, *costs, error) {
		e := newEnv
		if existing == nil || existing(expr, message) {
			e = storedEnv
		}
		if envs[e] == nil {
			base, err := baseEnv(e)
			if err != nil {
				return nil, nil, err
			}
			if envs[e], err = newRuleEnvs(base, t); err != nil {
				return nil, nil, err
			}
		}
		if optional {
			return envs[e].optional, envs[e].costs, nil
		}
		return envs[e].plain, envs[e].costs, nil
	}
	cardinality := uint64(maxRequestSize / (t.minSize + 1))
	out := make([]compiled, len(s.Rules))
	for i, r := range s.Rules {
		out[i].rule = r
		if strings.TrimSpace(r.Rule) == "" {
			continue
		}
		optional := r.OptionalOldSelf != nil && *r.OptionalOldSelf
		env, c, err := envFor(r.Rule, false, optional)
		if err != nil {
			return nil, err
		}
		out[i].compileRule(s, env, c, cardinality)
		if out[i].err != nil || r.MessageExpression == "" {
			continue
		}
		if env, c, err = envFor(r.MessageExpression, true, optional); err != nil {
			return nil, err
		}
		out[i].compileMessage(env, c)
	}
	return out, nil
}

func (c *compiled) compileRule(s *Schema, env *cel.Env, est *costs, cardinality uint64) {
	ast, issues := env.Compile(c.rule.Rule)
	if issues != nil {
		c.err = &ruleError{detail: "compilation failed: " + issues.String()}
		return
	}
	if ast.OutputType() != cel.BoolType {
		c.err = &ruleError{detail: "cel expression must evaluate to a bool"}
		return
	}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == "oldSelf" {
			c.usesOldSelf = true
			break
		}
	}
	prog, err := env.Program(ast, programOptions(est)...)
	if err != nil {
		c.err = &ruleError{detail: "program instantiation failed: " + err.Error()}
		return
	}
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		c.err = &ruleError{internal: true, detail: "cost estimation failed: " + err.Error()}
		return
	}
	c.program, c.maxCost, c.maxCardinality = prog, cost.Max, cardinality
	if c.rule.FieldPath != "" {
		if p, err := validFieldPath(c.rule.FieldPath, s); err == nil {
			c.fieldPath = p
		}
	}
}

func (c *compiled) compileMessage(env *cel.Env, est *costs) {
	ast, issues := env.Compile(c.rule.MessageExpression)
	if issues != nil {
		c.messageErr = &ruleError{detail: "messageExpression compilation failed: " + issues.String()}
		return
	}
	if ast.OutputType() != cel.StringType {
		c.messageErr = &ruleError{detail: "messageExpression must evaluate to a string"}
		return
	}
	prog, err := env.Program(ast, programOptions(est)...)
	if err != nil {
		c.messageErr = &ruleError{detail: "messageExpression instantiation failed: " + err.Error()}
		return
	}
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		c.messageErr = &ruleError{internal: true, detail: "cost estimation failed for messageExpression: " + err.Error()}
		return
	}
	c.message, c.messageMaxCost = prog, cost.Max
}

// validFieldPath checks a rule's fieldPath against s, as kube's
// ValidFieldPath ("." and "['name']" steps to properties or map keys), and
// is the path it names.
func validFieldPath(path string, s *Schema) (string, error) {
	var out strings.Builder
	step := func(name string, named bool) error {
		if named {
			p, ok := s.Properties[name]
			if !ok {
				return errors.New("does not refer to a valid field")
			}
			if out.Len() > 0 {
				out.WriteByte('.')
			}
			out.WriteString(name)
			s = p
			return nil
		}
		out.WriteString("[" + name + "]")
		s = s.additionalSchema()
		return nil
	}
	toks := fieldPathTokens(path)
	for i := 0; i < len(toks); i++ {
		switch toks[i] {
		case "[":
			if i+1 >= len(toks) {
				return "", errors.New("unexpected end of JSON path")
			}
			i++
			tok := toks[i]
			if len(tok) < 2 || tok[0] != '\'' || tok[len(tok)-1] != '\'' {
				return "", fmt.Errorf("expected single quoted string but got %s", tok)
			}
			name, err := unescapeSingleQuote(tok[1 : len(tok)-1])
			if err != nil {
				return "", fmt.Errorf("invalid string literal: %w", err)
			}
			if err := stepInto(s, name, step); err != nil {
				return "", err
			}
			if i+1 >= len(toks) {
				return "", errors.New("unexpected end of JSON path")
			}
			i++
			if toks[i] != "]" {
				return "", fmt.Errorf("expected ] but got %s", toks[i])
			}
		case ".":
			if i+1 >= len(toks) {
				return "", errors.New("unexpected end of JSON path")
			}
			i++
			if err := stepInto(s, toks[i], step); err != nil {
				return "", err
			}
		default:
			return "", fmt.Errorf("expected [ or . but got: %s", toks[i])
		}
	}
	return out.String(), nil
}

func stepInto(s *Schema, name string, step func(string, bool) error) error {
	switch {
	case s == nil:
		return errors.New("does not refer to a valid field")
	case s.Properties != nil:
		return step(name, true)
	case s.AdditionalProperties != nil:
		return step(name, false)
	}
	return errors.New("does not refer to a valid field")
}

// fieldPathTokens splits a fieldPath as kube's scanner does: ".", "[" and
// "]" alone, single-quoted strings whole, and the names between.
func fieldPathTokens(path string) []string {
	var toks []string
	for len(path) > 0 {
		n := len(path)
		if path[0] == '\'' {
			for i := 1; i < len(path); i++ {
				if path[i] == '\'' && path[i-1] != '\\' {
					n = i + 1
					break
				}
			}
		} else if i := strings.IndexAny(path, ".[]"); i == 0 {
			n = 1
		} else if i > 0 {
			n = i
		}
		toks = append(toks, path[:n])
		path = path[n:]
	}
	return toks
}

func unescapeSingleQuote(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\'':
			b.WriteByte('\'')
		case '\\':
			b.WriteByte('\\')
		default:
			return "", fmt.Errorf("invalid escape char \\%c", s[i])
		}
	}
	return b.String(), nil
}
