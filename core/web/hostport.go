package web

import "strings"

// JoinHostPort is net.JoinHostPort: "host:port", with an IPv6 host in brackets.
// (The core avoids package net, whose resolver and address tables the browser
// would otherwise load and initialize.)
func JoinHostPort(host, port string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}

// HasPort reports whether net.SplitHostPort finds a port in hostport.
func HasPort(hostport string) bool {
	if strings.HasPrefix(hostport, "[") {
		end := strings.Index(hostport, "]")
		return end > 0 && strings.HasPrefix(hostport[end+1:], ":") && !strings.ContainsAny(hostport[end+2:], "[]:") && !strings.ContainsAny(hostport[1:end], "[]")
	}
	return strings.Count(hostport, ":") == 1 && !strings.ContainsAny(hostport, "[]")
}
