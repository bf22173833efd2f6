package e2e

import (
	"context"
	"errors"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ROB-4 on the native host: a data directory has one writer.

// durRunToExit runs the binary with flags as durStart does and waits for it to
// exit on its own: its exit code and what it wrote to stderr. A run that is still
// serving after a minute is killed and fails the test.
func durRunToExit(t *testing.T, bin string, flags ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // only so a server that keeps running cannot hang the run
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--listen", "127.0.0.1:0", "--quiet", "--cluster", "api-only"}, flags...)...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the server did not exit; it served:\n%s", out)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// TestROB_4_SecondServerOnDataDirectoryExits: issue 26's reproduction: a second
// server started on a data directory in use exits at once, naming the directory
// and the pid of the server that holds it, which keeps serving; once that one is
// killed (SIGKILL leaves its lock file behind, never its lock), the directory
// opens again with everything it acknowledged.
func TestROB_4_SecondServerOnDataDirectoryExits(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the data directory is locked with flock")
	}
	bin := durBuildPlayground(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	first := durStart(t, bin, "--data", dataDir)
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	if _, code, err := durCreate(t.Context(), c, first.url, "before"); err != nil || code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, err)
	}

	code, out := durRunToExit(t, bin, "--data", dataDir)
	t.Logf("second server (exit %d): %s", code, out)
	if code == 0 {
		t.Fatalf("the second server exited with 0")
	}
	for _, want := range []string{dataDir, "process " + strconv.Itoa(first.cmd.Process.Pid)} {
		if !strings.Contains(out, want) {
			t.Errorf("the second server's error does not name %q:\n%s", want, out)
		}
	}
	if _, code, err := durCreate(t.Context(), c, first.url, "after"); err != nil || code != http.StatusCreated {
		t.Fatalf("the first server after the second's attempt: %d %v", code, err)
	}

	first.kill(t)
	c.CloseIdleConnections()
	again := durStart(t, bin, "--data", dataDir)
	have, _ := durList(t, c, again.url)
	if _, ok := have["before"]; !ok || len(have) != 2 {
		t.Fatalf("after the holder was killed: %v\n%s", have, again.log())
	}
}
