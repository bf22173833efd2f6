package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// generous bounds every wait in these tests: long enough for a loaded machine,
// short enough that a server without the limit under test fails the test.
const generous = 10 * time.Second

// keepAlive makes one request on a new connection and leaves the connection
// open, as an idle keep-alive client does.
func keepAlive(s *server) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(s.url, "http://"), generous)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(generous))
	res, err := roundTrip(c, "GET /version HTTP/1.1\r\nHost: "+strings.TrimPrefix(s.url, "http://")+"\r\n\r\n")
	if err == nil && res.StatusCode != http.StatusOK {
		err = errors.New(res.Status)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// roundTrip writes a raw request on c and reads the response with its body.
func roundTrip(c net.Conn, request string) (*http.Response, error) {
	if _, err := io.WriteString(c, request); err != nil {
		return nil, err
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res, err
}

// closedByServer reports whether the server closed c (a read sees EOF after
// what the server sent, an HTTP/2 server its SETTINGS) within wait.
func closedByServer(c net.Conn, wait time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(wait))
	_, err := io.Copy(io.Discard, c)
	return err == nil || errors.Is(err, syscall.ECONNRESET)
}

// settle waits until s's connection budget counts open connections, of
// which serving are serving (the server learns that a client is done with a
// connection a moment after the client does).
func settle(t *testing.T, s *server, open, serving int) {
	t.Helper()
	deadline := time.Now().Add(generous)
	for {
		s.conns.mu.Lock()
		o, busy := len(s.conns.open), 0
		for _, since := range s.conns.open {
			if since.IsZero() {
				busy++
			}
		}
		s.conns.mu.Unlock()
		if o == open && busy == serving {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, %d serving; want %d, %d", o, busy, open, serving)
		}
		time.Sleep(time.Millisecond)
	}
}

// accepted waits until s's connection budget counts c, a connection the
// client has dialed (the kernel completes a dial before the server accepts
// it, and the gRPC server accepts in a goroutine of its own).
func accepted(t *testing.T, s *server, c net.Conn) {
	t.Helper()
	deadline := time.Now().Add(generous)
	for {
		s.conns.mu.Lock()
		found := false
		for sc := range s.conns.open {
			if sc.RemoteAddr().String() == c.LocalAddr().String() {
				found = true
			}
		}
		s.conns.mu.Unlock()
		if found {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never counted the connection from %s", c.LocalAddr())
		}
		time.Sleep(time.Millisecond)
	}
}

// setFileLimit sets the process's soft RLIMIT_NOFILE for the test.
func setFileLimit(t *testing.T, n uint64) {
	t.Helper()
	var was syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &was); err != nil {
		t.Fatal(err)
	}
	if n > was.Max {
		t.Skipf("needs %d open files, the hard limit is %d", n, was.Max)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: was.Max}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &was) })
}

