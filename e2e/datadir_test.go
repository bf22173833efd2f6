package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ROB-4 on the native host: a data directory has one writer, and a store whose
// journal does not continue its snapshot is refused, not served nearly empty.

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

// TestROB_4_MissingSnapshotRefusedAtStart: issue 26's reproduction: past the
// native snapshot interval (10,000 commits) the journal starts where the
// snapshot ends. With the snapshot gone the server does not start with the
// journal's few objects: it exits, naming the directory and the revisions
// missing, and leaves the files as they were, so that with the snapshot put back
// every object is there. A snapshot whose first byte is damaged (two bits make
// it the first byte of buntdb's format before frames) costs its head frame,
// reported, not the start.
func TestROB_4_MissingSnapshotRefusedAtStart(t *testing.T) {
	bin := durBuildPlayground(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	p := durStart(t, bin, "--data", dataDir)
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer c.CloseIdleConnections()
	const writers, perWriter = 8, 1300 // 10,400 creates
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				if _, code, err := durCreate(t.Context(), c, p.url, fmt.Sprintf("cm-%d-%04d", w, i)); err != nil || code != http.StatusCreated {
					errs <- fmt.Errorf("create: %d %v", code, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	p.kill(t)
	c.CloseIdleConnections()

	snapPath, journalPath := filepath.Join(dataDir, "snapshot"), filepath.Join(dataDir, "journal")
	snap, err := os.ReadFile(snapPath)
	if err != nil {
		t.Fatal(err)
	}
	journal, _ := os.ReadFile(journalPath)
	if len(journal) == 0 {
		t.Fatal("the journal is empty: nothing after the snapshot")
	}
	if err := os.Remove(snapPath); err != nil {
		t.Fatal(err)
	}
	code, out := durRunToExit(t, bin, "--data", dataDir)
	t.Logf("without the snapshot (exit %d): %s", code, out)
	if code == 0 || !strings.Contains(out, "--data "+dataDir+": storage: the snapshot is missing and the journal starts at revision") ||
		!strings.Contains(out, "revisions 1 to ") {
		t.Fatalf("the server did not refuse to start, naming the gap")
	}
	if after, _ := os.ReadFile(journalPath); string(after) != string(journal) {
		t.Fatalf("the refused start changed the journal (%d bytes, was %d)", len(after), len(journal))
	}

	if err := os.WriteFile(snapPath, snap, 0o644); err != nil {
		t.Fatal(err)
	}
	p = durStart(t, bin, "--data", dataDir)
	if have, _ := durList(t, c, p.url); len(have) != writers*perWriter {
		t.Fatalf("%d of %d objects with the snapshot put back", len(have), writers*perWriter)
	}
	p.kill(t)
	c.CloseIdleConnections()

	snap[0] ^= 0x41
	if err := os.WriteFile(snapPath, snap, 0o644); err != nil {
		t.Fatal(err)
	}
	p = durStart(t, bin, "--data", dataDir)
	if have, _ := durList(t, c, p.url); len(have) != writers*perWriter {
		t.Fatalf("%d of %d objects after the snapshot's first byte was damaged", len(have), writers*perWriter)
	}
	if !strings.Contains(p.log(), "restore: storage: snapshot part 1 of") {
		t.Fatalf("the damage is not logged:\n%s", p.log())
	}
}
