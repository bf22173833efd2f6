package apiserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"kubeplay/core/apierrors"
	"kubeplay/core/clock"
	"kubeplay/core/encoding"
	"kubeplay/core/field"
	"kubeplay/core/fieldvalidation"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/request"
	"kubeplay/core/schema"
	"kubeplay/core/storage"
	"kubeplay/core/validation"
	"kubeplay/core/web"
)

// target is what a resource request addresses.
type target struct {
	res       *schema.Resource
	namespace string // "" for cluster-scoped resources and all-namespace lists
	name      string
	sub       string
	dryRun    bool   // dryRun=All: every stage but storage
	manager   string // who writes, as managedFields names it
	rep       reply  // how the request is answered
	// validation is what becomes of unknown and duplicate fields in the body.
	validation fieldvalidation.Directive
}

// serveResource routes a resource request to its verb.
func (s *Server) serveResource(w web.ResponseWriter, r *web.Request, info *request.RequestInfo) {
	t, allow, st := s.resolve(info)
	if st != nil {
		writeEarlyStatus(w, r, t.res, st)
		return
	}
	if !methodAllowed(r.Method, allow) {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeRouterStatus(w, r, t.res, apierrors.NewMethodNotAllowed())
		return
	}
	if t.sub != "" && t.sub != "status" && t.sub != "finalize" && t.sub != "scale" && t.sub != "binding" && t.sub != "eviction" && t.sub != "log" {
		writeEarlyStatus(w, r, t.res, apierrors.NewPathNotFound())
		return
	}
	if st = checkRoute(r, t.res, info.Verb); st != nil {
		writeEarlyStatus(w, r, t.res, st)
		return
	}
	t.rep, st = s.negotiateReply(r, t.res, info.Verb == "watch")
	if st != nil && st.Code == web.StatusNotAcceptable && t.res.Custom != nil {
		// kube answers a custom resource's 406 in what the Accept header
		// allows of a Status, naming the media types its built-in kinds have.
		accept := r.Header.Get("Accept")
		out, _ := encoding.NegotiateOutput(accept, encoding.Endpoint{Protobuf: true})
		_, err := encoding.NegotiateOutput("text/html", encoding.Endpoint{Protobuf: true})
		reply{out: out, accept: accept, protobuf: true}.writeStatus(w, notAcceptable(err))
		return
	}
	if st != nil {
		writeEarlyStatus(w, r, t.res, st)
		return
	}
	// A patch's options are read once its patch type is known.
	if info.Verb != "patch" {
		if st = t.parseWriteOptions(r, info.Verb, ""); st != nil {
			t.rep.writeStatus(w, st)
			return
		}
	}
	var err error
	switch info.Verb {
	case "get":
		err = s.get(w, r, t)
	case "list":
		err = s.list(w, r, t)
	case "watch":
		err = s.serveWatch(w, r, t)
	case "create":
		err = s.create(w, r, t)
	case "update":
		err = s.update(w, r, t)
	case "patch":
		err = s.patch(w, r, t)
	case "delete":
		err = s.delete(w, r, t)
	case "deletecollection":
		err = s.deleteCollection(w, r, t)
	default:
		w.Header().Set("Allow", strings.Join(allow, ", "))
		err = apierrors.NewMethodNotAllowed()
	}
	if err != nil {
		t.rep.writeStatus(w, apierrors.As(err))
	}
}

// patchContentTypes are the Content-Types a PATCH route takes.
var patchContentTypes = []string{"application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json",
	"application/apply-patch+yaml", "application/apply-patch+cbor"}

