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
	runtime.GC()
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	var ours, gogo time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		buf, err = protobuf.Marshal(buf[:0], "v1", "Pod", obj)
		ours += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}

		start = time.Now()
		_, err = pod.Marshal()
		gogo += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ours)/float64(gogo), "x-gogo")
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ours-ns/op")
	b.ReportMetric(float64(gogo.Nanoseconds())/float64(b.N), "gogo-ns/op")
}

// BenchmarkUnmarshalPod decodes a typical pod to its JSON form, timed against
// gogo's Unmarshal into the typed pod in the same loop.
func BenchmarkUnmarshalPod(b *testing.B) {
	raw, err := samplePod().Marshal()
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	var ours, gogo time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		_, err := protobuf.Unmarshal("v1", "Pod", raw)
		ours += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}

		start = time.Now()
		err = new(corev1.Pod).Unmarshal(raw)
		gogo += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ours)/float64(gogo), "x-gogo")
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ours-ns/op")
	b.ReportMetric(float64(gogo.Nanoseconds())/float64(b.N), "gogo-ns/op")
}
