//go:build !linux

package apiserver

import "time"

var started = time.Now()

// threadCPU is, where no thread CPU clock is read, the time since the
// program started: the wall clock.
func threadCPU() time.Duration { return time.Since(started) }
