package control

import (
	"encoding/base64"
	"net/url"
)

// Kubeconfig is a kubeconfig with one cluster, user and context, all named
// name, for server and token; caPEM, when given, is embedded as the
// cluster's certificate-authority-data, so kubectl verifies the server and,
// over TLS, sends the token.
func Kubeconfig(name, server, token string, caPEM []byte) string {
	ca := ""
	if len(caPEM) > 0 {
		ca = "\n    certificate-authority-data: " + base64.StdEncoding.EncodeToString(caPEM)
	}
	return "apiVersion: v1\nkind: Config\nclusters:\n- name: " + name + "\n  cluster:\n    server: " + server + ca +
		"\nusers:\n- name: " + name + "\n  user:\n    token: " + token +
		"\ncontexts:\n- name: " + name + "\n  context:\n    cluster: " + name + "\n    user: " + name +
		"\n    namespace: default\ncurrent-context: " + name + "\n"
}

// SandboxServer is the URL of sandbox id's API at origin.
func SandboxServer(origin, id string) string { return origin + "/s/" + id }

// PlaygroundLink is the playground at origin with its remote target preset
// to server and token (the page reads them from the fragment, which no
// request carries).
func PlaygroundLink(origin, server, token string) string {
	return origin + "/#" + url.Values{"target": {"remote"}, "url": {server}, "token": {token}}.Encode()
}

// sandboxKubeconfig is the kubeconfig handed out for sandbox id.
func sandboxKubeconfig(id, server, token string, caPEM []byte) string {
	return Kubeconfig("kubeplay-"+id[:8], server, token, caPEM)
}
