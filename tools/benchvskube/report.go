package main

import (
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// results holds every sample: row → column → one value per run.
type results struct {
	mu sync.Mutex
	v  map[string]map[string][]float64
}

func newResults() *results { return &results{v: map[string]map[string][]float64{}} }

func (r *results) recorder(col string) func(string, float64) {
	return func(row string, v float64) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.v[row] == nil {
			r.v[row] = map[string][]float64{}
		}
		r.v[row][col] = append(r.v[row][col], v)
	}
}

func (r *results) samples(row, col string) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.v[row][col])
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// rowDef is a table row: what it measures, its unit, which way is better and
// kubeplay's goal for it (the ratio it must reach).
type rowDef struct {
	key, label, unit string
	higherIsBetter   bool
	goal             float64
}

func rowDefs(cfg *config) []rowDef {
	n := thousands(float64(cfg.objects))
	size := fmt.Sprintf("%d B", cfg.objectBytes)
	if cfg.objectBytes%1024 == 0 {
		size = fmt.Sprintf("%d KiB", cfg.objectBytes/1024)
	}
	return []rowDef{
		{rowCreate, fmt.Sprintf("create %s ConfigMaps of %s, %d conns", n, size, cfg.conns), "req/s", true, 2},
		{rowGet, fmt.Sprintf("GET a ConfigMap, %d conns", cfg.conns), "req/s", true, 2},
		{rowListJSONGz, fmt.Sprintf("list all %s, JSON, gzip", n), "ms", false, 2},
		{rowListJSON, fmt.Sprintf("list all %s, JSON, no gzip", n), "ms", false, 2},
		{rowListPBGz, fmt.Sprintf("list all %s, protobuf, gzip", n), "ms", false, 2},
		{rowListPB, fmt.Sprintf("list all %s, protobuf, no gzip", n), "ms", false, 2},
		{rowFanout, fmt.Sprintf("watch fan-out, %d writes → %d watchers", cfg.writes, cfg.watchers), "ms", false, 2},
		{rowRSS, "memory after the workload (RSS)", "MB", false, 5},
	}
}

// cpuRow is the key of the row holding the server's CPU time per operation of row.
func cpuRow(row string) string { return "cpu-" + row }

// cpuRowDefs are the server CPU time rows: per request for creates and GETs,
// per list, per fan-out (from the first write until every watcher had every event).
func cpuRowDefs(cfg *config) []rowDef {
	label := map[string]string{
		rowCreate:     "create",
		rowGet:        "GET",
		rowListJSONGz: "list, JSON, gzip",
		rowListJSON:   "list, JSON, no gzip",
		rowListPBGz:   "list, protobuf, gzip",
		rowListPB:     "list, protobuf, no gzip",
		rowFanout:     "fan-out",
	}
	var out []rowDef
	for _, d := range rowDefs(cfg) {
		switch d.key {
		case rowRSS:
			continue
		case rowCreate, rowGet:
			d.unit = "µs"
		default:
			d.unit = "ms"
		}
		d.key, d.label, d.higherIsBetter, d.goal = cpuRow(d.key), label[d.key], false, 0
		out = append(out, d)
	}
	return out
}

// advantage is kubeplay's advantage over kube: ≥1 means kubeplay is ahead.
func advantage(kubeplay, kube float64, higherIsBetter bool) float64 {
	if kubeplay <= 0 || kube <= 0 {
		return 0
	}
	if higherIsBetter {
		return kubeplay / kube
	}
	return kube / kubeplay
}

