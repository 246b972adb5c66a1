//go:build !js

package client

// Outside the browser there is no page and no early connection.

func takePageSocket(url string, hello []byte) (greeted bool, refused error) { return false, nil }

func dropPageSocket() {}
