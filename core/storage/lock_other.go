//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package storage

import "os"

// lockDir, where the system has no flock (js/wasm, whose hosts persist through
// their own Persister; Windows; Plan 9), only writes the pid into the lock file:
// the data directory is not locked there.
func lockDir(dir string) (*os.File, error) {
	f, _, err := openLockFile(dir)
	if err != nil {
		return nil, err
	}
	if err := writePID(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
