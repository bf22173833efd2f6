//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package storage

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir takes the data directory's lock, as etcd locks its write-ahead log: an
// exclusive flock on its lock file, held as long as the file is open and let go
// by the kernel however the process ends (a SIGKILL leaves no stale lock). The
// holder writes its pid into the file, so that another process can name it.
func lockDir(dir string) (*os.File, error) {
	f, path, err := openLockFile(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, lockedError(dir, path)
		}
		return nil, fmt.Errorf("storage: locking %s: %w", path, err)
	}
	if err := writePID(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
