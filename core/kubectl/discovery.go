package kubectl

// discoveryCache is the server's groups and resources as kubectl caches them
// between command lines (its ~/.kube/cache/discovery).
type discoveryCache struct{}
