package protobuf

import "kubeplay/core/quantity"

// checkQuantity accepts the strings resource.ParseQuantity accepts, with its
// error messages. It does not canonicalize: the API server stores quantities
// canonically (core/quantity) before they are encoded.
func checkQuantity(s string) error {
	if _, err := quantity.Canonical(s); err != nil {
		return &fieldError{msg: err.Error()}
	}
	return nil
}
