package flowcontrol

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/client"
	"kubeplay/core/field"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// kubeplay's teaching affordances for API Priority and Fairness (not
// kube-apiserver APIs), like /debug/kubeplay/compact; they are not themselves
// limited by APF (a load would otherwise hold its caller's seat throughout):
//
//   POST /debug/kubeplay/apf/load    plays flows of concurrent requests through the
//                                    whole handler, as the users it names, and
//                                    answers what each flow got (a tutorial's way
//                                    to show an elephant and a mouse in one step)
//   POST /debug/kubeplay/apf/adjust  adjusts borrowing now, rather than at the next
//                                    10-second period, starts the next period, and
//                                    answers the state

// Load is a load's description.
type Load struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// SimulatedWork is how long each request holds its seats (a Go duration).
	SimulatedWork string `json:"simulatedWork"`
	// Rounds is how many requests each worker sends, one after another.
	Rounds int        `json:"rounds"`
	Flows  []LoadFlow `json:"flows"`
}

// LoadFlow is one user sending requests with Concurrency workers.
type LoadFlow struct {
	User        string   `json:"user"`
	Groups      []string `json:"groups,omitempty"`
	Concurrency int      `json:"concurrency"`
}

// LoadResult is what a flow got.
type LoadResult struct {
	User       string  `json:"user"`
	Sent       int     `json:"sent"`
	OK         int     `json:"ok"`
	Rejected   int     `json:"rejected"`
	Other      int     `json:"other"`
	AllServed  bool    `json:"allServed"`
	P50Seconds float64 `json:"p50Seconds"`
	P99Seconds float64 `json:"p99Seconds"`
}

// Bounds on a load: a sandbox's teaching tool, not a load tester. Every count
// is checked against its own bound before any is multiplied.
const (
	maxLoadRequests    = 2000
	maxLoadFlows       = 20
	maxLoadConcurrency = 100
	maxLoadWork        = 5 * time.Second
	// maxLoadWorkerTime bounds one worker's rounds times the simulated work.
	maxLoadWorkerTime = time.Minute
)

// validate names every field of the load that is out of its bounds.
func (load *Load) validate() field.ErrorList {
	var errs field.ErrorList
	if load.Path == "" {
		errs = append(errs, field.Required(field.NewPath("path"), ""))
	}
	if load.Rounds < 1 || load.Rounds > maxLoadRequests {
		errs = append(errs, field.Invalid(field.NewPath("rounds"), load.Rounds, fmt.Sprintf("must be between 1 and %d", maxLoadRequests)))
	}
	var work time.Duration
	if load.SimulatedWork != "" {
		var err error
		if work, err = time.ParseDuration(load.SimulatedWork); err != nil || work < 0 || work > maxLoadWork {
			errs = append(errs, field.Invalid(field.NewPath("simulatedWork"), load.SimulatedWork, fmt.Sprintf("must be a duration between 0 and %v", maxLoadWork)))
			work = 0
		}
	}
	if len(load.Flows) < 1 || len(load.Flows) > maxLoadFlows {
		errs = append(errs, field.Invalid(field.NewPath("flows"), len(load.Flows), fmt.Sprintf("must hold between 1 and %d flows", maxLoadFlows)))
	}
	total := 0
	for i, f := range load.Flows {
		p := field.NewPath("flows").Index(i)
		if f.User == "" {
			errs = append(errs, field.Required(p.Child("user"), ""))
		}
		if f.Concurrency < 1 || f.Concurrency > maxLoadConcurrency {
			errs = append(errs, field.Invalid(p.Child("concurrency"), f.Concurrency, fmt.Sprintf("must be between 1 and %d", maxLoadConcurrency)))
		} else {
			total += f.Concurrency
		}
	}
	if len(errs) > 0 {
		return errs // the products below are bounded only once every factor is
	}
	if total*load.Rounds > maxLoadRequests {
		errs = append(errs, field.Invalid(field.NewPath("rounds"), load.Rounds, fmt.Sprintf("the flows' concurrency (%d) times rounds must be at most %d requests", total, maxLoadRequests)))
	}
	if time.Duration(load.Rounds)*work > maxLoadWorkerTime {
		errs = append(errs, field.Invalid(field.NewPath("rounds"), load.Rounds, fmt.Sprintf("rounds times simulatedWork must be at most %v", maxLoadWorkerTime)))
	}
	return errs
}

func (c *Controller) serveLoad(w web.ResponseWriter, r *web.Request) {
	if r.Method != web.MethodPost {
		apierrors.Write(w, apierrors.NewMethodNotAllowed())
		return
	}
	var load Load
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &load)
	}
	if err != nil {
		apierrors.Write(w, apierrors.NewBadRequest("a load is {method, path, simulatedWork (at most 5s), rounds, flows: [{user, groups, concurrency (1-100)}]}: "+err.Error()))
		return
	}
	if errs := load.validate(); len(errs) > 0 {
		apierrors.Write(w, apierrors.NewInvalid("", "Load", "load", errs))
		return
	}
	if load.Method == "" {
		load.Method = web.MethodGet
	}
	c.mu.RLock()
	h := c.handler
	c.mu.RUnlock()
	if h == nil {
		apierrors.Write(w, apierrors.NewServiceUnavailable("API Priority and Fairness is not started"))
		return
	}
	results := make([]LoadResult, len(load.Flows))
	latencies := make([][]time.Duration, len(load.Flows))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, f := range load.Flows {
		results[i].User = f.User
		groups := f.Groups
		if !slices.Contains(groups, user.AllAuthenticated) {
			groups = append(slices.Clone(groups), user.AllAuthenticated)
		}
		cl := client.New(h, user.User{Name: f.User, Groups: groups}, "kubeplay-load")
		if load.SimulatedWork != "" {
			cl = cl.WithHeader(SimulatedWorkHeader, load.SimulatedWork)
		}
		for range f.Concurrency {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range load.Rounds {
					if r.Context().Err() != nil {
						return // the client left: the rest is not sent
					}
					start := c.clock.Now()
					code := loadRequest(r.Context(), cl, load.Method, load.Path)
					mu.Lock()
					res := &results[i]
					res.Sent++
					switch {
					case code == web.StatusTooManyRequests:
						res.Rejected++
					case code/100 == 2:
						res.OK++
						latencies[i] = append(latencies[i], c.clock.Now().Sub(start))
					default:
						res.Other++
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	for i := range results {
		l := latencies[i]
		slices.Sort(l)
		if n := len(l); n > 0 {
			results[i].P50Seconds = l[n/2].Seconds()
			results[i].P99Seconds = l[min(n-1, n*99/100)].Seconds()
		}
		results[i].AllServed = results[i].OK == results[i].Sent
	}
	apierrors.WriteJSON(w, map[string]any{"flows": results})
}

// loadRequest sends one request of a load and returns its status code.
func loadRequest(ctx context.Context, cl *client.Client, method, path string) int {
	resp, err := cl.Stream(ctx, method, path, "", nil)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.Code
}

func (c *Controller) serveAdjust(w web.ResponseWriter, r *web.Request) {
	if r.Method != web.MethodPost {
		apierrors.Write(w, apierrors.NewMethodNotAllowed())
		return
	}
	c.mu.Lock()
	c.adjustBorrowingLocked()
	c.mu.Unlock()
	c.serveState(w, r)
}
