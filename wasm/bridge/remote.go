//go:build js && wasm

package bridge

import (
	"encoding/json"
	"syscall/js"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/web"
	"kubeplay/wasm/jsio"
)

// Remote is a web.Handler over another Go instance's handle function (what
// Handler gives JavaScript): a second module in the same worker (the xDS
// module) is a client of the core through it, as through the core's own
// handler natively. The caller's identity (core/auth's user in the request's
// context) goes along as impersonation headers, which the core's
// authentication applies. ServeHTTP must not run on the goroutine of a
// JavaScript callback.
func Remote(handle js.Value) web.Handler {
	fetch := jsio.Fetch(handle)
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		if u, ok := user.From(r.Context()); ok {
			r.Header = r.Header.Clone()
			r.Header.Set("Impersonate-User", u.Name)
			for _, g := range u.Groups {
				r.Header.Add("Impersonate-Group", g)
			}
		}
		fetch.ServeHTTP(w, r)
	})
}

// RemoteCheck is a kind's validation done by another Go instance (the xDS
// module validates Envoy resources for the core): check(kind, object JSON)
// returns a Promise of the JSON text of EncodeErrors' list. It must not be
// called on the goroutine of a JavaScript callback.
func RemoteCheck(check js.Value) func(kind string, obj object.Object) field.ErrorList {
	return func(kind string, obj object.Object) field.ErrorList {
		doc, err := object.Encode(obj)
		if err == nil {
			var res js.Value
			if res, err = jsio.Await(check.Invoke(kind, string(doc))); err == nil {
				return DecodeErrors(res.String())
			}
		}
		return field.ErrorList{&field.Error{Type: field.ErrorTypeInternal, Field: "spec", Detail: "the xDS module could not check it: " + err.Error()}}
	}
}

// fieldError is a field.Error as it crosses between Go instances.
type fieldError struct {
	Type   field.ErrorType `json:"type"`
	Field  string          `json:"field"`
	Value  any             `json:"value,omitempty"`
	Detail string          `json:"detail,omitempty"`
}

// EncodeErrors is errs as JSON text for DecodeErrors.
func EncodeErrors(errs field.ErrorList) string {
	out := make([]fieldError, len(errs))
	for i, e := range errs {
		out[i] = fieldError{Type: e.Type, Field: e.Field, Value: e.BadValue, Detail: e.Detail}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// DecodeErrors reads EncodeErrors' text back into errors that print alike.
func DecodeErrors(text string) field.ErrorList {
	var in []fieldError
	if err := json.Unmarshal([]byte(text), &in); err != nil {
		return field.ErrorList{&field.Error{Type: field.ErrorTypeInternal, Field: "spec", Detail: err.Error()}}
	}
	out := make(field.ErrorList, len(in))
	for i, e := range in {
		p := field.NewPath(e.Field)
		switch e.Type {
		case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeInternal, field.ErrorTypeTooLong:
			out[i] = field.Required(p, e.Detail)
		default:
			out[i] = field.Invalid(p, e.Value, e.Detail)
		}
		out[i].Type = e.Type
	}
	return out
}

// Module is the handler another Go module of the same worker calls through
// Remote (the xDS module, the simulated cluster): Remote's impersonation
// headers name the caller, who becomes the request's identity as the core's
// own in-process callers' is (kube's controllers and kubelets, which the
// core trusts, are authorized by nothing here). Only the worker's script
// holds it; pages reach the core through the ordinary handler.
func Module(h web.Handler) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		name := r.Header.Get("Impersonate-User")
		if name == "" {
			h.ServeHTTP(w, r)
			return
		}
		u := user.User{Name: name, Groups: r.Header.Values("Impersonate-Group")}
		r.Header.Del("Impersonate-User")
		r.Header.Del("Impersonate-Group")
		h.ServeHTTP(w, r.WithContext(user.WithUser(r.Context(), u)))
	})
}
