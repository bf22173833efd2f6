package cel

import (
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// kube's limits (k8s.io/apiserver/pkg/apis/cel).
const (
	// PerCallLimit is the most one expression may cost when it runs.
	PerCallLimit = 1000000
	// RuntimeCostBudget is the most a custom resource's rules may cost
	// together when they run.
	RuntimeCostBudget = 10000000
	// checkFrequency is how often, in comprehension iterations, a program
	// checks whether it was interrupted.
	checkFrequency = 100
	// maxMessageExpressionSize is the longest message a messageExpression
	// may give.
	maxMessageExpressionSize = 5 * 1024
	// StaticEstimatedCostLimit is the most a rule's estimated cost may be.
	StaticEstimatedCostLimit = 10000000
	// StaticEstimatedCRDCostLimit is the most the rules of a definition's
	// schema may be estimated to cost together.
	StaticEstimatedCRDCostLimit = 100000000
)

// environment is kube's base environment at a compatibility version: stored
// (every option of 1.32, which rules already stored compile in) or new (the
// options of 1.31, kube 1.32's compatibility version, which new rules are
// held to).
type environment int

const (
	storedEnv environment = iota
	newEnv
)

var baseEnvs struct {
	once sync.Once
	envs [2]*cel.Env
	err  error
}

// baseOptions are kube's base environment's options and libraries, in
// kube's order, up to the version the environment is of.
func baseOptions(e environment) []cel.EnvOption {
	opts := []cel.EnvOption{
		// 1.0
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		lib(urlsLibrary()), lib(regexLibrary()), lib(listsLibrary()),
		// has() costs nothing, as before cel-go 0.17.7
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		// 1.28
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		lib(quantityLibrary()),
		// 1.29
		cel.ASTValidators(cel.ValidateDurationLiterals(), cel.ValidateTimestampLiterals(), cel.ValidateRegexLiterals(), cel.ValidateHomogeneousAggregateLiterals()),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		// 1.30
		lib(ipLibrary()), lib(cidrLibrary()),
		// 1.31
		lib(formatLibrary()),
	}
	if e == storedEnv {
		opts = append(opts, ext.TwoVarComprehensions()) // 1.32
	}
	return opts
}

// baseEnv is kube's base environment e.
func baseEnv(e environment) (*cel.Env, error) {
	baseEnvs.once.Do(func() {
		for _, e := range []environment{storedEnv, newEnv} {
			baseEnvs.envs[e], baseEnvs.err = cel.NewEnv(baseOptions(e)...)
			if baseEnvs.err != nil {
				return
			}
		}
	})
	return baseEnvs.envs[e], baseEnvs.err
}

// programOptions are the options of every program: kube's cost limit and
// tracking, and its libraries' costs.
func programOptions(c *costs) []cel.ProgramOption {
	return []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		cel.CostLimit(PerCallLimit),
		cel.CostTracking(c),
		cel.InterruptCheckFrequency(checkFrequency),
	}
}
