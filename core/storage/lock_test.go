//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package storage

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestROB_4_DataDirectoryLocked: a data directory has one writer. A second
// persister on it fails at once, naming the directory and the holder's pid;
// once the first is closed the directory opens again.
func TestROB_4_DataDirectoryLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	first, err := OpenFilePersister(dir)
	if err != nil {
		t.Fatal(err)
	}
	second, err := OpenFilePersister(dir)
	if err == nil {
		second.Close()
		first.Close()
		t.Fatal("a second persister opened the data directory in use")
	}
	t.Log(err)
	for _, want := range []string{dir, "process " + strconv.Itoa(os.Getpid())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := OpenFilePersister(dir)
	if err != nil {
		t.Fatalf("after the holder closed: %v", err)
	}
	again.Close()
}
