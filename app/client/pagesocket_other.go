//go:build !js

package client

import "time"

// Outside the browser there is no page and no early connection.

func takePageSocket(url string, hello []byte) (greeted bool, heard time.Time, refused error) {
	return false, heard, nil
}

func dropPageSocket() {}