// 2,000 idle keep-alive connections in a process that can open only a few more
// files than that: without a cap the server's side of them exhausts the
// descriptors ("accept4: too many open files") and nobody is answered; with
// it, the connections idle longest are closed and the server keeps answering.
func TestPLAY_8_IdleConnectionsDoNotExhaustTheServer(t *testing.T) {
	const idle = 2000
	setFileLimit(t, uint64(idle+defaultLimits.maxConnections+500))
	s := startPlayground(t, options{})
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for i := range idle {
		c, err := keepAlive(s)
		if err != nil {
			t.Fatalf("idle connection %d: %v", i, err)
		}
		conns = append(conns, c)
	}
	client := &http.Client{Timeout: generous, Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Get(s.url + "/version")
	if err != nil {
		t.Fatalf("with %d idle connections open: %v", idle, err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("with %d idle connections open: %s", idle, res.Status)
	}
	// Look quickly first; on a loaded machine a close may still be on its way, so
	// look again, longer, at those that seemed open, until enough are seen closed.
	want := idle - defaultLimits.maxConnections
	closed, open := 0, conns
	for _, wait := range []time.Duration{time.Millisecond, 100 * time.Millisecond} {
		var still []net.Conn
		for _, c := range open {
			if closed < want && closedByServer(c, wait) {
				closed++
			} else {
				still = append(still, c)
			}
		}
		open = still
	}
	if closed < want {
		t.Errorf("the server closed %d of the %d idle connections, want at least %d", closed, idle, want)
	}
}

// A connection left idle after a request, or opened and never used, is closed
// after the idle (or header) timeout.
func TestPLAY_8_IdleConnectionsTimeOut(t *testing.T) {
	l := defaultLimits
	l.idleTimeout, l.readHeaderTimeout = 100*time.Millisecond, 100*time.Millisecond
	s := startPlayground(t, options{limits: l})
	kept, err := keepAlive(s)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	silent, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	if !closedByServer(kept, generous) {
		t.Error("a kept-alive connection stayed open past the idle timeout")
	}
	if !closedByServer(silent, generous) {
		t.Error("a connection that sent nothing stayed open past the header timeout")
	}
}

// A body trickled a byte at a time is cut off at the request timeout, and
// nothing is created from it.
func TestPLAY_8_TrickledBodyCutOff(t *testing.T) {
	l := defaultLimits
	l.requestTimeout = 200 * time.Millisecond
	s := startPlayground(t, options{limits: l})
	c, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := configMapBody("trickled")
	head := "POST " + cmPath + " HTTP/1.1\r\nHost: " + strings.TrimPrefix(s.url, "http://") +
		"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	// One byte every 100ms: the whole body would take several seconds.
	stop := make(chan struct{})
	trickled := make(chan int, 1)
	go func() {
		n := 0
		defer func() { trickled <- n }()
		for ; n < len(body); n++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := c.Write([]byte{body[n]}); err != nil {
				return
			}
		}
	}()
	c.SetReadDeadline(time.Now().Add(generous))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	close(stop)
	if n := <-trickled; n == len(body) {
		t.Fatalf("the server read the whole trickled body (%d bytes): response %v, %v", n, res, err)
	}
	if err == nil && res.StatusCode < 400 {
		t.Errorf("a trickled body got %s", res.Status)
	}
	if names := configMapNames(t, s); len(names) != 0 {
		t.Errorf("a trickled body created %v", names)
	}
}

// Watches are long-running: neither the request timeout nor the connection
// cap ends them, while idle connections make way for new clients.
func TestPLAY_8_WatchesOutliveTheLimits(t *testing.T) {
	l := defaultLimits
	l.requestTimeout, l.idleTimeout, l.maxConnections = 100*time.Millisecond, 100*time.Millisecond, 4
	s := startPlayground(t, options{limits: l})
	var watches []*bufio.Reader
	for range 2 {
		res, err := http.Get(s.url + cmPath + "?watch=1")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		watches = append(watches, bufio.NewReader(res.Body))
	}
	time.Sleep(5 * l.requestTimeout) // the watches outlive both timeouts
	// More clients than the cap leaves room for, one after another (each
	// once the server counts the last one idle).
	settle(t, s, 2, 2)
	for i := range 3 * l.maxConnections {
		c, err := keepAlive(s)
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		defer c.Close()
		settle(t, s, min(3+i, l.maxConnections), 2)
	}
	client := &http.Client{Timeout: generous, Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Post(s.url+cmPath, "application/json", strings.NewReader(configMapBody("seen")))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create: %s", res.Status)
	}
	for i, w := range watches {
		done := make(chan string, 1)
		go func() {
			line, _ := w.ReadString('\n')
			done <- line
		}()
		select {
		case line := <-done:
			if !strings.Contains(line, `"type":"ADDED"`) || !strings.Contains(line, `"seen"`) {
				t.Errorf("watch %d: %q", i, line)
			}
		case <-time.After(generous):
			t.Errorf("watch %d saw no event", i)
		}
	}
}
