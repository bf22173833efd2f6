package apiserver

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/apply"
	"kubeplay/core/encoding"
	"kubeplay/core/field"
	"kubeplay/core/fieldvalidation"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/request"
	"kubeplay/core/warning"
	"kubeplay/core/web"
)

// target is what a resource request addresses.
type target struct {
	res       *api.Resource
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
		writeEarlyStatus(w, r, st)
		return
	}
	if t.res.Remote != nil { // the aggregator's proxy
		t.res.Remote.ServeHTTP(w, r)
		return
	}
	if !methodAllowed(r.Method, allow) {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeRouterStatus(w, r, apierrors.NewMethodNotAllowed())
		return
	}
	if v := t.res.DeprecatedIn; v != "" {
		warning.Add(r.Context(), t.res.APIVersion()+" "+t.res.Kind+" is deprecated in "+v+"+")
	}
	if sub := t.res.Sub(t.sub); sub != nil && sub.Connect {
		s.connect(w, r, t)
		return
	}
	if t.sub != "" && t.sub != "status" && t.sub != "finalize" && t.sub != "scale" && t.sub != "binding" && t.sub != "eviction" && t.sub != "log" && t.sub != "token" && t.sub != "approval" && t.sub != "ephemeralcontainers" {
		writeEarlyStatus(w, r, apierrors.NewPathNotFound())
		return
	}
	if st = checkRoute(r, t.res, info.Verb); st != nil {
		writeEarlyStatus(w, r, st)
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
		writeEarlyStatus(w, r, st)
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
func checkRoute(r *web.Request, res *api.Resource, verb string) *apierrors.Status {
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
		case apply.IsPatch(patchType) && manager == "":
			errs = append(errs, field.Required(field.NewPath("fieldManager"), "is required for apply patch"))
		case !apply.IsPatch(patchType) && force:
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
	res := s.kinds.Lookup(info.APIGroup, info.APIVersion, info.Resource)
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
	if len(parts) > 3 && parts[2] != "proxy" { // a proxy's path goes on
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
	case res.Computed != nil: // read only
		return t, []string{web.MethodGet}, nil
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
		if t.sub == "proxy" { // kube's proxy passes OPTIONS on too
			return t, append(verbMethods(sub.Verbs), web.MethodOptions), nil
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

func (s *Server) get(w web.ResponseWriter, r *web.Request, t target) error {
	if t.sub == "log" {
		return s.podLog(w, r, t)
	}
	var rv int64
	if v := r.URL.Query().Get("resourceVersion"); v != "" && v != "0" {
		var err error
		if rv, err = parseResourceVersion(v); err != nil {
			return err
		}
	}
	val, err := s.store.Get(r.Context(), t.res, t.namespace, t.name, rv)
	if err != nil {
		return err
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
func (t target) answerResource() *api.Resource {
	sub := t.res.Sub(t.sub)
	if sub == nil || sub.Kind == t.res.Kind {
		return t.res
	}
	version := subVersion(*sub)
	if sub.Group == t.res.Group { // a kind of the resource's own group (a Pod's Binding)
		version = t.res.Version
	}
	return &api.Resource{Group: sub.Group, Version: version, Kind: sub.Kind, Plural: t.res.Plural, Namespaced: t.res.Namespaced}
}

func (s *Server) list(w web.ResponseWriter, r *web.Request, t target) error {
	o, err := parseListOptions(r.URL.Query(), t.res)
	if err != nil {
		return err
	}
	l, err := s.store.List(r.Context(), t.res, t.namespace, o)
	if err != nil {
		return err
	}
	t.rep.writeList(w, t.res, listMeta{ResourceVersion: l.ResourceVersion, Continue: l.Continue, RemainingItemCount: l.RemainingItemCount}, l.Items)
	return nil
}

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
func readObject(r *web.Request, res *api.Resource, validation fieldvalidation.Directive) (object.Object, error) {
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
