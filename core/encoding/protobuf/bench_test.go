package protobuf_test

import (
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"kubeplay/core/encoding/protobuf"
)

// BenchmarkMarshalPod encodes a typical pod from its JSON form, timed against
// gogo's Marshal of the same typed pod in the same loop (x-gogo: our time over
// gogo's).
func BenchmarkMarshalPod(b *testing.B) {
	pod := samplePod()
	obj := jsonForm(b, pod)
	buf, err := protobuf.Marshal(nil, "v1", "Pod", obj)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	againstGogo(b, func() (err error) {
		buf, err = protobuf.Marshal(buf[:0], "v1", "Pod", obj)
		return err
	}, func() error {
		_, err := pod.Marshal()
		return err
	})
}

// BenchmarkUnmarshalPod decodes a typical pod to its JSON form, timed against
// gogo's Unmarshal into the typed pod in the same loop.
func BenchmarkUnmarshalPod(b *testing.B) {
	raw, err := samplePod().Marshal()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	againstGogo(b, func() error {
		_, err := protobuf.Unmarshal("v1", "Pod", raw)
		return err
	}, func() error {
		return new(corev1.Pod).Unmarshal(raw)
	})
}

// againstGogo times ours and gogo alternately in one loop and reports ours as a
// multiple of gogo's time, with each side's time per operation.
func againstGogo(b *testing.B, ours, gogo func() error) {
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	var tOurs, tGogo time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := ours(); err != nil {
			b.Fatal(err)
		}
		tOurs += time.Since(start)
		start = time.Now()
		if err := gogo(); err != nil {
			b.Fatal(err)
		}
		tGogo += time.Since(start)
	}
	b.ReportMetric(float64(tOurs)/float64(tGogo), "x-gogo")
	b.ReportMetric(float64(tOurs.Nanoseconds())/float64(b.N), "ours-ns/op")
	b.ReportMetric(float64(tGogo.Nanoseconds())/float64(b.N), "gogo-ns/op")
}