// checkRoute is what kube-apiserver's router (go-restful) checks before a
// handler runs, with its own words: that a PATCH's body is of a patch type,
// and that the Accept header names (parameters aside) a media type the route
// produces, those of the resource's collection including their watch forms.
// Custom resources have no such route: kube's CRD handler serves them.
func checkRoute(r *web.Request, res *schema.Resource, verb string) *apierrors.Status {
	if res.Custom != nil {
		return nil
	}
	if r.Method == web.MethodPatch && r.ContentLength > 0 && !namesMedia(r.Header.Get("Content-Type"), patchContentTypes) {
		return apierrors.New(web.StatusUnsupportedMediaType, "UnsupportedMediaType", "415: Unsupported Media Type", &apierrors.StatusDetails{})
	}
	ep := endpointFor(res, false)
	produced := ep.Accepted(false)
	if verb == "list" || verb == "watch" {
		produced = append(produced, ep.Accepted(true)...)
	}
	if accept := r.Header.Get("Accept"); accept != "" && !namesMedia(accept, append(produced, "*/*")) {
		return apierrors.New(web.StatusNotAcceptable, "NotAcceptable", "406: Not Acceptable\n\nAvailable representations: "+strings.Join(produced, ", "),
			&apierrors.StatusDetails{})
	}
	return nil
}

// namesMedia says whether a comma-separated list of media types names one of
// media, as go-restful compares them: parameters cut off, nothing else.
func namesMedia(list string, media []string) bool {
	for _, m := range strings.Split(list, ",") {
		m, _, _ = strings.Cut(m, ";")
		if slices.Contains(media, strings.TrimSpace(m)) {
			return true
		}
	}
	return false
}

// optionsKinds are the kinds kube reads a write's query options into.
var optionsKinds = map[string]string{
	"create": "CreateOptions", "update": "UpdateOptions", "patch": "PatchOptions",
	"delete": "DeleteOptions", "deletecollection": "DeleteOptions",
}

// parseWriteOptions reads the query options of a write (patchType, for a
// patch) into t — dryRun, and for a create, update or patch who writes
// (fieldManager, else the user agent's first segment) and what becomes of
// unknown and duplicate fields (fieldValidation) — and checks them as kube's
// Validate{Create,Update,Patch}Options do, all problems in one 422. An apply
// needs a fieldManager; force is for applies only. Reads ignore them.
func (t *target) parseWriteOptions(r *web.Request, verb, patchType string) *apierrors.Status {
	kind, write := optionsKinds[verb]
	q := r.URL.Query()
	switch {
	case !write:
		return nil
	case kind == "DeleteOptions":
		return nil // read with the body (readDeleteOptions)
	}
	manager := q.Get("fieldManager")
	var errs field.ErrorList
	if verb == "patch" {
		_, force := param(q, "force")
		switch {
		case isApply(patchType) && manager == "":
			errs = append(errs, field.Required(field.NewPath("fieldManager"), "is required for apply patch"))
		case !isApply(patchType) && force:
			errs = append(errs, field.Forbidden(field.NewPath("force"), "may not be specified for non-apply patch"))
		}
	}
	errs = append(errs, validateFieldManager(manager)...)
	errs = append(errs, registry.ValidateDryRun(q["dryRun"])...)
	validation, err := fieldvalidation.Parse(q.Get("fieldValidation"))
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid("meta.k8s.io", kind, "", errs)
	}
	t.validation = validation
	t.dryRun = len(q["dryRun"]) > 0
	t.manager = manager
	if manager == "" {
		t.manager = userAgentManager(r.UserAgent())
	}
	return nil
}

// fieldManagerMaxLength is kube's limit on a field manager's name.
const fieldManagerMaxLength = 128

// validateFieldManager checks a fieldManager as kube does: at most 128 bytes,
// printable characters only.
func validateFieldManager(manager string) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("fieldManager")
	if len(manager) > fieldManagerMaxLength {
		errs = append(errs, field.TooLong(path, fieldManagerMaxLength))
	}
	for i, r := range manager {
		if !unicode.IsPrint(r) {
			errs = append(errs, field.Invalid(path, manager, fmt.Sprintf("invalid character %#U (at position %d)", r, i)))
		}
	}
	return errs
}