func formatValue(v float64, unit string) string {
	switch unit {
	case "req/s":
		return thousands(v)
	case "MB", "µs":
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		if v >= 100 {
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
}

// thousands formats v rounded to an integer with thousands separators.
func thousands(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// tableRow is one printed row of the comparison.
type tableRow struct {
	label, kubeplay, kube, ratio, goal string
	floor, maxRatio                    string // "–" where there is no floor
	extras                             []string
	missed                             bool
}

// compare builds the table's rows from the medians: kubeplay is column kp,
// kube-apiserver column kube, the floor (where a row has one) colFloor, and
// extras are printed last. maxRatio is the ratio a server that cost nothing
// beyond the floor would reach.
func compare(defs []rowDef, med func(row, col string) float64, kp, kube string, extras []string) []tableRow {
	var out []tableRow
	for _, d := range defs {
		a, b := med(d.key, kp), med(d.key, kube)
		ratio := advantage(a, b, d.higherIsBetter)
		tr := tableRow{
			label:    fmt.Sprintf("%s (%s)", d.label, d.unit),
			kubeplay: formatValue(a, d.unit),
			kube:     formatValue(b, d.unit),
			ratio:    strconv.FormatFloat(ratio, 'f', 2, 64) + "×",
			missed:   ratio < d.goal,
		}
		tr.goal = "≥" + strconv.FormatFloat(d.goal, 'f', -1, 64) + "× "
		if tr.missed {
			tr.goal += "MISS"
		} else {
			tr.goal += "ok"
		}
		tr.floor, tr.maxRatio = "–", "–"
		if f := med(d.key, colFloor); f > 0 {
			tr.floor = formatValue(f, d.unit)
			tr.maxRatio = strconv.FormatFloat(advantage(f, b, d.higherIsBetter), 'f', 2, 64) + "×"
		}
		for _, e := range extras {
			tr.extras = append(tr.extras, formatValue(med(d.key, e), d.unit))
		}
		out = append(out, tr)
	}
	return out
}

// formatTable lays rows out in columns: the first left-aligned, numbers right-aligned.
func formatTable(header []string, rows [][]string) string {
	widths := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	line := func(r []string) {
		var l strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			switch {
			case i == 0:
				l.WriteString(c + pad)
			case header[i] == "goal": // left-aligned, so MISS stands out
				l.WriteString("  " + c + pad)
			default:
				l.WriteString("  " + pad + c)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	line(header)
	total := len(widths)*2 - 2
	for _, w := range widths {
		total += w
	}
	b.WriteString(strings.Repeat("-", total) + "\n")
	for _, r := range rows {
		line(r)
	}
	return b.String()
}

func printReport(w io.Writer, cfg *config, res *results, loadAfter string) {
	kp := cfg.kubeplayColumn
	defs := rowDefs(cfg)
	med := func(row, col string) float64 { return median(res.samples(row, col)) }
	rows := compare(defs, med, kp, colKube, cfg.kubeplayExtraColumns)

	fmt.Fprintf(w, "\nkubeplay %s vs kube-apiserver %s (refapi kit: kube-apiserver with an embedded etcd)\n", gitHead(), cfg.kubeVersion)
	if cfg.kubeplayInMemory {
		fmt.Fprintf(w, "NOT LIKE FOR LIKE (-kubeplay-in-memory): kubeplay keeps its store in memory, etcd fsyncs its WAL\n")
	} else {
		fmt.Fprintf(w, "both durable: kubeplay --data fsyncs every acknowledged write, etcd fsyncs its WAL\n")
	}
	if kp == colKubeplayTLS {
		fmt.Fprintf(w, "transport: both over TLS (self-signed, verification skipped), HTTP/1.1 keep-alive; kubeplay's core behind crypto/tls (%s)\n", serveTLSCommand)
	} else {
		fmt.Fprintf(w, "transport: kube-apiserver over TLS, kubeplay over plain HTTP: kube pays TLS, kubeplay does not\n")
	}
	for _, e := range cfg.kubeplayExtraColumns {
		if e == colKubeplayHTTP {
			fmt.Fprintf(w, "%q: the playground command over plain HTTP, as make run serves it (not in the ratio)\n", e)
		}
	}
	fmt.Fprintf(w, "workload: %s ConfigMaps of %d B random data, %d connections; %s GETs; lists: median of %d; fan-out: median of %d\n",
		thousands(float64(cfg.objects)), cfg.objectBytes, cfg.conns, thousands(float64(cfg.gets)), cfg.lists, cfg.watchRuns)
	fmt.Fprintf(w, "client: Go %s net/http (asks for gzip unless the row says no gzip); every row is the median of %d fresh starts of each server\n", cfg.goVersion, cfg.runs)
	fmt.Fprintf(w, "machine: %d CPUs, load average (1, 5, 15 min) %s before, %s after\n\n", runtime.NumCPU(), cfg.loadBefore, loadAfter)

	header := []string{"row", kp, colKube, "ratio", "goal", colFloor, "max ratio"}
	header = append(header, cfg.kubeplayExtraColumns...)
	var cells [][]string
	var missed []string
	for _, r := range rows {
		cells = append(cells, append([]string{r.label, r.kubeplay, r.kube, r.ratio, r.goal, r.floor, r.maxRatio}, r.extras...))
		if r.missed {
			missed = append(missed, r.label)
		}
	}
	fmt.Fprint(w, formatTable(header, cells))
	fmt.Fprintf(w, "\nratio: kubeplay's advantage (its rate ÷ kube's; kube's time or memory ÷ its): ≥1 means kubeplay is ahead.\n")
	fmt.Fprintf(w, "floor: the same requests over the same transport, answered with only the unavoidable work: creates appended and\n")
	fmt.Fprintf(w, "  fsynced with group commit, GETs from a map, kubeplay's list bytes (gzipped once, whole, at best speed, when asked),\n")
	fmt.Fprintf(w, "  events written to every watcher; it is the disk's, transfer's and client's share; its memory is a Go server's holding\n")
	fmt.Fprintf(w, "  the objects, the lists' bytes and the watchers' connections. max ratio: kube ÷ floor, the most\n")
	fmt.Fprintf(w, "  any server could be ahead.\n")
	fmt.Fprintf(w, "kube-apiserver's memory is one process holding kube-apiserver and etcd.\n")
	if len(missed) == 0 {
		fmt.Fprintf(w, "every row meets its goal.\n")
	} else {
		fmt.Fprintf(w, "%d of %d rows miss their goal: %s\n", len(missed), len(rows), strings.Join(missed, "; "))
	}

	fmt.Fprintf(w, "\nserver CPU time per operation (user+system, 10 ms ticks; steadier than wall time on a busy machine):\n")
	var cpuCells [][]string
	for _, r := range compare(cpuRowDefs(cfg), med, kp, colKube, nil) {
		cpuCells = append(cpuCells, []string{r.label, r.kubeplay, r.kube, r.ratio, r.floor})
	}
	fmt.Fprint(w, formatTable([]string{"per", kp, colKube, "ratio", colFloor}, cpuCells))

	fmt.Fprintf(w, "\nsamples (one per run):\n")
	cols := append([]string{kp, colKube, colFloor}, cfg.kubeplayExtraColumns...)
	for _, d := range append(defs, cpuRowDefs(cfg)...) {
		var parts []string
		for _, c := range cols {
			if len(res.samples(d.key, c)) == 0 {
				continue
			}
			var vs []string
			for _, v := range res.samples(d.key, c) {
				vs = append(vs, formatValue(v, d.unit))
			}
			parts = append(parts, c+" "+strings.Join(vs, " "))
		}
		fmt.Fprintf(w, "  %s: %s\n", d.key, strings.Join(parts, " | "))
	}
}

func gitHead() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return ""
	}
	return "(" + strings.TrimSpace(string(out)) + ")"
}