// userAgentManager is the manager a write without fieldManager is recorded
// under: its user agent up to the first "/", without unprintable characters,
// cut to kube's limit ("kubectl" for kubectl, "Go-http-client" for Go's
// default).
func userAgentManager(userAgent string) string {
	prefix, _, _ := strings.Cut(userAgent, "/")
	var b strings.Builder
	for _, r := range prefix {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > fieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// resolve finds the resource and the methods its path allows.
func (s *Server) resolve(info *request.RequestInfo) (target, []string, *apierrors.Status) {
	var t target
	res := s.registry.Lookup(info.APIGroup, info.APIVersion, info.Resource)
	if res == nil || (info.APIPrefix == "api") != (res.Group == "") {
		return t, nil, apierrors.NewPathNotFound()
	}
	t = target{res: res, namespace: info.Namespace, name: info.Name, sub: info.Subresource}
	if res.Plural == "namespaces" {
		// Namespaces are no resource in a namespace: /namespaces/NS/namespaces... does not exist.
		if info.Namespace != "" && strings.Contains(info.Path+"/", "/namespaces/"+info.Namespace+"/namespaces/") {
			return t, nil, apierrors.NewPathNotFound()
		}
		t.namespace = ""
	}
	parts := info.Parts
	if len(parts) > 3 {
		return t, nil, apierrors.NewPathNotFound()
	}
	// A namespaced path to a cluster-scoped resource, or a named object of a
	// namespaced resource without its namespace, does not exist.
	inNamespace := info.Namespace != "" && res.Plural != "namespaces"
	if inNamespace && !res.Namespaced {
		return t, nil, apierrors.NewPathNotFound()
	}
	if info.Verb == "proxy" { // the /proxy/ path prefix is gone from kube-apiserver
		return t, nil, apierrors.NewPathNotFound()
	}
	if info.Verb == "watch" {
		if t.sub != "" {
			return t, nil, apierrors.NewPathNotFound()
		}
		return t, []string{web.MethodGet}, nil
	}
	switch {
	case t.name == "" && res.Namespaced && !inNamespace:
		return t, []string{web.MethodGet}, nil
	case t.name == "" && res.Virtual: // a review: create only
		return t, verbMethods(res.Verbs), nil
	case t.name == "":
		allow := []string{web.MethodGet, web.MethodPost}
		if res.HasVerb("deletecollection") {
			allow = append(allow, web.MethodDelete)
		}
		return t, allow, nil
	case res.Namespaced && !inNamespace:
		return t, nil, apierrors.NewPathNotFound()
	case t.sub != "":
		sub := res.Sub(t.sub)
		if sub == nil {
			return t, nil, apierrors.NewPathNotFound()
		}
		return t, verbMethods(sub.Verbs), nil
	}
	return t, []string{web.MethodDelete, web.MethodGet, web.MethodPatch, web.MethodPut}, nil
}

func verbMethods(verbs []string) []string {
	var out []string
	for _, v := range verbs {
		switch v {
		case "get":
			out = append(out, web.MethodGet)
		case "create":
			out = append(out, web.MethodPost)
		case "update":
			out = append(out, web.MethodPut)
		case "patch":
			out = append(out, web.MethodPatch)
		case "delete":
			out = append(out, web.MethodDelete)
		}
	}
	return out
}

func methodAllowed(method string, allow []string) bool {
	if method == web.MethodHead {
		method = web.MethodGet
	}
	for _, m := range allow {
		if m == method {
			return true
		}
	}
	return false
}

// waitFresh waits (briefly) until the store has reached rev, as kube-apiserver's
// watch cache does, and answers 504 "Too large resource version" otherwise;
// a read that kube sends to etcd (cached false) waits for nothing.
func (s *Server) waitFresh(ctx context.Context, rev int64, cached bool) error {
	if rev <= s.store.Revision() {
		return nil
	}
	if !cached {
		return apierrors.NewTooLargeResourceVersion(rev, s.store.Revision(), 0)
	}
	ctx, cancel := clock.WithTimeout(ctx, s.cfg.Clock, s.cfg.FreshnessWait)
	defer cancel()
	if err := s.store.WaitForRevision(ctx, rev); err != nil {
		return apierrors.NewTooLargeResourceVersion(rev, s.store.Revision(), 1)
	}
	return nil
}

// watchCached says whether kube-apiserver keeps a watch cache of res: of
// every resource but Events (its default --watch-cache-sizes leave them out),
// whose reads all go to etcd.
func watchCached(res *schema.Resource) bool {
	return res.Plural != "events" || res.Group != "" && res.Group != "events.k8s.io"
}

func (s *Server) get(w web.ResponseWriter, r *web.Request, t target) error {
	if t.sub == "log" {
		return s.podLog(w, r, t)
	}
	if v := r.URL.Query().Get("resourceVersion"); v != "" && v != "0" {
		rv, err := parseResourceVersion(v)
		if err != nil {
			return err
		}
		if err := s.waitFresh(r.Context(), rv, watchCached(t.res)); err != nil {
			return err
		}
	}
	val, ok := s.store.Get(registry.Key(t.res, t.namespace, t.name))
	if !ok {
		return apierrors.NewNotFound(t.res.Group, t.res.Plural, t.name)
	}
	if registry.IsCorrupt(val) {
		return registry.CorruptObjectError(t.res, t.namespace, t.name)
	}
	if t.sub == "scale" {
		obj, err := object.Decode(val)
		if err != nil {
			return apierrors.NewInternal(err)
		}
		scale, err := registry.ScaleOf(t.res, obj)
		if err != nil {
			return err
		}
		if val, err = object.Encode(scale); err != nil {
			return apierrors.NewInternal(err)
		}
	}
	t.rep.writeObject(w, web.StatusOK, t.answerResource(), val)
	return nil
}

// answerResource is the resource whose kind a request reads and answers
// with: a subresource's own kind when it has one (autoscaling/v1 Scale), else
// the resource's.
func (t target) answerResource() *schema.Resource {
	sub := t.res.Sub(t.sub)
	if sub == nil || sub.Kind == t.res.Kind {
		return t.res
	}
	version := subVersion(*sub)
	if sub.Group == t.res.Group { // a kind of the resource's own group (a Pod's Binding)
		version = t.res.Version
	}
	return &schema.Resource{Group: sub.Group, Version: version, Kind: sub.Kind, Plural: t.res.Plural, Namespaced: t.res.Namespaced}
}

// listBinding ties continue tokens to one list: collection, namespace, selectors.
func listBinding(t target, o *listOptions) string {
	return registry.CollectionPrefix(t.res, t.namespace) + "\x00" + o.Labels.String() + "\x00" + o.Fields.String()
}

func (s *Server) list(w web.ResponseWriter, r *web.Request, t target) error {
	o, err := parseListOptions(r.URL.Query(), t.res)
	if err != nil {
		return err
	}
	prefix := registry.CollectionPrefix(t.res, t.namespace)
	lo := storage.ListOptions{Prefix: prefix, Filter: o.filter()}
	if o.Limit > 0 {
		lo.Limit = int(o.Limit)
	}
	// A field selector naming one object makes kube's registry read that one
	// key (no pages, no continue).
	single := singleKey(t, o)
	if single != "" {
		lo.Prefix, lo.Limit = single, 0
	}
	binding := listBinding(t, o)
	// A resourceVersion with a limit and no match asks for that exact
	// revision (of a collection), and kube reads it from etcd.
	legacyExact := o.Match == "" && o.RV > 0 && o.Limit > 0
	// kube serves a list from its watch cache unless it continues one or asks
	// for an exact revision, or the resource has none: at the cache's
	// revision, ignoring a limit at resourceVersion 0; the cache's tokens name
	// their key after a slash.
	fromCache := o.Continue == "" && o.Match != "Exact" && !legacyExact && watchCached(t.res)
	switch {
	case o.Continue != "":
		if o.ResourceVersion != "" && o.ResourceVersion != "0" {
			return apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		rv, after, err := decodeContinue(o.Continue, binding)
		if err != nil {
			return err
		}
		lo.After = prefix + after
		if rv > 0 {
			lo.Rev = rv
		}
	case o.Match == "Exact" || legacyExact && single == "": // one key is read as not older than (etcd3's GetList)
		// kube's etcd answers a future exact revision with a 500; kubeplay
		// answers as its cache would (K8S-RV-3).
		if err := s.waitFresh(r.Context(), o.RV, watchCached(t.res)); err != nil {
			return err
		}
		lo.Rev = o.RV
	case o.RV > 0: // Not older than
		if err := s.waitFresh(r.Context(), o.RV, fromCache); err != nil {
			return err
		}
	}
	if fromCache {
		lo.Cache, lo.NotOlderThan = storage.CacheAny, o.RV
		switch o.ResourceVersion {
		case "":
			lo.Cache = storage.CacheConsistent
		case "0":
			lo.Limit = 0
		}
	}
	res, err := s.store.List(lo)
	switch {
	case errors.Is(err, storage.ErrCompacted) && o.Continue != "":
		st := apierrors.NewExpired(inconsistentContinue)
		st.Metadata.Continue = encodeContinue(-1, strings.TrimPrefix(lo.After, prefix), binding)
		return st
	case errors.Is(err, storage.ErrCompacted):
		return apierrors.NewExpired("The resourceVersion for the provided list is too old.")
	case errors.Is(err, storage.ErrFutureRevision):
		return apierrors.NewTooLargeResourceVersion(lo.Rev, s.store.Revision(), 0)
	case err != nil:
		return err
	}
	if err := registry.CheckReadable(t.res, res.Items); err != nil {
		return err
	}
	meta := listMeta{ResourceVersion: strconv.FormatInt(res.Rev, 10)}
	if res.More && len(res.Items) > 0 && single == "" {
		start := strings.TrimPrefix(res.Items[len(res.Items)-1].Key, prefix)
		if fromCache {
			start = "/" + start
		}
		meta.Continue = encodeContinue(res.Rev, start, binding)
		if !o.hasSelectors() && res.Remaining > 0 {
			n := res.Remaining
			meta.RemainingItemCount = &n
		}
	}
	t.rep.writeList(w, t.res, meta, res.Items)
	return nil
}

// singleKey is the one key a list reads when its field selector names one
// object (kube's SelectionPredicate.MatchesSingle, with the namespace of the
// request or, across namespaces, of the selector): "" when it does not, or
// when it continues a list.
func singleKey(t target, o *listOptions) string {
	name, ok := o.Fields.RequiresExactMatch("metadata.name")
	if !ok || o.Continue != "" || len(validation.PathSegmentName(name)) > 0 {
		return ""
	}
	namespace := t.namespace
	if ns, ok := o.Fields.RequiresExactMatch("metadata.namespace"); ok && namespace == "" && len(validation.DNS1123Label(ns)) == 0 {
		namespace = ns
	}
	if t.res.Namespaced && namespace == "" {
		return ""
	}
	return registry.Key(t.res, namespace, name)
}

const inconsistentContinue = "The provided continue parameter is too old to display a consistent list result. " +
	"You can start a new list without the continue parameter, or use the continue token in this response to " +
	"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
	"objects that were created, modified, or deleted between the time the first chunk was returned and now may " +
	"show up in the list."

type listMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// readBody reads a request body within the server's limit.
func readBody(r *web.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(r.Body)
	var tooLarge *web.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, apierrors.NewRequestEntityTooLarge(tooLarge.Limit)
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return b, nil
}

// readObject reads and decodes the object of a create or update (with its
// field validation), checking that it is of the resource's kind and
// apiVersion (defaulting them when absent).
func readObject(r *web.Request, res *schema.Resource, validation fieldvalidation.Directive) (object.Object, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	obj, err := decodeBody(r, res, body, validation)
	if err != nil {
		return nil, err
	}
	kind, _ := obj["kind"].(string)
	apiVersion, _ := obj["apiVersion"].(string)
	if apiVersion != "" && apiVersion != res.APIVersion() {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", apiVersion, res.APIVersion()))
	}
	if kind != "" && kind != res.Kind {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): kind %q does not match the resource's kind", res.Kind, kind))
	}
	return obj, nil
}
